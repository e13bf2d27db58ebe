// Block evaluation's guarded reads (see block_eval.h): a padded window,
// `x[i...].when([c...], k)` with affine conditions and indices, evaluated in
// one pass over a block, each condition and index stepped through the
// block's row-major walk.
#include "interp/affine.h"
#include "interp/block_eval.h"

#include "core/shape.h"

#include <algorithm>

namespace teval::interp::detail {

using core::DType;
using core::Expr;
using core::Op;
using core::Scalar;

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
  std::optional<std::vector<interp::Comparison>> conjuncts = interp::conjunction(s.cond, s_.vars);
  if (!conjuncts)
    return std::nullopt;
  for (const interp::Comparison& c : *conjuncts) {
    Comparison cmp{c.op, {c.difference.constant, {}, {}}};
    for (size_t v = 0; v < c.difference.coeff.size(); ++v)
      if (c.difference.coeff[v] != 0)
        cmp.difference.terms.emplace_back(static_cast<int>(v), c.difference.coeff[v]);
    finish(cmp.difference);
    g.conditions.push_back(std::move(cmp));
  }
  using Wide = __int128;
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

void BlockEvaluator::linear_values(const Linear& l, const Selection& sel,
                                   std::vector<int64_t>& out) {
  out.resize(kBlock);
  // Modulo 2^64 (see finish()): the values themselves fit int64.
  auto at = [&](auto value_of) {
    uint64_t v = static_cast<uint64_t>(l.constant);
    for (const auto& [var, coeff] : l.terms)
      v += static_cast<uint64_t>(coeff) * static_cast<uint64_t>(value_of(var));
    return static_cast<int64_t>(v);
  };
  if (&sel != &all_) {
    for (int32_t k : sel)
      out[k] = at([&](int var) { return vars_[static_cast<size_t>(var)].i[k]; });
    return;
  }
  const size_t nv = s_.vars.size();
  if (nv == 0) { // one point
    out[0] = at([](int) { return int64_t{0}; });
    return;
  }
  if (stepping_block_ != block_) {
    // The variable each step of the row-major walk advances.
    stepping_.resize(kBlock);
    std::vector<int64_t> p = block_start_;
    stepping_[0] = -1;
    for (int32_t k = 1; k < count_; ++k) {
      size_t v = nv - 1;
      while (v > 0 && p[v] + 1 == s_.vars[v].end) {
        p[v] = s_.vars[v].begin;
        --v;
      }
      ++p[v];
      stepping_[k] = static_cast<int>(v);
    }
    stepping_block_ = block_;
  }
  uint64_t v =
      static_cast<uint64_t>(at([&](int var) { return block_start_[static_cast<size_t>(var)]; }));
  out[0] = static_cast<int64_t>(v);
  const int64_t* step = l.step.data();
  for (int32_t k = 1; k < count_; ++k)
    out[k] = static_cast<int64_t>(v += static_cast<uint64_t>(step[stepping_[k]]));
}

void BlockEvaluator::guarded(const GuardedRead& g, const Selection& sel, Column& out) {
  const core::Tensor& t = *tensors_[g.tensor];
  const core::Shape& shape = t.shape();
  const std::byte* base = t.bytes().data();
  const bool single = t.dtype() == DType::Float32;
  // Each condition's and index's values over the selection, then the
  // points one by one.
  const size_t n = g.conditions.size() + (g.flat ? 1 : g.index.size());
  if (linear_scratch_.size() < n)
    linear_scratch_.resize(n);
  for (size_t c = 0; c < g.conditions.size(); ++c)
    linear_values(g.conditions[c].difference, sel, linear_scratch_[c]);
  const std::vector<int64_t>* index = linear_scratch_.data() + g.conditions.size();
  if (g.flat)
    linear_values(*g.flat, sel, linear_scratch_[g.conditions.size()]);
  else
    for (size_t d = 0; d < g.index.size(); ++d)
      linear_values(g.index[d], sel, linear_scratch_[g.conditions.size() + d]);
  for (int32_t k : sel) {
    bool holds = true;
    for (size_t c = 0; c < g.conditions.size() && holds; ++c) {
      int64_t d = linear_scratch_[c][k];
      switch (g.conditions[c].op) {
      case Op::Lt:
        holds = d < 0;
        break;
      case Op::Le:
        holds = d <= 0;
        break;
      case Op::Gt:
        holds = d > 0;
        break;
      case Op::Ge:
        holds = d >= 0;
        break;
      case Op::Eq:
        holds = d == 0;
        break;
      default:
        holds = d != 0;
        break;
      }
    }
    if (!holds) {
      out.i[k] = g.otherwise.i;
      out.f[k] = g.otherwise.f;
      continue;
    }
    int64_t flat = 0;
    if (g.flat) {
      flat = index[0][k];
    } else {
      for (size_t d = 0; d < g.index.size(); ++d) {
        int64_t i = index[d][k];
        if (i < 0 || i >= shape[d])
          throw GiveUp{};
        flat = flat * shape[d] + i;
      }
    }
    if (single) {
      out.f[k] = read<float>(base, flat);
    } else {
      Scalar v = t.get(flat);
      out.i[k] = v.i;
      out.f[k] = v.f;
    }
  }
}

} // namespace teval::interp::detail
