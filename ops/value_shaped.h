// byteir.repeat and byteir.non_zero, whose result shapes depend on operand
// values: native references that check the declared extent against the
// values (parser/mlir/mlir_value_shaped.cpp reads them). They have no
// einstein_v2 decomposition. Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

namespace teval::ops::detail {

/// repeat: row i of \p x (along dimension 0) \p repeats[i] times, rows in
/// order (torch's repeat_interleave, ByteIR's linalg lowering). A negative
/// repeat, or repeats that do not sum to the result's rows, is an error at
/// the op.
core::Tensor repeat(const core::GraphNode& n, const core::Tensor& x, const core::Tensor& repeats,
                    const core::ValueType& result);

/// non_zero: the indices of \p x's nonzero elements (NaN is nonzero, -0 is
/// zero), one row each, in row-major order (torch.nonzero). A count other
/// than the result's rows is an error at the op.
core::Tensor non_zero(const core::GraphNode& n, const core::Tensor& x,
                      const core::ValueType& result);

} // namespace teval::ops::detail
