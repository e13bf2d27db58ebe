// IREval: a direct evaluator of the LoopNest IR, separate from the Kernel
// interpreter, so that a disagreement can be placed: interpreter vs IREval
// is a lowering (or transformation) bug, IREval vs compiled code a code
// generation bug.
#pragma once

#include "core/loopnest.h"
#include "core/tensor.h"

#include <span>
#include <vector>

namespace teval::interp {

/// Runs \p nest. \p inputs holds one tensor per nest.inputs entry, with the
/// buffer's dtype and shape; returns the output buffers in nest.outputs
/// order. Every error of the loop-nest semantics (an out-of-range access, a
/// faulting operation, a Raise) throws Error with the node's span, naming
/// the current values of the point variables.
std::vector<core::Tensor> ireval(const core::LoopNest& nest, std::span<const core::Tensor> inputs);

} // namespace teval::interp
