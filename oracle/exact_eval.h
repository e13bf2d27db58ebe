// The exact mode of evaluation: the program's meaning with every reduction
// accumulated exactly and rounded once, and math functions correctly
// rounded (docs/SEMANTICS.md, "Exact evaluation").
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace teval::oracle {

/// Evaluates \p kernel on \p inputs (one per input tensor, in declaration
/// order, as interp::run takes them) in exact mode: sums and products of a
/// floating dtype are exact and rounded once to the target dtype, math
/// functions are correctly rounded, everything else is as the interpreter
/// computes it (each + - * / rounded to its dtype, integers wrap). Throws
/// Error for the interpreter's errors.
std::vector<core::Tensor> run_exact(const core::Kernel& kernel,
                                    std::span<const core::Tensor> inputs);

/// The bytes run_exact() keeps for each output element of the reduction it
/// runs (an accumulator, with an exact sum's mantissa of a few words).
size_t exact_accumulator_bytes();

/// One value an output element was computed from.
struct Dependency {
  std::string tensor; ///< the tensor's name (an input, or an intermediate)
  std::vector<int64_t> index;
  core::Scalar value;
};

/// The values read by the points that write element \p flat of output
/// number \p output (the first \p limit of them, each element once), and
/// how many there are in all: enough to recompute the element by hand. An
/// intermediate tensor's values are listed as read, not traced further.
std::pair<std::vector<Dependency>, int64_t> dependencies(const core::Kernel& kernel,
                                                         std::span<const core::Tensor> inputs,
                                                         size_t output, int64_t flat,
                                                         size_t limit = 16);

} // namespace teval::oracle
