// Running MLIR functions in tests: elaboration, inputs, and each engine.
#pragma once

#include "core/tensor.h"
#include "parser/antares/antares.h"

#include <map>
#include <string>
#include <vector>

namespace teval::test {

/// The graph of function @main (or the only one) of \p text, as
/// core::to_string shows it. Throws Error.
std::string mlir_graph(const std::string& text,
                       const std::map<std::string, parser::InputType>& inputs = {});

/// Seeded random data for every argument of \p text's function (a `?`
/// dimension of extent 3).
std::vector<core::Tensor> mlir_random_inputs(const std::string& text, uint64_t seed);

/// The outputs of \p text's function on \p inputs (arg0, arg1, ...):
/// "interp" runs the native references, "decomposition" the einstein_v2
/// decomposition on the interpreter, "ireval", "jit" and "hexagon" on
/// those engines.
std::vector<core::Tensor> run_mlir(const std::string& text, const std::vector<core::Tensor>& inputs,
                                   const std::string& engine);

/// Every engine run_mlir() has: the native references first, then the
/// decomposition on each engine, which must give their bits.
inline const std::vector<std::string> kMlirEngines = {"interp", "decomposition", "ireval", "jit",
                                                      "hexagon"};

/// "" when \p a and \p b have the same dtype, shape and elements (NaN
/// equal to NaN, -0 not 0), else the first difference.
std::string first_difference(const core::Tensor& a, const core::Tensor& b);

} // namespace teval::test
