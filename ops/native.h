// The native reference meaning of an op graph: each node evaluated by a
// plain loop over its elements with teval's scalar arithmetic
// (core/scalar_ops.h), every operation rounded to the element type as the
// Kernel IR rounds it, reductions in index order. This is the ground truth
// for MLIR functions; the einstein_v2 decomposition (decompose.h) must
// agree with it.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <vector>

namespace teval::ops {

/// Evaluates \p g on \p inputs (one per g.inputs, of its type) and returns
/// the outputs in g.outputs order. Throws Error for a value that does not
/// exist (integer division by zero, a float that does not convert), naming
/// the node and the element.
std::vector<core::Tensor> evaluate(const core::Graph& g, const std::vector<core::Tensor>& inputs);

} // namespace teval::ops
