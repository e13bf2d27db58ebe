// Comparing a graph's outputs before and after a rewrite (see htp_compare.h).
#include "verify/htp_compare.h"

#include "core/format.h"

#include <algorithm>
#include <cmath>

namespace teval::verify::htp {

std::string element_difference(const core::Tensor& a, const core::Tensor& b, int64_t i) {
  std::vector<int64_t> st = core::strides(a.shape());
  std::string index;
  for (size_t d = 0; d < st.size(); ++d)
    index += (d ? ", " : "") + std::to_string(i / st[d] % a.shape()[d]);
  return "out[" + index + "]: before " + core::format_scalar(a.get(i)) + ", after " +
         core::format_scalar(b.get(i));
}

std::string describe_difference(const core::Tensor& a, const core::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape())
    return "the output changes type: before " + std::string(core::name(a.dtype())) +
           core::to_string(a.shape()) + ", after " + std::string(core::name(b.dtype())) +
           core::to_string(b.shape());
  for (int64_t i = 0; i < a.numel(); ++i)
    if (!core::identical(a.get(i), b.get(i)))
      return element_difference(a, b, i);
  return {};
}

std::optional<RelativeError> relative_error(const core::Tensor& a, const core::Tensor& b,
                                            const std::map<int, core::Tensor>& inputs) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape() || !core::is_float(a.dtype()))
    return std::nullopt;
  double scale = 0, worst = 0;
  int64_t at = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double x = a.get(i).f, y = b.get(i).f;
    if (std::isnan(x) != std::isnan(y) || std::isinf(x) != std::isinf(y) ||
        (std::isinf(x) && x != y))
      return std::nullopt;
    if (std::isfinite(x)) {
      scale = std::max(scale, std::abs(x));
      if (std::abs(x - y) > worst) {
        worst = std::abs(x - y);
        at = i;
      }
    }
  }
  for (const auto& [id, t] : inputs)
    if (core::is_float(t.dtype()))
      for (int64_t i = 0; i < t.numel(); ++i)
        if (std::isfinite(t.get(i).f))
          scale = std::max(scale, std::abs(t.get(i).f));
  if (worst == 0)
    return RelativeError{};
  // At least float16's smallest normal: values below it carry float16's
  // absolute precision, not its relative one.
  scale = std::max(scale, 0x1p-14);
  return RelativeError{worst / scale, at, worst, scale};
}

} // namespace teval::verify::htp
