// reduce of one input with a body of one binary op: its native reference
// and its einstein_v2 statements, side by side so the two say the same
// thing (StableHLO specification, "reduce"; docs/SEMANTICS.md, "StableHLO's
// reduce"). Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <functional>
#include <string>
#include <vector>

namespace teval::ops::detail {

/// The result of \p n (attributes dimensions, ascending, and body) of type
/// \p result: each element the fold, from \p init, of the body over the
/// input's elements that reduce into it, in row-major order.
core::Tensor reduce(const core::GraphNode& n, const core::Tensor& x, const core::Tensor& init,
                    const core::ValueType& result);

/// The einstein_v2 statements giving \p target the same values from the
/// tensors \p x_name (of type \p x) and \p init_name (rank 0), whose
/// value is \p init when a constant gives it (else null); \p helper names
/// a helper tensor from a suffix.
std::vector<std::string>
reduce_statements(const core::GraphNode& n, const core::ValueType& x, const std::string& x_name,
                  const std::string& init_name, const core::Tensor* init,
                  const core::ValueType& result, const std::string& target,
                  const std::function<std::string(const std::string&)>& helper);

/// reduce_window (StableHLO specification, "reduce_window") of \p n
/// (attributes window, strides, base_dilations, window_dilations, pad_low,
/// pad_high and body) of type \p result: each element the fold, from
/// \p init, of the body over its window's elements in row-major order,
/// \p init where the window lies in padding or between dilated elements.
core::Tensor reduce_window(const core::GraphNode& n, const core::Tensor& x,
                           const core::Tensor& init, const core::ValueType& result);

/// The einstein_v2 statements giving \p target the same values, as for
/// reduce_statements().
std::vector<std::string> reduce_window_statements(
    const core::GraphNode& n, const core::ValueType& x, const std::string& x_name,
    const std::string& init_name, const core::Tensor* init_value, const core::ValueType& result,
    const std::string& target, const std::function<std::string(const std::string&)>& helper);

} // namespace teval::ops::detail
