// Evaluation of a run of consecutive index points at once (see block_eval.h).
#include "interp/block_eval.h"

#include "core/error.h"
#include "core/scalar_ops.h"

#include <algorithm>
#include <bit>
#include <functional>

namespace teval::interp::detail {

using core::DType;
using core::Expr;
using core::ExprNode;
using core::Fault;
using core::Inexact;
using core::Op;
using core::Scalar;

namespace {

Scalar scalar_at(DType t, const std::vector<int64_t>& i, const std::vector<double>& f, int k) {
  Scalar s;
  s.dtype = t;
  if (core::is_float(t))
    s.f = f[k];
  else
    s.i = i[k];
  return s;
}

} // namespace

BlockEvaluator::BlockEvaluator(const core::Statement& s,
                               const std::vector<const core::Tensor*>& tensors,
                               const core::Shape& target_shape)
    : s_(s), tensors_(tensors), target_strides_(core::strides(target_shape)),
      target_shape_(target_shape), vars_(s.vars.size()), flat_(kBlock) {
  for (size_t v = 0; v < s.vars.size(); ++v) {
    // Index variables hold their own values: every range fits its dtype.
    const core::IndexVar& var = s.vars[v];
    TEVAL_ASSERT(var.begin >= core::int_min(var.dtype) && var.end - 1 <= core::int_max(var.dtype),
                 "index variable range exceeds its dtype");
    vars_[v].i.resize(kBlock);
    vars_[v].f.resize(kBlock); // read as a whole column, e.g. by a select
  }
  skip_ = s.out_of_range == core::OutOfRange::Skip;
  if (skip_) {
    core::for_each_node(s.value, [&](const Expr& e) {
      if (std::holds_alternative<core::Load>(e->node))
        loads_.push_back(e.get());
    });
    std::reverse(loads_.begin(), loads_.end()); // a gather's inner load first
    inexact_.assign(kBlock, 0);
  }
  // Accesses whose flat positions need no index evaluation and no check.
  core::for_each_node(s.value, [&](const Expr& e) {
    if (const auto* l = std::get_if<core::Load>(&e->node))
      if (std::optional<Affine> a = affine_flat(l->index, tensors_[l->tensor]->shape()))
        affine_loads_.emplace(e.get(), std::move(*a));
  });
  affine_target_ = affine_flat(s.out_index, target_shape);
  core::for_each_node(s.value, [&](const Expr& e) {
    if (const auto* sel = std::get_if<core::Select>(&e->node))
      if (std::optional<GuardedRead> g = guarded_read(*sel))
        guarded_.emplace(e.get(), std::move(*g));
  });
  // The variables' columns are read by VarRef nodes outside the accesses
  // stepped through, by a target computed point by point, by validity
  // checks, and by the stepped accesses too under a partial selection (the
  // branches of a select, the right operand of && and ||); a matmul needs
  // none.
  std::function<bool(const Expr&)> reads_vars = [&](const Expr& e) {
    if (affine_loads_.count(e.get()))
      return false;
    bool found = std::holds_alternative<core::VarRef>(e->node);
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, core::Load>) {
            for (const Expr& i : n.index)
              found = found || reads_vars(i);
          } else if constexpr (std::is_same_v<T, core::Apply>) {
            found = found || n.op == Op::And || n.op == Op::Or;
            for (const Expr& a : n.args)
              found = found || reads_vars(a);
          } else if constexpr (std::is_same_v<T, core::Cast>) {
            found = found || reads_vars(n.value);
          } else if constexpr (std::is_same_v<T, core::Select>) {
            // A guarded read steps through the block without the columns.
            found = !guarded_.count(e.get());
          }
        },
        e->node);
    return found;
  };
  needs_vars_ = skip_ || !affine_target_ || !s.constraints.empty() || reads_vars(s.value);
  std::map<std::string, int> by_key;
  slot(s.value, by_key);
  for (const core::Constraint& c : s.constraints)
    slot(c.expr, by_key);
  for (const Expr& e : s.out_index)
    slot(e, by_key);
}

Scalar BlockEvaluator::value(int k) const {
  return scalar_at(s_.value->dtype, value_->i, value_->f, k);
}

