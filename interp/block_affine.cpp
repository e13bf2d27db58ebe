// Block evaluation's affine positions (see block_eval.h): accesses whose
// every index is affine (interp/affine.h) and, over the statement's whole
// box, inside the tensor's extents.
#include "interp/affine.h"
#include "interp/block_eval.h"

#include "core/shape.h"

#include <algorithm>

namespace teval::interp::detail {

using core::Expr;

std::optional<BlockEvaluator::Affine> BlockEvaluator::affine(const Expr& e) const {
  return interp::affine(e, s_.vars);
}

std::optional<BlockEvaluator::Affine> BlockEvaluator::affine_flat(const std::vector<Expr>& index,
                                                                  const core::Shape& shape) const {
  if (index.size() != shape.size())
    return std::nullopt;
  std::vector<int64_t> strides = core::strides(shape);
  Affine flat{0, std::vector<int64_t>(s_.vars.size(), 0)};
  for (size_t d = 0; d < index.size(); ++d) {
    std::optional<Affine> a = affine(index[d]);
    if (!a)
      return std::nullopt;
    // In range at every point: lo >= 0 and hi < extent.
    int64_t lo = a->constant, hi = a->constant;
    for (size_t v = 0; v < s_.vars.size(); ++v) {
      int64_t x = a->coeff[v] * s_.vars[v].begin, y = a->coeff[v] * (s_.vars[v].end - 1);
      lo += std::min(x, y);
      hi += std::max(x, y);
    }
    if (lo < 0 || hi >= shape[d])
      return std::nullopt;
    // Every partial sum is a position inside the tensor: no overflow.
    flat.constant += a->constant * strides[d];
    for (size_t v = 0; v < s_.vars.size(); ++v)
      flat.coeff[v] += a->coeff[v] * strides[d];
  }
  return flat;
}

} // namespace teval::interp::detail
