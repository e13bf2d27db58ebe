// Reading Tile sources: the Tile eDSL tutorial's functions in either
// spelling, C++ (`Tensor f(const Tensor& I) { ... }`) or Python
// (`def f(I):` and an indented body).
#pragma once

#include "core/source.h"
#include "parser/ast.h"

namespace teval::parser {

/// Parses the functions of \p file into Function statements. The spelling
/// is Python when the first line that is not blank or a comment starts with
/// `def `, C++ otherwise. Python bodies are one indentation level of simple
/// statements (assignments, augmented assignments, expression statements,
/// return). Throws Error(Syntax).
ast::Program read_tile(const core::SourceFile& file);

} // namespace teval::parser
