// Elaboration of PlaidML Tile functions into the Kernel IR.
//
// A contraction `O(i, j) += A(i, k) * B(k, j)` becomes one statement whose
// index variables walk the exact integer bounding box of the rational
// polyhedron "every access in range, every constraint satisfied" (computed
// by Fourier-Motzkin over exact rationals); points of the box that are not
// valid (an access out of range, a fractional index, a violated constraint)
// contribute nothing. Elementwise statements broadcast as numpy does. Each
// rule is written down in docs/SEMANTICS.md with its test.
#pragma once

#include "core/kernel.h"
#include "parser/antares/antares.h"
#include "parser/ast.h"

#include <map>
#include <string>
#include <vector>

namespace teval::parser {

/// A value for an integer parameter of a Tile function: `-p s0=2` or, for a
/// `std::vector<size_t>` parameter, `-p s=[2,1]`.
struct TileParam {
  std::vector<int64_t> values;
  bool list = false;
};

/// The names of the functions a Tile source defines, in order.
std::vector<std::string> tile_functions(const ast::Program& program);

/// Elaborates function \p entry of \p program (read_tile()); with an empty
/// \p entry the source must define exactly one function. Tensor parameters
/// take their type from \p inputs, integer parameters their value from
/// \p params. The kernel's one output is the returned tensor, under its
/// variable's name, or `result` when the function returns an unnamed
/// expression. Throws Error.
core::Kernel elaborate_tile(const ast::Program& program, const std::string& entry,
                            const std::map<std::string, InputType>& inputs,
                            const std::map<std::string, TileParam>& params);

/// Elaborates \p body as the body of a function, for the REPL: every entry
/// of \p inputs is a tensor parameter (in name order). Unlike
/// elaborate_tile, a body without `return` is allowed; its kernel has no
/// outputs (so a block of declarations can be checked on its own). \p span
/// is where a missing-return or empty-body message points. Throws Error.
core::Kernel elaborate_tile_body(const std::vector<ast::StmtPtr>& body,
                                 const std::map<std::string, InputType>& inputs, core::Span span);

} // namespace teval::parser