int BlockEvaluator::slot(const Expr& e, std::map<std::string, int>& by_key) {
  if (auto it = slot_of_.find(e.get()); it != slot_of_.end())
    return it->second;
  // The key: what the node computes, in terms of its operands' slots.
  std::string key =
      std::to_string(static_cast<int>(e->dtype)) + ":" + std::to_string(e->node.index()) + ":";
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        auto operand = [&](const Expr& x) { key += std::to_string(slot(x, by_key)) + ","; };
        if constexpr (std::is_same_v<T, core::Const>) {
          key +=
              std::to_string(n.value.i) + "/" + std::to_string(std::bit_cast<uint64_t>(n.value.f));
        } else if constexpr (std::is_same_v<T, core::VarRef>) {
          key += std::to_string(n.var);
        } else if constexpr (std::is_same_v<T, core::Load>) {
          key += std::to_string(n.tensor) + "[";
          for (const Expr& i : n.index)
            operand(i);
        } else if constexpr (std::is_same_v<T, core::Apply>) {
          key += std::to_string(static_cast<int>(n.op)) + "/" +
                 std::to_string(static_cast<int>(n.overflow)) + "(";
          for (const Expr& a : n.args)
            operand(a);
        } else if constexpr (std::is_same_v<T, core::Cast>) {
          operand(n.value);
        } else {
          operand(n.cond);
          operand(n.then);
          operand(n.otherwise);
        }
      },
      e->node);
  auto [it, fresh] = by_key.emplace(key, static_cast<int>(slots_.size()));
  if (fresh) {
    // A constant's column is filled once and never written again.
    const auto* k = std::get_if<core::Const>(&e->node);
    Column c;
    c.i.assign(kBlock, k ? k->value.i : 0);
    c.f.assign(kBlock, k ? k->value.f : 0);
    slots_.push_back(std::move(c));
    done_.push_back(k ? INT64_MAX : -1);
  }
  slot_of_[e.get()] = it->second;
  return it->second;
}

bool BlockEvaluator::evaluate(const std::vector<int64_t>& start, int count) {
  // The index variables of the block's points. Variable v keeps its value
  // for runs of inner[v] points (the product of the extents inside it); the
  // first run is what remains of the run the block starts in.
  size_t nv = needs_vars_ ? start.size() : 0;
  std::vector<int64_t> inner(nv, 1);
  for (size_t v = nv; v-- > 1;)
    inner[v - 1] = inner[v] * (s_.vars[v].end - s_.vars[v].begin);
  for (size_t v = 0; v < nv; ++v) {
    int64_t rem = 1;
    for (size_t u = v + 1; u < nv; ++u)
      rem += (s_.vars[u].end - 1 - start[u]) * inner[u];
    int64_t value = start[v];
    int64_t* column = vars_[v].i.data();
    if (inner[v] == 1) { // the innermost variable: consecutive values
      for (int k = 0; k < count; ++k) {
        column[k] = value;
        if (++value == s_.vars[v].end)
          value = s_.vars[v].begin;
      }
      continue;
    }
    for (int k = 0; k < count;) {
      int run = static_cast<int>(std::min<int64_t>(rem, count - k));
      std::fill(column + k, column + k + run, value);
      k += run;
      if (++value == s_.vars[v].end)
        value = s_.vars[v].begin;
      rem = inner[v];
    }
  }
  ++block_;
  block_start_ = start;
  if (count_ != count) {
    count_ = count;
    all_.resize(count);
    for (int k = 0; k < count; ++k)
      all_[k] = k;
  }
  try {
    selected_ = &all_;
    if (skip_)
      select_valid();
    const Selection& sel = *selected_;
    if (affine_target_) {
      each_affine(*affine_target_, sel, [&](int32_t k, int64_t flat) { flat_[k] = flat; });
    } else {
      for (int32_t k : sel)
        flat_[k] = 0;
      for (size_t d = 0; d < s_.out_index.size(); ++d) {
        const Column& c = eval(s_.out_index[d], sel);
        for (int32_t k : sel) {
          if (c.i[k] < 0 || c.i[k] >= target_shape_[d])
            throw GiveUp{}; // only where points are not filtered for validity
          flat_[k] += c.i[k] * target_strides_[d];
        }
      }
    }
    value_ = &eval(s_.value, sel);
  } catch (const GiveUp&) {
    return false;
  } catch (const Fault&) {
    return false;
  } catch (const Inexact&) {
    return false;
  }
  return true;
}

