// One walk of a kernel's statements over any value domain: the oracle's
// exact evaluation and its rigorous bounds are this walk with different
// values. It visits exactly the points the interpreter visits (row-major
// over each statement's box, constraints, the skip policy, lazy selects)
// and reports the interpreter's errors; only what a value is and how a
// reduction combines differ.
//
// A domain D provides:
//   using Value;  using Acc;  (an accumulator of one output location)
//   Value constant(const core::Scalar&);
//   Value index_value(core::DType, int64_t);
//   std::optional<int64_t> index(const Value&);   nothing: not one integer
//   Truth truth(const Value&);
//   Value apply(const core::ExprNode&, const core::Apply&, const Value* args, bool fused);
//   Value cast(const Value&, core::DType);
//   Value join(const Value&, const Value&);       both values possible
//   Value unknown(core::DType);                   anything possible
//   Acc accumulator(const core::Statement&, core::DType, const Value& fill);
//   void add(Acc&, const Value&);  Value finish(const Acc&);
//   static constexpr bool kUncertain;  true when truth() may be Unknown
#pragma once

#include "core/error.h"
#include "core/format.h"
#include "core/interrupt.h"
#include "core/kernel.h"
#include "core/scalar_ops.h"
#include "core/tensor.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace teval::oracle {

/// A condition's value over every legal evaluation.
enum class Truth : uint8_t { False, True, Unknown };

/// Thrown inside a point when a domain cannot tell what happens there (an
/// index or a validity that depends on rounding): the location it writes
/// may then hold anything.
struct Uncertain {};

/// A value one output element was computed from: the tensor, the element
/// and its value.
template <class Value> struct Read {
  int tensor;
  std::vector<int64_t> index;
  Value value;
};

