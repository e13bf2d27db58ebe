// The Spirit X3 grammar for C++-spelled notations: PlaidML Tile functions as
// the Tile tutorial writes them, `Tensor f(const Tensor& I, ...) { ... }`.
#pragma once

#include "parser/ast.h"
#include "parser/text.h"

#include <string_view>

namespace teval::parser {

/// Parses a sequence of C++ function definitions. Statements: declarations
/// (`TensorDim M, N;`, `std::vector<TensorDim> X(2);`, `auto O = e;`),
/// assignments including contractions (`O(i, j) += A(i, k) * B(k, j);` with
/// `+=`, `*=`, `>=`, `<=`, `=`), expression statements, `return e;` and
/// counted `for` loops. Expressions have C++'s precedence; `O(i)` is a Call,
/// `X[i]` a Subscript. Comments are `//` and `/* */`. Throws Error(Syntax).
ast::Program parse_cpp(std::string_view text, const TextOrigin& origin);

} // namespace teval::parser
