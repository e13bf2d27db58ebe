// bitcast_convert and reduce_precision (StableHLO specification, the
// sections of the same names; docs/SEMANTICS.md, "StableHLO's bit
// reinterpretations"): native references on the elements' bits. Neither
// has an einstein_v2 decomposition (the Kernel IR has no bit view of
// floats). Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

namespace teval::ops::detail {

/// \p x's bits read as \p result's type: the same bytes in memory order
/// (little-endian: a wider element's trailing dimension holds its parts
/// from the least significant up).
core::Tensor bitcast_convert(const core::Tensor& x, const core::ValueType& result);

/// \p x rounded to a format of \p n's exponent_bits and mantissa_bits and
/// back: the mantissa rounded to nearest, ties to even, then an exponent
/// past the format's range infinity and one at or below its least normal
/// exponent zero (both keeping the sign); NaN stays NaN (infinity when no
/// mantissa bit is kept).
core::Tensor reduce_precision(const core::GraphNode& n, const core::Tensor& x);

} // namespace teval::ops::detail