/// The walk itself; see the file comment for the domain's interface.
template <class D> class Walk {
public:
  using Value = typename D::Value;
  using Values = std::vector<Value>;

  /// Records the reads of the points that write element \p flat of tensor
  /// \p tensor (each element once, the first \p limit of them).
  void trace(int tensor, int64_t flat, size_t limit) {
    trace_tensor_ = tensor;
    trace_flat_ = flat;
    trace_limit_ = limit;
  }
  /// The reads trace() asked for, and how many distinct ones there were.
  const std::vector<Read<Value>>& reads() const { return reads_; }
  int64_t read_count() const { return read_count_; }

  Walk(const core::Kernel& k, D& domain)
      : k_(k), d_(domain), inputs_(k.tensors.size()), values_(k.tensors.size()),
        product_added_(k.tensors.size(), false) {
    // Tensors that are products another statement adds (an operand of + or
    // -, a term of a sum): a compiler that fuses the two ops (an MLIR
    // graph's multiply and add, one statement inlined into another) adds
    // the product unrounded, so with fma the product's exact value is legal
    // for them too. Not outputs: those are stored rounded.
    std::vector<bool> added(k.tensors.size(), false);
    auto mark = [&](const core::Expr& e) {
      if (const auto* load = std::get_if<core::Load>(&e->node))
        added[static_cast<size_t>(load->tensor)] = true;
    };
    for (const core::Statement& s : k.statements) {
      if (s.aggregation == core::Aggregation::Sum)
        mark(s.value);
      core::for_each_node(s.value, [&](const core::Expr& e) {
        const auto* a = std::get_if<core::Apply>(&e->node);
        if (a && (a->op == core::Op::Add || a->op == core::Op::Sub))
          for (const core::Expr& arg : a->args)
            mark(arg);
      });
    }
    for (const core::Statement& s : k.statements) {
      const auto* root = std::get_if<core::Apply>(&s.value->node);
      const auto t = static_cast<size_t>(s.target);
      product_added_[t] =
          root && root->op == core::Op::Mul && added[t] &&
          s.aggregation == core::Aggregation::Assign &&
          std::find(k.outputs.begin(), k.outputs.end(), s.target) == k.outputs.end();
    }
  }

  /// Gives tensor \p tensor the values \p values: the statement that
  /// computes it is not walked (its values were computed otherwise).
  void provide(int tensor, Values values) {
    values_[static_cast<size_t>(tensor)] = std::move(values);
    provided_.push_back(tensor);
  }

  /// Evaluates every statement; \p inputs holds the input tensors in
  /// declaration order (each checked against its declaration: Error). They
  /// are read in place: an input element becomes a value when it is loaded.
  /// Returns the outputs' values.
  std::vector<Values> run(std::span<const core::Tensor> inputs) {
    size_t next = 0;
    for (size_t i = 0; i < k_.tensors.size(); ++i) {
      const core::TensorDecl& d = k_.tensors[i];
      if (d.role != core::TensorRole::Input)
        continue;
      TEVAL_ASSERT(next < inputs.size(), "too few inputs");
      core::check_input(d.name, d.dtype, d.shape, d.span, inputs[next]);
      inputs_[i] = &inputs[next++];
    }
    for (const core::Statement& s : k_.statements) {
      if (std::find(provided_.begin(), provided_.end(), s.target) != provided_.end())
        continue;
      auto writers = std::count_if(k_.statements.begin(), k_.statements.end(),
                                   [&](const core::Statement& x) { return x.target == s.target; });
      if (s.target != trace_tensor_ || writers != 1) {
        statement(s);
        continue;
      }
      // Tracing: only the points that write the traced element, and
      // nothing after them (the values are not wanted, only the reads).
      std::optional<core::Statement> traced = only_points_writing(s, trace_flat_);
      statement(traced ? *traced : s);
      return {};
    }
    std::vector<Values> out;
    for (int o : k_.outputs)
      out.push_back(values_of(o));
    return out;
  }

private:
  // \p s restricted to the points that write element \p flat of its
  // target, when each output index is a variable of its own; else nothing.
  std::optional<core::Statement> only_points_writing(const core::Statement& s, int64_t flat) {
    const core::Shape& shape = k_.tensors[s.target].shape;
    core::Statement r = s;
    std::vector<int64_t> idx(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
      idx[d] = flat % shape[d];
      flat /= shape[d];
    }
    std::vector<char> seen(s.vars.size(), 0);
    for (size_t d = 0; d < s.out_index.size(); ++d) {
      const auto* v = std::get_if<core::VarRef>(&s.out_index[d]->node);
      if (!v || seen[v->var])
        return std::nullopt;
      seen[v->var] = 1;
      core::IndexVar& var = r.vars[v->var];
      if (idx[d] < var.begin || idx[d] >= var.end)
        var.end = var.begin; // no point writes it
      else
        var.begin = idx[d], var.end = idx[d] + 1;
    }
    return r;
  }

  void statement(const core::Statement& s) {
    const core::TensorDecl& decl = k_.tensors[s.target];
    int64_t numel = 1;
    for (int64_t extent : decl.shape)
      numel *= extent;
    Values target = s.init_from ? values_of(*s.init_from)
                                : Values(static_cast<size_t>(numel), d_.constant(s.init));
    s_ = &s;
    affine_.clear();
    slots_.fill({});
    strides_ = core::strides(decl.shape);
    bool assign = s.aggregation == core::Aggregation::Assign;
    std::vector<typename D::Acc> accs;
    if (!assign)
      for (int64_t i = 0; i < numel; ++i)
        accs.push_back(d_.accumulator(s, decl.dtype, target[i]));
    std::vector<char> written(assign ? static_cast<size_t>(numel) : 0, 0);
    bool whole_unknown = false;
    point_.assign(s.vars.size(), 0);
    bool empty = false;
    for (size_t i = 0; i < s.vars.size(); ++i) {
      point_[i] = s.vars[i].begin;
      empty |= s.vars[i].begin >= s.vars[i].end;
    }
    // The value may be fused into the fold of a sum, or into the addition
    // of a later statement (the constructor's product_added_).
    const bool fusable =
        s.aggregation == core::Aggregation::Sum || product_added_[static_cast<size_t>(s.target)];
    for (int64_t number = 0; !empty; ++number) {
      if ((number & 1023) == 0)
        core::poll_interrupt();
      std::optional<int64_t> flat;
      try {
        flat = location(s, decl);
        tracing_ = flat && s.target == trace_tensor_ && *flat == trace_flat_;
        if (flat) {
          Value v = eval(s.value, fusable);
          if (assign)
            assign_value(s, target, written, *flat, v);
          else
            d_.add(accs[*flat], v);
        }
      } catch (const core::Inexact& f) {
        if (s.out_of_range != core::OutOfRange::Skip)
          throw core::Error(core::ErrorKind::Range, fault_span_,
                            "fractional index: " + f.message + " (at " + point_text() + ")");
      } catch (const Uncertain&) {
        if (!located_)
          whole_unknown = true;
        else if (assign)
          target[*located_] = d_.unknown(decl.dtype);
        else
          d_.add(accs[*located_], d_.unknown(decl.dtype));
      }
      if (!advance())
        break;
    }
    if (!assign)
      for (int64_t i = 0; i < numel; ++i)
        target[i] = d_.finish(accs[i]);
    if (whole_unknown)
      for (Value& v : target)
        v = d_.unknown(decl.dtype);
    values_[s.target] = std::move(target);
  }

  // The flat location the current point writes, or nothing when the point
  // is not valid. Sets located_ once the location is known.
  std::optional<int64_t> location(const core::Statement& s, const core::TensorDecl& decl) {
    located_.reset();
    bool skip = s.out_of_range == core::OutOfRange::Skip;
    for (const core::Constraint& c : s.constraints) {
      int64_t v = index_of(c.expr);
      if (v < 0 || v >= c.bound)
        return std::nullopt;
    }
    std::vector<int64_t> idx(s.out_index.size());
    for (size_t i = 0; i < idx.size(); ++i)
      idx[i] = index_of(s.out_index[i]);
    int64_t flat = 0;
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < 0 || idx[i] >= decl.shape[i]) {
        if (skip)
          return std::nullopt;
        throw core::Error(
            core::ErrorKind::Range, s.out_index[i]->span,
            core::write_out_of_range(decl.name, core::format_index(idx), decl.shape, point_text()));
      }
      flat += idx[i] * strides_[i];
    }
    located_ = flat;
    if (skip && !valid(s.value))
      return std::nullopt;
    return flat;
  }

  void assign_value(const core::Statement& s, Values& target, std::vector<char>& written,
                    int64_t flat, const Value& v) {
    if (!written[flat]) {
      written[flat] = 1;
      target[flat] = v;
      return;
    }
    // The interpreter has already reported conflicting writes of the
    // sequential evaluation; here both values are possible.
    if (s.conflict == core::WriteConflict::Error)
      throw core::Error(core::ErrorKind::Range, s.span,
                        "two writes to " + k_.tensors[s.target].name + " (at " + point_text() +
                            ")");
    target[flat] = d_.join(target[flat], v);
  }

  bool advance() { return core::next_point(s_->vars, point_); }

  std::string point_text() const { return core::format_point(s_->vars, point_); }

  int64_t index_of(const core::Expr& e) {
    if (const Affine* a = affine_of(e))
      return value_of(*a);
    std::optional<int64_t> v = d_.index(eval(e, false));
    if (!v)
      throw Uncertain{};
    return *v;
  }

  // Under OutOfRange::Skip: every access anywhere in e is in range.
  bool valid(const core::Expr& e) {
    bool ok = true;
    core::for_each_node(e, [&](const core::Expr& n) {
      const auto* load = std::get_if<core::Load>(&n->node);
      if (!ok || !load)
        return;
      const core::Shape& shape = k_.tensors[load->tensor].shape;
      for (size_t d = 0; d < load->index.size(); ++d) {
        int64_t v = index_of(load->index[d]);
        if (v < 0 || v >= shape[d])
          ok = false;
      }
    });
    return ok;
  }

  // \p fusable: the value may be fused into an enclosing addition (a term
  // of a sum, an operand of + or -).
  Value eval(const core::Expr& e, bool fusable) {
    try {
      return std::visit([&](const auto& n) { return node(*e, n, fusable); }, e->node);
    } catch (const core::Fault& f) {
      if constexpr (D::kUncertain)
        throw Uncertain{};
      throw core::Error(core::ErrorKind::Arithmetic, e->span,
                        f.message + " (at " + point_text() + ")");
    }
  }

  Value node(const core::ExprNode&, const core::Const& c, bool) { return d_.constant(c.value); }
  Value node(const core::ExprNode& e, const core::VarRef& v, bool) {
    return d_.index_value(e.dtype, point_[v.var]);
  }
  Value node(const core::ExprNode& e, const core::Load& l, bool) {
    const core::Shape& shape = k_.tensors[l.tensor].shape;
    // Most tensors have few dimensions: their index needs no allocation.
    size_t rank = l.index.size();
    int64_t small[8];
    std::vector<int64_t> large(rank > 8 ? rank : 0);
    int64_t* idx = rank > 8 ? large.data() : small;
    for (size_t d = 0; d < rank; ++d) {
      fault_span_ = l.index[d]->span;
      idx[d] = index_of(l.index[d]);
    }
    int64_t flat = 0;
    for (size_t d = 0; d < rank; ++d) {
      if (idx[d] < 0 || idx[d] >= shape[d]) {
        if constexpr (D::kUncertain)
          throw Uncertain{};
        throw core::Error(core::ErrorKind::Range, e.span,
                          core::read_out_of_range(k_.tensors[l.tensor].name,
                                                  core::format_index({idx, idx + rank}), shape,
                                                  point_text()));
      }
      flat = flat * shape[d] + idx[d];
    }
    Value v = inputs_[l.tensor] ? d_.constant(inputs_[l.tensor]->get(flat))
                                : values_[l.tensor][static_cast<size_t>(flat)];
    if (tracing_)
      record(l.tensor, {idx, idx + rank}, v);
    return v;
  }
  Value node(const core::ExprNode& e, const core::Apply& a, bool fusable) {
    switch (a.op) {
    case core::Op::And:
    case core::Op::Or: {
      bool is_and = a.op == core::Op::And;
      Truth first = d_.truth(eval(a.args[0], false));
      if (first == (is_and ? Truth::False : Truth::True))
        return d_.constant(core::constant(e.dtype, is_and ? 0 : 1));
      Truth second = d_.truth(eval(a.args[1], false));
      if (first == Truth::Unknown && second == (is_and ? Truth::False : Truth::True))
        return d_.constant(core::constant(e.dtype, is_and ? 0 : 1));
      if (first == Truth::Unknown || second == Truth::Unknown)
        return d_.join(d_.constant(core::constant(e.dtype, 0)),
                       d_.constant(core::constant(e.dtype, 1)));
      return d_.constant(core::constant(e.dtype, second == Truth::True));
    }
    case core::Op::Not: {
      Truth t = d_.truth(eval(a.args[0], false));
      if (t == Truth::Unknown)
        return d_.join(d_.constant(core::constant(e.dtype, 0)),
                       d_.constant(core::constant(e.dtype, 1)));
      return d_.constant(core::constant(e.dtype, t == Truth::False));
    }
    default:
      break;
    }
    if (core::rule(a.op) == core::OpRule::Compare && a.op != core::Op::Same) {
      const Affine* x = affine_of(a.args[0]);
      const Affine* y = x ? affine_of(a.args[1]) : nullptr;
      if (y)
        return d_.constant(
            core::constant(e.dtype, core::with_comparison(a.op, [&](auto cmp) -> bool {
                             return cmp(value_of(*x), value_of(*y));
                           })));
    }
    // A product feeding + or - may be fused into it, and so may one negated
    // on the way (-(a·b) + c is fma(-a, b, c): the negation is exact).
    bool additive =
        a.op == core::Op::Add || a.op == core::Op::Sub || (a.op == core::Op::Neg && fusable);
    Value args[2];
    for (size_t i = 0; i < a.args.size(); ++i)
      args[i] = eval(a.args[i], additive);
    fault_span_ = e.span;
    return d_.apply(e, a, args, fusable && a.op == core::Op::Mul);
  }
  Value node(const core::ExprNode& e, const core::Cast& c, bool) {
    Value v = eval(c.value, false);
    fault_span_ = e.span;
    return d_.cast(v, e.dtype);
  }
  Value node(const core::ExprNode&, const core::Select& s, bool fusable) {
    switch (d_.truth(eval(s.cond, false))) {
    case Truth::True:
      return eval(s.then, fusable);
    case Truth::False:
      return eval(s.otherwise, fusable);
    case Truth::Unknown:
      break;
    }
    return d_.join(eval(s.then, fusable), eval(s.otherwise, fusable));
  }

  // An integer expression of the statement's index variables alone, with no
  // node that can leave its dtype anywhere in the statement's box: its value
  // is constant + Σ coeff·var, computed without going through the domain.
  struct Affine {
    int64_t constant = 0;
    std::vector<std::pair<int, int64_t>> terms; // (variable, coefficient)
  };

  int64_t value_of(const Affine& a) const {
    int64_t v = a.constant;
    for (const auto& [var, coeff] : a.terms)
      v += coeff * point_[var];
    return v;
  }

  const Affine* affine_of(const core::Expr& e) {
    // A direct-mapped cache in front of the map: the same few nodes are
    // asked for at every point.
    Slot& slot = slots_[(reinterpret_cast<uintptr_t>(e.get()) >> 4) % slots_.size()];
    if (slot.node == e.get())
      return slot.affine;
    auto [it, fresh] = affine_.try_emplace(e.get());
    if (fresh)
      it->second = build_affine(e);
    // Elements of an unordered_map keep their address when it grows.
    slot = {e.get(), it->second ? &*it->second : nullptr};
    return slot.affine;
  }

  std::optional<Affine> build_affine(const core::Expr& e) {
    if (!core::is_integer(e->dtype))
      return std::nullopt;
    std::optional<Affine> r = std::visit(
        [&](const auto& n) -> std::optional<Affine> {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, core::Const>) {
            return Affine{n.value.i, {}};
          } else if constexpr (std::is_same_v<T, core::VarRef>) {
            return Affine{0, {{n.var, 1}}};
          } else if constexpr (std::is_same_v<T, core::Cast>) {
            if (!core::is_integer(n.value->dtype))
              return std::nullopt;
            const Affine* a = affine_of(n.value);
            return a ? std::optional(*a) : std::nullopt;
          } else if constexpr (std::is_same_v<T, core::Apply>) {
            return affine_apply(n);
          } else {
            return std::nullopt;
          }
        },
        e->node);
    // Every value in the box must fit the node's dtype: then no step wraps
    // or traps, and the exact value is the IR's.
    if (!r)
      return std::nullopt;
    __int128 lo = r->constant, hi = r->constant;
    __int128 magnitude = r->constant < 0 ? -__int128(r->constant) : r->constant;
    for (const auto& [var, coeff] : r->terms) {
      const core::IndexVar& v = s_->vars[var];
      __int128 a = __int128(coeff) * v.begin, b = __int128(coeff) * (v.end - 1);
      lo += std::min(a, b);
      hi += std::max(a, b);
      magnitude += std::max(a < 0 ? -a : a, b < 0 ? -b : b);
    }
    // value_of() sums in int64 in any order: every partial sum must fit.
    if (lo < core::int_min(e->dtype) || hi > core::int_max(e->dtype) ||
        magnitude >= (__int128(1) << 62))
      return std::nullopt;
    return r;
  }

  std::optional<Affine> affine_apply(const core::Apply& n) {
    auto arg = [&](size_t i) { return affine_of(n.args[i]); };
    auto scaled = [](Affine a, int64_t k) -> std::optional<Affine> {
      if (k > (int64_t{1} << 31) || k < -(int64_t{1} << 31) || a.constant > (int64_t{1} << 31) ||
          a.constant < -(int64_t{1} << 31))
        return std::nullopt;
      a.constant *= k;
      for (auto& t : a.terms) {
        if (t.second > (int64_t{1} << 31) || t.second < -(int64_t{1} << 31))
          return std::nullopt;
        t.second *= k;
      }
      return a;
    };
    switch (n.op) {
    case core::Op::Neg:
      if (const Affine* a = arg(0))
        return scaled(*a, -1);
      return std::nullopt;
    case core::Op::Add:
    case core::Op::Sub: {
      const Affine* a = arg(0);
      const Affine* b = a ? arg(1) : nullptr;
      if (!b)
        return std::nullopt;
      std::optional<Affine> nb = n.op == core::Op::Sub ? scaled(*b, -1) : std::optional(*b);
      if (!nb)
        return std::nullopt;
      Affine r = *a;
      r.constant += nb->constant;
      r.terms.insert(r.terms.end(), nb->terms.begin(), nb->terms.end());
      return r;
    }
    case core::Op::Mul: {
      const Affine* a = arg(0);
      const Affine* b = a ? arg(1) : nullptr;
      if (!b)
        return std::nullopt;
      if (a->terms.empty())
        return scaled(*b, a->constant);
      if (b->terms.empty())
        return scaled(*a, b->constant);
      return std::nullopt;
    }
    default:
      return std::nullopt;
    }
  }

  // Every value of tensor \p id, an input's converted.
  Values values_of(int id) const {
    const core::Tensor* t = inputs_[id];
    if (!t)
      return values_[id];
    Values v(static_cast<size_t>(t->numel()));
    for (int64_t i = 0; i < t->numel(); ++i)
      v[static_cast<size_t>(i)] = d_.constant(t->get(i));
    return v;
  }

  void record(int tensor, const std::vector<int64_t>& idx, const Value& v) {
    // Counted once each, up to a million distinct elements.
    if (seen_.size() >= (size_t{1} << 20) || !seen_.emplace(tensor, idx).second)
      return;
    ++read_count_;
    if (reads_.size() < trace_limit_)
      reads_.push_back({tensor, idx, v});
  }

  const core::Kernel& k_;
  D& d_;
  int trace_tensor_ = -1;
  int64_t trace_flat_ = -1;
  size_t trace_limit_ = 0;
  bool tracing_ = false;
  std::vector<Read<Value>> reads_;
  std::set<std::pair<int, std::vector<int64_t>>> seen_;
  int64_t read_count_ = 0;
  std::vector<const core::Tensor*> inputs_; // by tensor id; null for the others
  std::vector<Values> values_;
  std::vector<bool> product_added_; // by tensor id (the constructor's comment)
  std::vector<int> provided_;
  const core::Statement* s_ = nullptr;
  std::vector<int64_t> strides_;
  std::vector<int64_t> point_;
  std::optional<int64_t> located_;
  std::unordered_map<const core::ExprNode*, std::optional<Affine>> affine_;
  struct Slot {
    const core::ExprNode* node = nullptr;
    const Affine* affine = nullptr;
  };
  std::array<Slot, 256> slots_{};
  core::Span fault_span_;
};

} // namespace teval::oracle
