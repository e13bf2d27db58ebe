// The Spirit X3 grammar of Hexagon HTP op-package rules (seed 001): the
// argument lists of DEF_PACKAGE_OPTIMIZATION, DEF_PACKAGE_OP and their
// relatives, and the bodies of rule macros.
//
// Every construct is a call `NAME(args...)`; arguments are calls, string
// constants (adjacent ones concatenate), integer constants (C syntax:
// decimal, octal, hex, U/L suffixes, optional sign), float constants
// (optional sign and `f` suffix), names (`OK`, `EARLY`, `DType::Float32`,
// `Flags::RESOURCE_HVX`, `impl<PlainFloatTensor>`, `&default_value`), a
// parenthesized C++ function name `(impl<PlainFloatTensor>)`, and the pass
// spec forms `NAME + 3` and `NAME - 2`. Whitespace and C++ comments separate
// tokens. Everything lands in the one AST (ast.h): calls as Call, names as
// Name, `+`/`-` as Binary, a sign as Unary.
#pragma once

#include "parser/ast.h"
#include "parser/text.h"

#include <string_view>

namespace teval::parser {

/// A macro invocation parsed from the start of a text.
struct Invocation {
  ast::ExprPtr call;
  /// Offset just past the closing `)` (comments and spaces after it are not
  /// consumed).
  size_t end = 0;
};

/// Parses `NAME(args...)` at the start of \p text; the rest of the text is
/// not looked at. Throws Error(Syntax).
Invocation parse_htp_invocation(std::string_view text, const TextOrigin& origin);

/// Parses all of \p text as one rule expression (a macro body). Throws
/// Error(Syntax).
ast::ExprPtr parse_htp_expression(std::string_view text, const TextOrigin& origin);

} // namespace teval::parser
