// Spirit X3 grammars for Python-spelled notations: einstein_v2 programs,
// the COMPUTE_V1 preamble and f-string fields. One expression grammar with
// Python's precedence serves all three. The grammar accepts a little more
// than it gives meaning to (`**`, `^`, `not`) so elaboration can reject
// those with a precise message; Python's `and`, `or`, `if`, chained
// comparisons and the like are rejected here, at the offending token.
#pragma once

#include "parser/ast.h"
#include "parser/text.h"

#include <string_view>

namespace teval::parser {

/// Parses an einstein_v2 program: statements `LHS OP RHS [where A in E, ...]`
/// separated by `;` (empty statements allowed). Throws Error(Syntax).
ast::Program parse_einstein(std::string_view text, const TextOrigin& origin);

/// Parses Python statements (assignments, possibly unpacking tuples, and
/// expression statements) separated by `;`. Run logical_lines() first.
ast::Program parse_python(std::string_view text, const TextOrigin& origin);

/// Parses one Python expression (an f-string field).
ast::ExprPtr parse_python_expression(std::string_view text, const TextOrigin& origin);

} // namespace teval::parser
