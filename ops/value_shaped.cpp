// byteir.repeat and byteir.non_zero (see value_shaped.h).
#include "ops/value_shaped.h"

#include "core/error.h"

#include <cstring>

namespace teval::ops::detail {

core::Tensor repeat(const core::GraphNode& n, const core::Tensor& x, const core::Tensor& repeats,
                    const core::ValueType& result) {
  const int64_t rows = x.shape()[0];
  const int64_t row = rows ? x.numel() / rows : 0;
  int64_t total = 0;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t k = repeats.get(i).i;
    if (k < 0 || __builtin_add_overflow(total, k, &total))
      throw core::Error(core::ErrorKind::Range, n.span,
                        "byteir.repeat's repeat " + std::to_string(i) + " is " + std::to_string(k) +
                            "; repeats are non-negative");
  }
  if (total != result.shape[0])
    throw core::Error(core::ErrorKind::Shape, n.span,
                      "byteir.repeat's repeats sum to " + std::to_string(total) +
                          ", but its result has " + std::to_string(result.shape[0]) + " rows");
  core::Tensor out(result.dtype, result.shape);
  int64_t to = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = repeats.get(i).i; k > 0; --k, ++to)
      for (int64_t j = 0; j < row; ++j)
        out.set(to * row + j, x.get(i * row + j));
  return out;
}

core::Tensor non_zero(const core::GraphNode& n, const core::Tensor& x,
                      const core::ValueType& result) {
  std::vector<int64_t> at;
  for (int64_t i = 0; i < x.numel(); ++i)
    if (x.get(i).truthy())
      at.push_back(i);
  if (static_cast<int64_t>(at.size()) != result.shape[0])
    throw core::Error(core::ErrorKind::Shape, n.span,
                      "byteir.non_zero found " + std::to_string(at.size()) +
                          " nonzero elements, but its result has " +
                          std::to_string(result.shape[0]) + " rows");
  const core::Shape& shape = x.shape();
  const size_t rank = shape.size();
  core::Tensor out(result.dtype, result.shape);
  for (size_t r = 0; r < at.size(); ++r) {
    int64_t rest = at[r];
    for (size_t d = rank; d-- > 0;) {
      out.set(static_cast<int64_t>(r * rank + d),
              core::Scalar::of_int(result.dtype, rest % shape[d]));
      rest /= shape[d];
    }
  }
  return out;
}

} // namespace teval::ops::detail