void BlockEvaluator::select_valid() {
  valid_ = all_;
  std::fill(inexact_.begin(), inexact_.begin() + count_, 0);
  auto keep = [&](const Column& c, int64_t lo, int64_t hi) {
    size_t n = 0;
    for (int32_t k : valid_)
      if (!inexact_[k] && c.i[k] >= lo && c.i[k] < hi)
        valid_[n++] = k;
    valid_.resize(n);
  };
  for (const core::Constraint& c : s_.constraints)
    keep(eval(c.expr, valid_), 0, c.bound);
  for (size_t d = 0; d < s_.out_index.size(); ++d)
    keep(eval(s_.out_index[d], valid_), 0, target_shape_[d]);
  for (const ExprNode* l : loads_) {
    const auto& load = std::get<core::Load>(l->node);
    const core::Shape& shape = tensors_[load.tensor]->shape();
    for (size_t d = 0; d < load.index.size(); ++d)
      keep(eval(load.index[d], valid_), 0, shape[d]);
  }
  selected_ = &valid_;
}

const BlockEvaluator::Column& BlockEvaluator::eval(const Expr& e, const Selection& sel) {
  if (const auto* v = std::get_if<core::VarRef>(&e->node))
    return vars_[v->var];
  int id = slot_of_.at(e.get());
  Column& out = slots_[id];
  if (done_[id] >= block_)
    return out; // computed for every point of this block already (or a constant)
  if (&sel == &all_)
    done_[id] = block_;
  if (auto g = guarded_.find(e.get()); g != guarded_.end()) {
    guarded(g->second, sel, out);
    return out;
  }
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, core::Const> || std::is_same_v<T, core::VarRef>) {
          // Constants are filled when their column is made; variables above.
        } else if constexpr (std::is_same_v<T, core::Load>) {
          load(*e, n, sel, out);
        } else if constexpr (std::is_same_v<T, core::Apply>) {
          if (core::rule(n.op) == core::OpRule::Logical)
            logical(*e, n, sel, out);
          else
            apply(*e, n, sel, out);
        } else if constexpr (std::is_same_v<T, core::Cast>) {
          const Column& v = eval(n.value, sel);
          DType from = n.value->dtype;
          for (int32_t k : sel) {
            Scalar r = cast(scalar_at(from, v.i, v.f, k), e->dtype);
            out.i[k] = r.i;
            out.f[k] = r.f;
          }
        } else {
          static_assert(std::is_same_v<T, core::Select>);
          const Column& c = eval(n.cond, sel);
          if (scratch_used_ + 2 > scratch_.size())
            scratch_.resize(scratch_used_ + 2);
          Selection& yes = scratch_[scratch_used_++];
          Selection& no = scratch_[scratch_used_++];
          yes.clear();
          no.clear();
          bool is_float = core::is_float(n.cond->dtype);
          for (int32_t k : sel)
            ((is_float ? c.f[k] != 0 : c.i[k] != 0) ? yes : no).push_back(k);
          if (!yes.empty()) {
            const Column& t = eval(n.then, yes);
            for (int32_t k : yes) {
              out.i[k] = t.i[k];
              out.f[k] = t.f[k];
            }
          }
          if (!no.empty()) {
            const Column& f = eval(n.otherwise, no);
            for (int32_t k : no) {
              out.i[k] = f.i[k];
              out.f[k] = f.f[k];
            }
          }
          scratch_used_ -= 2;
        }
      },
      e->node);
  return out;
}

