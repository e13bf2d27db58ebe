// Block evaluation's affine positions (see block_eval.h): index
// expressions that are sums and constant multiples of the index variables,
// proved by interval arithmetic over the statement's box never to leave
// their dtypes nor, for a whole access, the tensor's extents.
#include "interp/block_eval.h"

#include "core/shape.h"

#include <algorithm>

namespace teval::interp::detail {

using core::Expr;
using core::Op;

std::optional<BlockEvaluator::Affine> BlockEvaluator::affine(const Expr& e) const {
  using Wide = __int128;
  const size_t nv = s_.vars.size();
  if (!core::is_integer(e->dtype))
    return std::nullopt;
  std::optional<Affine> r;
  if (const auto* c = std::get_if<core::Const>(&e->node)) {
    r = Affine{c->value.i, std::vector<int64_t>(nv, 0)};
  } else if (const auto* v = std::get_if<core::VarRef>(&e->node)) {
    r = Affine{0, std::vector<int64_t>(nv, 0)};
    r->coeff[v->var] = 1;
  } else if (const auto* c = std::get_if<core::Cast>(&e->node)) {
    r = affine(c->value); // kept only if every value fits the new dtype, below
  } else if (const auto* a = std::get_if<core::Apply>(&e->node)) {
    std::vector<Affine> args;
    for (const Expr& x : a->args) {
      std::optional<Affine> ax = affine(x);
      if (!ax)
        return std::nullopt;
      args.push_back(std::move(*ax));
    }
    auto constant_only = [](const Affine& x) {
      return std::all_of(x.coeff.begin(), x.coeff.end(), [](int64_t k) { return k == 0; });
    };
    auto combine = [&](Wide ka, Wide kb, const Affine& x,
                       const Affine& y) -> std::optional<Affine> {
      Affine out{0, std::vector<int64_t>(nv, 0)};
      Wide c = ka * x.constant + kb * y.constant;
      if (c < INT64_MIN || c > INT64_MAX)
        return std::nullopt;
      out.constant = static_cast<int64_t>(c);
      for (size_t i = 0; i < nv; ++i) {
        Wide k = ka * x.coeff[i] + kb * y.coeff[i];
        if (k < INT64_MIN || k > INT64_MAX)
          return std::nullopt;
        out.coeff[i] = static_cast<int64_t>(k);
      }
      return out;
    };
    Affine zero{0, std::vector<int64_t>(nv, 0)};
    if (a->op == Op::Add)
      r = combine(1, 1, args[0], args[1]);
    else if (a->op == Op::Sub)
      r = combine(1, -1, args[0], args[1]);
    else if (a->op == Op::Neg)
      r = combine(-1, 0, args[0], zero);
    else if (a->op == Op::Mul && constant_only(args[1]))
      r = combine(args[1].constant, 0, args[0], zero);
    else if (a->op == Op::Mul && constant_only(args[0]))
      r = combine(args[0].constant, 0, args[1], zero);
  }
  if (!r)
    return std::nullopt;
  // Its range over the box must fit its dtype.
  Wide lo = r->constant, hi = r->constant;
  for (size_t v = 0; v < nv; ++v) {
    if (s_.vars[v].end <= s_.vars[v].begin)
      return std::nullopt;
    Wide x = Wide(r->coeff[v]) * s_.vars[v].begin, y = Wide(r->coeff[v]) * (s_.vars[v].end - 1);
    lo += std::min(x, y);
    hi += std::max(x, y);
  }
  if (lo < core::int_min(e->dtype) || hi > core::int_max(e->dtype))
    return std::nullopt;
  return r;
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
