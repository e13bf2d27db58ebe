// Block evaluation's affine positions (see block_eval.h): index
// expressions that are sums and constant multiples of the index variables,
// proved by interval arithmetic over the statement's box never to leave
// their dtypes nor, for a whole access, the tensor's extents.
#include "interp/block_eval.h"

#include "core/shape.h"

#include <algorithm>
#include <functional>

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

std::optional<BlockEvaluator::Linear> BlockEvaluator::linear(const Expr& e) const {
  std::optional<Affine> a = affine(e);
  if (!a)
    return std::nullopt;
  Linear l{a->constant, {}, {}};
  for (size_t v = 0; v < a->coeff.size(); ++v)
    if (a->coeff[v] != 0)
      l.terms.emplace_back(static_cast<int>(v), a->coeff[v]);
  finish(l);
  return l;
}

void BlockEvaluator::finish(Linear& l) const {
  const size_t nv = s_.vars.size();
  std::vector<int64_t> coeff(nv, 0);
  for (const auto& [v, k] : l.terms)
    coeff[static_cast<size_t>(v)] = k;
  // Stepping v by one and restarting every variable inside it: the value
  // moves by coeff[v] - sum over u > v of coeff[u] * (extent[u] - 1).
  // Computed modulo 2^64 (linear_values adds the steps so too): every value
  // the walk reaches fits int64, so the wrapped sums give it exactly.
  l.step.assign(nv, 0);
  uint64_t reset = 0;
  for (size_t v = nv; v-- > 0;) {
    l.step[v] = static_cast<int64_t>(static_cast<uint64_t>(coeff[v]) - reset);
    reset += static_cast<uint64_t>(coeff[v]) *
             static_cast<uint64_t>(s_.vars[v].end - 1 - s_.vars[v].begin);
  }
}

std::optional<BlockEvaluator::GuardedRead>
BlockEvaluator::guarded_read(const core::Select& s) const {
  const auto* load = std::get_if<core::Load>(&s.then->node);
  const auto* otherwise = std::get_if<core::Const>(&s.otherwise->node);
  if (!load || !otherwise || skip_)
    return std::nullopt;
  GuardedRead g;
  g.tensor = load->tensor;
  g.otherwise = otherwise->value;
  for (const Expr& i : load->index) {
    std::optional<Linear> l = linear(i);
    if (!l)
      return std::nullopt;
    g.index.push_back(std::move(*l));
  }
  // The conjuncts: comparisons of affine operands, whose difference over
  // the box fits int64 (each operand fits its dtype).
  using Wide = __int128;
  std::function<bool(const Expr&)> conjuncts = [&](const Expr& c) {
    const auto* a = std::get_if<core::Apply>(&c->node);
    if (!a)
      return false;
    if (a->op == Op::And)
      return conjuncts(a->args[0]) && conjuncts(a->args[1]);
    if (core::rule(a->op) != core::OpRule::Compare || a->op == Op::Same)
      return false;
    std::optional<Affine> x = affine(a->args[0]), y = affine(a->args[1]);
    if (!x || !y)
      return false;
    Comparison cmp{a->op, {x->constant, {}}};
    Wide constant = Wide(x->constant) - y->constant, lo = constant, hi = constant;
    for (size_t v = 0; v < x->coeff.size(); ++v) {
      Wide k = Wide(x->coeff[v]) - y->coeff[v];
      if (k == 0)
        continue;
      if (k < INT64_MIN || k > INT64_MAX)
        return false;
      cmp.difference.terms.emplace_back(static_cast<int>(v), static_cast<int64_t>(k));
      Wide p = k * s_.vars[v].begin, q = k * (s_.vars[v].end - 1);
      lo += std::min(p, q);
      hi += std::max(p, q);
    }
    if (lo < INT64_MIN || hi > INT64_MAX)
      return false;
    cmp.difference.constant = static_cast<int64_t>(constant);
    finish(cmp.difference);
    g.conditions.push_back(std::move(cmp));
    return true;
  };
  if (!conjuncts(s.cond))
    return std::nullopt;
  // Whether every index is in range wherever the conditions hold: over
  // the whole box, or by a lower and an upper bound among the conditions.
  const core::Shape& shape = tensors_[load->tensor]->shape();
  auto range = [&](const Linear& l) {
    Wide lo = l.constant, hi = l.constant;
    for (const auto& [v, k] : l.terms) {
      Wide p = Wide(k) * s_.vars[static_cast<size_t>(v)].begin;
      Wide q = Wide(k) * (s_.vars[static_cast<size_t>(v)].end - 1);
      lo += std::min(p, q);
      hi += std::max(p, q);
    }
    return std::pair{lo, hi};
  };
  auto bounded = [&](const Linear& index, int64_t extent) {
    auto [lo, hi] = range(index);
    bool low = lo >= 0, high = hi < extent;
    for (const Comparison& c : g.conditions) {
      // c: index - b OP 0 (or b - index OP 0, the comparison reversed).
      int sign = 0;
      if (c.difference.terms == index.terms)
        sign = 1;
      auto negated = index.terms;
      for (auto& t : negated)
        t.second = -t.second;
      if (c.difference.terms == negated)
        sign = -1;
      if (sign == 0)
        continue;
      Op op = c.op;
      if (sign < 0)
        op = op == Op::Lt   ? Op::Gt
             : op == Op::Le ? Op::Ge
             : op == Op::Gt ? Op::Lt
             : op == Op::Ge ? Op::Le
                            : op;
      // The bound b with index OP b.
      Wide b = sign > 0 ? Wide(index.constant) - c.difference.constant
                        : Wide(c.difference.constant) + index.constant;
      low |= (op == Op::Ge && b >= 0) || (op == Op::Gt && b >= -1);
      high |= (op == Op::Lt && b <= extent) || (op == Op::Le && b < extent);
    }
    return low && high;
  };
  Linear flat{0, {}, {}};
  std::vector<Wide> coeff(s_.vars.size(), 0);
  Wide constant = 0, stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (!bounded(g.index[d], shape[d]))
      return g;
    constant += Wide(g.index[d].constant) * stride;
    for (const auto& [v, k] : g.index[d].terms)
      coeff[static_cast<size_t>(v)] += Wide(k) * stride;
    stride *= shape[d];
  }
  if (constant < INT64_MIN || constant > INT64_MAX)
    return g;
  flat.constant = static_cast<int64_t>(constant);
  for (size_t v = 0; v < coeff.size(); ++v) {
    if (coeff[v] == 0)
      continue;
    if (coeff[v] < INT64_MIN || coeff[v] > INT64_MAX)
      return g;
    flat.terms.emplace_back(static_cast<int>(v), static_cast<int64_t>(coeff[v]));
  }
  auto [lo, hi] = range(flat);
  if (lo < INT64_MIN || hi > INT64_MAX)
    return g;
  finish(flat);
  g.flat = std::move(flat);
  return g;
}

} // namespace teval::interp::detail