void BlockEvaluator::load(const ExprNode& e, const core::Load& l, const Selection& sel,
                          Column& out) {
  const core::Tensor& t = *tensors_[l.tensor];
  const std::byte* base = t.bytes().data();
  if (auto a = affine_loads_.find(&e); a != affine_loads_.end()) {
    // Positions in range by construction: read as they are stepped through.
    switch (t.dtype()) {
    case DType::Float32:
      each_affine(a->second, sel, [&](int32_t k, int64_t f) { out.f[k] = read<float>(base, f); });
      return;
    case DType::Float64:
      each_affine(a->second, sel, [&](int32_t k, int64_t f) { out.f[k] = read<double>(base, f); });
      return;
    case DType::Int32:
      each_affine(a->second, sel, [&](int32_t k, int64_t f) { out.i[k] = read<int32_t>(base, f); });
      return;
    default:
      each_affine(a->second, sel, [&](int32_t k, int64_t f) {
        Scalar v = t.get(f);
        out.i[k] = v.i;
        out.f[k] = v.f;
      });
      return;
    }
  }
  // Flat positions are built in the output column's integer lane, then
  // replaced by the loaded values.
  std::vector<int64_t>& flat = out.i;
  each(sel, [&](int32_t k) { flat[k] = 0; });
  for (size_t d = 0; d < l.index.size(); ++d) {
    const Column& c = eval(l.index[d], sel);
    int64_t extent = t.shape()[d];
    bool outside = false;
    each(sel, [&](int32_t k) {
      outside |= c.i[k] < 0 || c.i[k] >= extent;
      flat[k] = flat[k] * extent + c.i[k];
    });
    if (outside)
      throw GiveUp{}; // replayed point by point: an error, or a skip
  }
  switch (t.dtype()) {
  case DType::Float32:
    each(sel, [&](int32_t k) { out.f[k] = read<float>(base, flat[k]); });
    return;
  case DType::Float64:
    each(sel, [&](int32_t k) { out.f[k] = read<double>(base, flat[k]); });
    return;
  case DType::Int32:
    each(sel, [&](int32_t k) { out.i[k] = read<int32_t>(base, flat[k]); });
    return;
  default:
    for (int32_t k : sel) {
      Scalar v = t.get(flat[k]);
      out.i[k] = v.i;
      out.f[k] = v.f;
    }
    return;
  }
}

void BlockEvaluator::logical(const ExprNode& e, const core::Apply& a, const Selection& sel,
                             Column& out) {
  auto truthy = [](const ExprNode& n, const Column& c, int32_t k) {
    return core::is_float(n.dtype) ? c.f[k] != 0 : c.i[k] != 0;
  };
  const Column& lhs = eval(a.args[0], sel);
  if (a.op == Op::Not) {
    each(sel, [&](int32_t k) { out.i[k] = !truthy(*a.args[0], lhs, k); });
    return;
  }
  // And evaluates its right operand where the left is true, Or where false.
  bool need = a.op == Op::And;
  if (scratch_used_ + 1 > scratch_.size())
    scratch_.resize(scratch_used_ + 1);
  Selection& rest = scratch_[scratch_used_++];
  rest.clear();
  for (int32_t k : sel) {
    bool l = truthy(*a.args[0], lhs, k);
    out.i[k] = l;
    if (l == need)
      rest.push_back(k);
  }
  if (!rest.empty()) {
    const Column& rhs = eval(a.args[1], rest);
    for (int32_t k : rest)
      out.i[k] = truthy(*a.args[1], rhs, k);
  }
  scratch_used_ -= 1;
  (void)e;
}

