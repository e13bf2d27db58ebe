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

/// The window geometry every meaning of reduce_window reads (attributes
/// window, strides, base_dilations, window_dilations, pad_low): window
/// position w of output position y along dimension d is padded position
/// y·stride + w·window_dilation, input element (that - low) / base_dilation
/// when it divides and is in range, else the initial value.
struct Window {
  std::vector<int64_t> window, strides, base, dilations, low;
  explicit Window(const core::GraphNode& n);
  int64_t offset(size_t d, int64_t y, int64_t w) const {
    return y * strides[d] + w * dilations[d] - low[d];
  }
  /// The flat index into an input of shape \p in of window element \p k
  /// (row-major over the window) of output element \p at (of a result of
  /// shape \p out), or -1 where it is padding or between dilated elements.
  int64_t input_at(const core::Shape& in, const core::Shape& out, int64_t at, int64_t k) const;
};

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
