// The tree-walking interpreter of the Kernel IR: the ground truth.
//
// Each statement walks every point of its index variables' box in
// row-major order (the first variable outermost; data variables precede
// reduce variables, so reductions run innermost, as in the Antares
// document's Step-2 loops). At each point that satisfies the constraints it
// evaluates the value, lazily for Select/And/Or, and aggregates it into the
// target location in the target's dtype.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"

#include <span>
#include <vector>

namespace teval::interp {

/// The ids of the kernel's input tensors, in declaration order: the order
/// run() expects its inputs in.
std::vector<int> input_ids(const core::Kernel& kernel);

/// How run() evaluates; every choice gives identical results.
struct Options {
  /// Evaluate runs of consecutive points at once where a statement allows
  /// it, replaying a run point by point at the first sign of an error.
  /// False walks every point one at a time: the definitional evaluator.
  bool blocks = true;
};

/// Evaluates \p kernel. \p inputs holds one tensor per input_ids() entry,
/// with the declared dtype and shape. Returns the outputs in
/// kernel.outputs order. Throws Error for every condition the semantics
/// call an error (out-of-range reads, integer division by zero, ...), with
/// the offending node's span and the index point.
std::vector<core::Tensor> run(const core::Kernel& kernel, std::span<const core::Tensor> inputs,
                              const Options& options = {});

} // namespace teval::interp
