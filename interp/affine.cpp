// Affine index expressions (see affine.h).
#include "interp/affine.h"

#include "core/numeric.h"

#include <algorithm>

namespace teval::interp {

using core::Expr;
using core::Op;
using Wide = __int128;

std::pair<Wide, Wide> affine_range(const Affine& a, const std::vector<core::IndexVar>& vars) {
  Wide lo = a.constant, hi = a.constant;
  for (size_t v = 0; v < vars.size(); ++v) {
    Wide x = Wide(a.coeff[v]) * vars[v].begin, y = Wide(a.coeff[v]) * (vars[v].end - 1);
    lo += std::min(x, y);
    hi += std::max(x, y);
  }
  return {lo, hi};
}

std::optional<Affine> affine(const Expr& e, const std::vector<core::IndexVar>& vars) {
  const size_t nv = vars.size();
  if (!core::is_integer(e->dtype))
    return std::nullopt;
  std::optional<Affine> r;
  if (const auto* c = std::get_if<core::Const>(&e->node)) {
    r = Affine{c->value.i, std::vector<int64_t>(nv, 0)};
  } else if (const auto* v = std::get_if<core::VarRef>(&e->node)) {
    r = Affine{0, std::vector<int64_t>(nv, 0)};
    r->coeff[v->var] = 1;
  } else if (const auto* c = std::get_if<core::Cast>(&e->node)) {
    r = affine(c->value, vars); // kept only if every value fits the new dtype, below
  } else if (const auto* a = std::get_if<core::Apply>(&e->node)) {
    std::vector<Affine> args;
    for (const Expr& x : a->args) {
      std::optional<Affine> ax = affine(x, vars);
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
  for (const core::IndexVar& v : vars)
    if (v.end <= v.begin)
      return std::nullopt;
  auto [lo, hi] = affine_range(*r, vars);
  if (lo < core::int_min(e->dtype) || hi > core::int_max(e->dtype))
    return std::nullopt;
  return r;
}

std::optional<std::vector<Comparison>> conjunction(const Expr& cond,
                                                   const std::vector<core::IndexVar>& vars) {
  std::vector<Comparison> out;
  auto conjuncts = [&](auto&& self, const Expr& c) -> bool {
    const auto* a = std::get_if<core::Apply>(&c->node);
    if (!a)
      return false;
    if (a->op == Op::And)
      return self(self, a->args[0]) && self(self, a->args[1]);
    if (core::rule(a->op) != core::OpRule::Compare || a->op == Op::Same)
      return false;
    std::optional<Affine> x = affine(a->args[0], vars), y = affine(a->args[1], vars);
    if (!x || !y)
      return false;
    Comparison cmp{a->op, {0, std::vector<int64_t>(vars.size(), 0)}};
    Wide constant = Wide(x->constant) - y->constant;
    for (size_t v = 0; v < vars.size(); ++v) {
      Wide k = Wide(x->coeff[v]) - y->coeff[v];
      if (k < INT64_MIN || k > INT64_MAX)
        return false;
      cmp.difference.coeff[v] = static_cast<int64_t>(k);
    }
    if (constant < INT64_MIN || constant > INT64_MAX)
      return false;
    cmp.difference.constant = static_cast<int64_t>(constant);
    auto [lo, hi] = affine_range(cmp.difference, vars);
    if (lo < INT64_MIN || hi > INT64_MAX)
      return false;
    out.push_back(std::move(cmp));
    return true;
  };
  if (!conjuncts(conjuncts, cond))
    return std::nullopt;
  return out;
}

} // namespace teval::interp
