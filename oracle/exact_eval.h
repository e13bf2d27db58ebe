// The exact mode of evaluation: the program's meaning with every reduction
// accumulated exactly and rounded once, and math functions correctly
// rounded (docs/SEMANTICS.md, "Exact evaluation").
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"

#include <span>
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

} // namespace teval::oracle
