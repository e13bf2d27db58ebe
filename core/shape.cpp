// Tensor shapes.
#include "core/shape.h"

namespace teval::core {

std::optional<int64_t> checked_numel(const Shape& shape) {
  // The product of the nonzero extents bounds every stride and every flat
  // index computed over the shape, so it must fit even when a zero extent
  // leaves no element: [0, 2^40, 2^40] has no element but strides past int64.
  int64_t nonzero = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && __builtin_mul_overflow(nonzero, d, &nonzero)))
      return std::nullopt;
    empty = empty || d == 0;
  }
  return empty ? 0 : nonzero;
}

std::vector<int64_t> strides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    s[i - 1] = s[i] * shape[i];
  return s;
}

std::string to_string(const Shape& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

} // namespace teval::core