void BlockEvaluator::apply(const ExprNode& e, const core::Apply& a, const Selection& sel,
                           Column& out) {
  const Column& x = eval(a.args[0], sel);
  const Column* y = a.args.size() > 1 ? &eval(a.args[1], sel) : nullptr;
  DType t = a.args[0]->dtype;
  // Loops that perform exactly what core::apply() does for the commonest
  // operators; everything else goes through core::apply() itself.
  if (y && (t == DType::Float32 || t == DType::Float64)) {
    bool single = t == DType::Float32;
    auto run = [&](auto op) {
      if (single)
        each(sel, [&](int32_t k) {
          out.f[k] = static_cast<double>(static_cast<float>(op(x.f[k], y->f[k])));
        });
      else
        each(sel, [&](int32_t k) { out.f[k] = op(x.f[k], y->f[k]); });
    };
    switch (a.op) {
    case Op::Add:
      return run([](double p, double q) { return p + q; });
    case Op::Sub:
      return run([](double p, double q) { return p - q; });
    case Op::Mul:
      return run([](double p, double q) { return p * q; });
    case Op::Div:
      return run([](double p, double q) { return p / q; });
    default:
      break;
    }
  }
  if (y && core::is_integer(t) && a.overflow == core::Overflow::Trap) {
    // Index arithmetic: the exact result must fit; otherwise the replay
    // reports the overflow.
    int64_t lo = core::int_min(t), hi = core::int_max(t);
    auto run = [&](auto op) {
      bool overflow = false;
      each(sel, [&](int32_t k) {
        int64_t r = 0;
        overflow |= op(x.i[k], y->i[k], &r) || r < lo || r > hi;
        out.i[k] = r;
      });
      if (overflow)
        throw GiveUp{};
    };
    switch (a.op) {
    case Op::Add:
      return run([](int64_t p, int64_t q, int64_t* r) { return __builtin_add_overflow(p, q, r); });
    case Op::Sub:
      return run([](int64_t p, int64_t q, int64_t* r) { return __builtin_sub_overflow(p, q, r); });
    case Op::Mul:
      return run([](int64_t p, int64_t q, int64_t* r) { return __builtin_mul_overflow(p, q, r); });
    default:
      break;
    }
  }
  if (y && core::rule(a.op) == core::OpRule::Compare && a.op != Op::Same) {
    // The result is 0 or 1 in an integer dtype (or bool), as core::apply gives.
    with_comparison(a.op, [&](auto cmp) {
      if (core::is_float(t))
        each(sel, [&](int32_t k) { out.i[k] = cmp(x.f[k], y->f[k]); });
      else
        each(sel, [&](int32_t k) { out.i[k] = cmp(x.i[k], y->i[k]); });
    });
    return;
  }
  if (y && core::is_integer(t) && a.overflow == core::Overflow::Wrap) {
    switch (a.op) {
    case Op::Add:
      each(sel, [&](int32_t k) { out.i[k] = core::wrapping_add(t, x.i[k], y->i[k]); });
      return;
    case Op::Sub:
      each(sel, [&](int32_t k) { out.i[k] = core::wrapping_sub(t, x.i[k], y->i[k]); });
      return;
    case Op::Mul:
      each(sel, [&](int32_t k) { out.i[k] = core::wrapping_mul(t, x.i[k], y->i[k]); });
      return;
    default:
      break;
    }
  }
  if (y && a.op == Op::ExactDiv) {
    // Exact division of an index: no value where the quotient is fractional;
    // under Skip that point is not valid, otherwise the replay reports it.
    bool give_up = false;
    each(sel, [&](int32_t k) {
      __int128 p = x.i[k], q = y->i[k];
      if (q == 0) {
        give_up = true;
        return;
      }
      __int128 r = p / q;
      bool fits = r >= core::int_min(t) && r <= core::int_max(t);
      if (r * q != p) {
        give_up |= !skip_;
        inexact_[k] = 1;
      } else if (!fits) {
        give_up = true;
      }
      out.i[k] = fits ? static_cast<int64_t>(r) : 0;
    });
    if (give_up)
      throw GiveUp{};
    return;
  }
  if (y && core::is_integer(t) && (a.op == Op::Div || a.op == Op::Mod)) {
    // Truncating division and flooring modulo, as int_op() computes them,
    // unless a divisor is 0 or -1 with the minimum dividend: those points
    // take the general path below (an error, a wrap or a trap).
    int64_t lo = core::int_min(t);
    bool special = false;
    auto run = [&](auto word) { // the division in the dtype's own width: far faster than 64
      using W = decltype(word);
      each(sel, [&](int32_t k) {
        int64_t p = x.i[k], q = y->i[k];
        if (q == 0 || (q == -1 && p == lo)) {
          special = true;
          return;
        }
        W pw = static_cast<W>(p), qw = static_cast<W>(q);
        if (a.op == Op::Div) {
          out.i[k] = pw / qw;
        } else {
          W m = pw % qw;
          out.i[k] = m != 0 && ((m < 0) != (qw < 0)) ? m + qw : m;
        }
      });
    };
    if (core::int_max(t) > INT32_MAX) // int64 and uint32
      run(int64_t{});
    else
      run(int32_t{}); // every other dtype's values fit int32
    if (!special)
      return;
  }
  Scalar args[2];
  for (int32_t k : sel) {
    args[0] = scalar_at(t, x.i, x.f, k);
    if (y)
      args[1] = scalar_at(t, y->i, y->f, k);
    Scalar r = core::apply(a.op, args, e.dtype, a.overflow);
    out.i[k] = r.i;
    out.f[k] = r.f;
  }
}

} // namespace teval::interp::detail
