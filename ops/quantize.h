// Quantized tensors' native meanings (StableHLO specification,
// "Quantization computations"; docs/SEMANTICS.md, "StableHLO's quantized
// tensors"). Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <vector>

namespace teval::ops::detail {

/// The values of the expressed type that the stored integers \p x of
/// quantized type \p q stand for: (i - zero_point), exact, converted to
/// the expressed type, times the scale, rounded to it.
core::Tensor dequantize(const core::Tensor& x, const core::Quantization& q);

/// The stored integers of quantized type \p q for the values \p x (of
/// its expressed type): x / scale + zero_point, each rounded to the
/// expressed type, clamped to [storage_min, storage_max], rounded to the
/// nearest integer (ties to even).
core::Tensor quantize(const core::Tensor& x, const core::Quantization& q);

/// Node \p n of \p g, an elementwise op of per-tensor quantized tensors
/// (the specification's dequantize_op_quantize), on \p operands (the
/// stored integers): each dequantized, the op evaluated on the expressed
/// values (ops::evaluate of a graph of that one node), the result quantized
/// to the node's result type.
core::Tensor dequantize_op_quantize(const core::Graph& g, const core::GraphNode& n,
                                    const std::vector<core::Tensor>& operands);

} // namespace teval::ops::detail
