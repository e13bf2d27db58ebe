// Lowering of the Kernel IR to the LoopNest IR (see lower.h).
#include "core/lower.h"

#include "core/fault.h"
#include "core/format.h"

#include <algorithm>
#include <optional>

namespace teval::core {

namespace {

// Builders for the guard expressions; every result is bool.
Expr cmp(Op op, Expr a, Expr b) {
  Span span = a->span;
  return make_apply(op, {std::move(a), std::move(b)}, span, DType::Bool);
}
Expr zero_of(DType t) {
  return make_const(Scalar::of_int(t, 0));
}
// a && b, where a null operand means true.
Expr both(Expr a, Expr b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return make_apply(Op::And, {std::move(a), std::move(b)}, {}, DType::Bool);
}
Expr as_int64(const Expr& e) {
  return e->dtype == DType::Int64 ? e : make_cast(e, DType::Int64, e->span);
}

// The interval an integer expression takes over the loop box, when it is a
// sum of variables and constants times constants (exact in 128 bits).
using Interval = std::pair<__int128, __int128>;

class Lowering {
public:
  explicit Lowering(const Kernel& k) : k_(k) {}

  LoopNest run() {
    std::vector<int> temps;
    for (const TensorDecl& t : k_.tensors) {
      BufferKind kind = t.role == TensorRole::Input    ? BufferKind::Input
                        : t.role == TensorRole::Output ? BufferKind::Output
                                                       : BufferKind::Temp;
      int id = n_.add_buffer({t.name, t.dtype, t.shape, kind, t.span});
      if (kind == BufferKind::Input)
        n_.inputs.push_back(id);
      if (kind == BufferKind::Temp)
        temps.push_back(id);
    }
    n_.outputs = k_.outputs;
    std::vector<Stmt> root;
    for (int t : temps)
      root.push_back(make_allocate(t));
    std::vector<bool> written(k_.tensors.size(), false);
    for (const Statement& s : k_.statements) {
      TEVAL_ASSERT(!written[s.target], "a tensor written by two statements");
      written[s.target] = true;
      root.push_back(statement(s));
    }
    for (int t : temps)
      root.push_back(make_free(t));
    n_.root = make_block(std::move(root));
    return std::move(n_);
  }

private:
  // A perfect nest over every element of \p shape with fresh loop
  // variables; \p body builds the innermost statement from the indices.
  Stmt over_elements(const Shape& shape, const std::function<Stmt(std::vector<Expr>)>& body) {
    std::vector<int> vars;
    std::vector<Expr> index;
    for (size_t d = 0; d < shape.size(); ++d) {
      vars.push_back(n_.add_var("i" + std::to_string(d), DType::Int64));
      index.push_back(make_var(vars.back(), DType::Int64));
    }
    Stmt s = body(index);
    for (size_t d = shape.size(); d-- > 0;)
      s = make_for(vars[d], int64(0), int64(shape[d]), s);
    return s;
  }

  Stmt statement(const Statement& s) {
    s_ = &s;
    const TensorDecl& target = k_.tensors[s.target];
    vars_.clear();
    for (const IndexVar& v : s.vars)
      vars_.push_back(n_.add_var(v.name, v.dtype, true));

    std::vector<Stmt> out;
    out.push_back(over_elements(target.shape, [&](std::vector<Expr> idx) {
      Scalar init = planted(2) ? constant(target.dtype, 0) : s.init; // fault: wrong init
      Expr fill = s.init_from ? make_load(*s.init_from, target.dtype, idx) : make_const(init);
      return make_store(s.target, std::move(idx), fill);
    }));
    writer_ = -1;
    bool first_value = s.start == Start::FirstValue && !planted(13); // fault 13: from the fill
    if (first_value || (s.aggregation == Aggregation::Assign && !injective(s))) {
      writer_ = n_.add_buffer(
          {target.name + "_writer", DType::Int64, target.shape, BufferKind::Temp, target.span});
      out.push_back(make_allocate(writer_));
      out.push_back(over_elements(target.shape, [&](std::vector<Expr> idx) {
        return make_store(writer_, std::move(idx), int64(-1));
      }));
    }
    Stmt body = point();
    for (size_t i = s.vars.size(); i-- > 0;) {
      int64_t end = s.vars[i].end;
      if (planted(1) && i + 1 == s.vars.size()) // fault: off-by-one loop bound
        end -= 1;
      body = make_for(vars_[i], int64(s.vars[i].begin), int64(end), body);
    }
    out.push_back(body);
    if (writer_ >= 0)
      out.push_back(make_free(writer_));
    return make_block(std::move(out));
  }

  // Kernel variables become this statement's loop variables.
  Expr remap(const Expr& e) {
    return substitute(e, [&](const ExprNode& n, const VarRef& v) {
      return make_var(vars_[v.var], n.dtype, n.span);
    });
  }

  // The statement for one point of the box.
  Stmt point() {
    const Statement& s = *s_;
    bool skip = s.out_of_range == OutOfRange::Skip;
    Expr guard;
    for (const Constraint& c : s.constraints) {
      Expr e = remap(c.expr);
      if (skip)
        guard = both(guard, ok(e));
      // Fault 24 lets expr == bound through.
      guard = both(guard, in_range(e, c.bound + (planted(24) ? 1 : 0)));
    }
    std::vector<Expr> out;
    for (const Expr& o : s.out_index)
      out.push_back(remap(o));
    Expr value = remap(s.value);
    if (skip) {
      if (!planted(12)) // fault: reads no longer make a point invalid
        guard = both(guard, valid(value));
      const Shape& shape = k_.tensors[s.target].shape;
      for (size_t d = 0; d < out.size(); ++d) // fault 26: only the upper bound
        guard = both(guard, both(ok(out[d]), planted(26) ? below(out[d], shape[d])
                                                         : in_range(out[d], shape[d])));
      if (exact_division_outside_loads(value))
        guard = both(guard, ok(value));
    }
    Stmt update = store(out, value);
    if (!guard)
      return update;
    // A guard over a single store becomes the store's own guard.
    if (const auto* st = std::get_if<Store>(&update->node); st && !st->guard)
      return make_store(st->buffer, st->index, st->value, guard);
    return make_cond(guard, update);
  }

  // The store of \p value into target[out], checked as the interpreter
  // checks it.
  Stmt store(const std::vector<Expr>& out, const Expr& value) {
    const Statement& s = *s_;
    bool lets_first =
        writer_ >= 0 || s.aggregation == Aggregation::All || s.aggregation == Aggregation::Any;
    if (!lets_first || s.out_of_range == OutOfRange::Skip)
      return update(out, value); // the store's own check comes first, or the guard's
    // The value (and the writer buffer) are read before the store: check the
    // output index first, as the interpreter does.
    const Shape& shape = k_.tensors[s.target].shape;
    std::vector<int> ids;
    std::vector<Expr> at;
    for (size_t d = 0; d < out.size(); ++d) {
      ids.push_back(n_.add_var("o" + std::to_string(d), out[d]->dtype));
      at.push_back(make_var(ids.back(), out[d]->dtype));
    }
    std::vector<Stmt> body;
    for (size_t d = 0; d < out.size(); ++d)
      if (in_range(out[d], shape[d])) {
        Expr inside = both(cmp(Op::Ge, at[d], zero_of(at[d]->dtype)),
                           cmp(Op::Lt, as_int64(at[d]), int64(shape[d])));
        body.push_back(make_cond(make_apply(Op::Not, {inside}, {}, DType::Bool),
                                 write_error(at, s.out_index[d]->span)));
      }
    body.push_back(update(at, value));
    Stmt result = make_block(std::move(body));
    for (size_t d = out.size(); d-- > 0;)
      result = make_let(ids[d], out[d], result);
    return result;
  }

  // The interpreter's error for a write outside the target.
  Stmt write_error(const std::vector<Expr>& at, Span span) {
    const Statement& s = *s_;
    std::vector<Expr> args = at;
    std::string index, point = s.vars.empty() ? "the only point" : "";
    for (size_t d = 0; d < at.size(); ++d)
      index += d ? ", {}" : "{}";
    for (size_t i = 0; i < s.vars.size(); ++i) {
      point += (i ? ", " : "") + s.vars[i].name + "={}";
      args.push_back(make_var(vars_[i], s.vars[i].dtype));
    }
    return make_raise(
        ErrorKind::Range, span,
        write_out_of_range(k_.tensors[s.target].name, index, k_.tensors[s.target].shape, point),
        std::move(args));
  }

  // The store of \p value into target[out] under the statement's
  // aggregation, start and conflict policies; \p out is in range.
  Stmt update(const std::vector<Expr>& out, const Expr& value) {
    const Statement& s = *s_;
    const TensorDecl& target = k_.tensors[s.target];
    if (writer_ < 0 && s.aggregation == Aggregation::Assign)
      return make_store(s.target, out, value);
    Expr current = make_load(s.target, target.dtype, out);
    if (writer_ < 0) {
      if (s.aggregation != Aggregation::All && s.aggregation != Aggregation::Any)
        return make_store(s.target, out, combine(current, value));
      // All and Any are lazy in their second operand; the value is not.
      int v = n_.add_var("value", value->dtype);
      Expr ref = make_var(v, value->dtype);
      return make_let(v, value, make_store(s.target, out, combine(current, ref)));
    }
    int v = n_.add_var("value", value->dtype);
    int w = n_.add_var("writer", DType::Int64);
    Expr ref = make_var(v, value->dtype);
    Expr first_writer = make_var(w, DType::Int64);
    Stmt first = make_block({make_store(s.target, out, ref), make_store(writer_, out, number())});
    Stmt again;
    if (s.aggregation != Aggregation::Assign) {
      again = make_store(s.target, out, combine(current, ref));
    } else if (planted(25)) { // fault 25: a second write with `=` is not an error; it wins
      again = make_store(s.target, out, ref);
    } else {
      again = conflict(out, current, ref, first_writer);
      if (s.conflict == WriteConflict::ErrorIfDifferent)
        again =
            make_cond(make_apply(Op::Not, {cmp(Op::Same, current, ref)}, {}, DType::Bool), again);
    }
    Stmt update = make_cond(cmp(Op::Lt, first_writer, int64(0)), first, again);
    return make_let(v, value, make_let(w, make_load(writer_, DType::Int64, out), update));
  }

  // The number of the current point in row-major order of the box.
  Expr number() {
    const Statement& s = *s_;
    Expr n;
    for (size_t i = 0; i < s.vars.size(); ++i) {
      Expr offset = as_int64(make_var(vars_[i], s.vars[i].dtype));
      if (s.vars[i].begin != 0)
        offset = make_apply(Op::Sub, {offset, int64(s.vars[i].begin)});
      int64_t extent = s.vars[i].end - s.vars[i].begin;
      n = n ? make_apply(Op::Add, {make_apply(Op::Mul, {n, int64(extent)}), offset}) : offset;
    }
    return n ? n : int64(0);
  }

  // The error for a second write, with the interpreter's message.
  Stmt conflict(const std::vector<Expr>& out, const Expr& old, const Expr& value,
                const Expr& first_writer) {
    const Statement& s = *s_;
    std::vector<Expr> args = out;
    std::string msg = "two writes to " + k_.tensors[s.target].name + "[";
    for (size_t d = 0; d < out.size(); ++d)
      msg += d ? ", {}" : "{}";
    msg += "]";
    if (s.conflict == WriteConflict::ErrorIfDifferent) {
      msg += " with different values {} and {}";
      args.push_back(old);
      args.push_back(value);
    }
    auto point_text = [&](bool first) {
      if (s.vars.empty())
        return std::string("the only point");
      std::string text;
      int64_t stride = 1;
      std::vector<Expr> decoded(s.vars.size());
      for (size_t i = s.vars.size(); i-- > 0;) {
        int64_t extent = s.vars[i].end - s.vars[i].begin;
        decoded[i] = make_apply(
            Op::Add, {int64(s.vars[i].begin),
                      make_apply(Op::Mod, {make_apply(Op::Div, {first_writer, int64(stride)}),
                                           int64(extent)})});
        stride *= extent;
      }
      for (size_t i = 0; i < s.vars.size(); ++i) {
        text += (i ? ", " : "") + s.vars[i].name + "={}";
        args.push_back(first ? decoded[i] : make_var(vars_[i], s.vars[i].dtype));
      }
      return text;
    };
    msg += ": first at " + point_text(true);
    msg += ", again at " + point_text(false);
    return make_raise(ErrorKind::Range, s.span, msg, std::move(args));
  }

  // acc combined with value under the statement's aggregation, as the
  // interpreter's combine(). The value comes first in && and ||, whose
  // second operand is evaluated only when the first does not decide: the
  // interpreter evaluates the value at every point, so an error in it is
  // raised whatever the accumulator holds (`acc && value` skipped the value
  // once a bool min reached false, and with it an out-of-range read).
  Expr combine(const Expr& acc, const Expr& value) {
    DType t = acc->dtype;
    auto logical = [&](Op op) {
      if (is_float(t))
        return make_cast(make_apply(op, {value, acc}, {}, DType::Bool), t);
      return make_apply(op, {value, acc}, {}, t);
    };
    switch (s_->aggregation) {
    case Aggregation::Sum:
      return is_bool(t) ? logical(Op::Or) : make_apply(Op::Add, {acc, value});
    case Aggregation::Product:
      return is_bool(t) ? logical(Op::And) : make_apply(Op::Mul, {acc, value});
    case Aggregation::Max:
      return is_bool(t) ? logical(Op::Or) : make_apply(Op::Max, {acc, value});
    case Aggregation::Min:
      return is_bool(t) ? logical(Op::And) : make_apply(Op::Min, {acc, value});
    case Aggregation::All:
      return logical(Op::And);
    case Aggregation::Any:
      return logical(Op::Or);
    case Aggregation::Assign:
      break;
    }
    TEVAL_UNREACHABLE("combine of an assignment");
  }

  // The interval of \p e over the box, when it is affine in the variables.
  std::optional<Interval> interval(const Expr& e) const {
    if (const auto* c = std::get_if<Const>(&e->node))
      return is_float(c->value.dtype) ? std::nullopt
                                      : std::optional<Interval>({c->value.i, c->value.i});
    if (const auto* v = std::get_if<VarRef>(&e->node)) {
      for (size_t i = 0; i < vars_.size(); ++i)
        if (vars_[i] == v->var)
          return Interval{s_->vars[i].begin, s_->vars[i].end - 1};
      return std::nullopt;
    }
    const auto* a = std::get_if<Apply>(&e->node);
    if (!a || is_float(e->dtype))
      return std::nullopt;
    if (a->op == Op::Neg) {
      auto x = interval(a->args[0]);
      return x ? std::optional<Interval>({-x->second, -x->first}) : std::nullopt;
    }
    if (a->op != Op::Add && a->op != Op::Sub && a->op != Op::Mul)
      return std::nullopt;
    auto x = interval(a->args[0]), y = interval(a->args[1]);
    if (!x || !y)
      return std::nullopt;
    Interval r;
    if (a->op == Op::Add)
      r = {x->first + y->first, x->second + y->second};
    else if (a->op == Op::Sub)
      r = {x->first - y->second, x->second - y->first};
    else {
      __int128 p[] = {x->first * y->first, x->first * y->second, x->second * y->first,
                      x->second * y->second};
      r = {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
    }
    // Only when no intermediate can wrap is the interval the value's.
    if (r.first < int_min(e->dtype) || r.second > int_max(e->dtype))
      return std::nullopt;
    return r;
  }

  // 0 <= e < extent, or null when the loop bounds imply it.
  // e < extent alone (fault 26's guard, which forgets e >= 0).
  Expr below(const Expr& e, int64_t extent) {
    if (extent > int_max(e->dtype))
      return nullptr;
    return cmp(Op::Lt, e, make_const(Scalar::of_int(e->dtype, extent)));
  }

  Expr in_range(const Expr& e, int64_t extent) {
    if (auto r = interval(e); r && r->first >= 0 && r->second < extent)
      return nullptr;
    Expr lower = cmp(Op::Ge, e, zero_of(e->dtype));
    if (extent > int_max(e->dtype))
      return lower;
    return both(lower, cmp(Op::Lt, e, make_const(Scalar::of_int(e->dtype, extent))));
  }

  // True when evaluating \p e neither reads out of range nor divides
  // inexactly (the interpreter's "the point is not valid" under Skip);
  // null when that cannot happen. Evaluated in e's own evaluation order
  // and as lazily.
  Expr ok(const Expr& e) {
    return std::visit(
        [&](const auto& n) -> Expr {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, Load>) {
            Expr g;
            for (const Expr& i : n.index)
              g = both(g, ok(i));
            for (size_t d = 0; d < n.index.size(); ++d)
              g = both(g, in_range(n.index[d], k_.tensors[n.tensor].shape[d]));
            return g;
          } else if constexpr (std::is_same_v<T, Apply>) {
            if (n.op == Op::And || n.op == Op::Or) {
              Expr rest = ok(n.args[1]);
              if (!rest)
                return ok(n.args[0]);
              // The second operand is evaluated only when the first is
              // true (And) or false (Or).
              Expr unevaluated =
                  n.op == Op::And ? make_apply(Op::Not, {n.args[0]}, {}, DType::Bool) : n.args[0];
              return both(ok(n.args[0]),
                          make_apply(Op::Or, {unevaluated, std::move(rest)}, {}, DType::Bool));
            }
            Expr g;
            for (const Expr& a : n.args)
              g = both(g, ok(a));
            if (n.op == Op::ExactDiv) {
              const Expr& b = n.args[1];
              Expr divisible =
                  cmp(Op::Eq, make_apply(Op::Mod, {n.args[0], b}, e->span), zero_of(e->dtype));
              g = both(g, make_apply(Op::Or, {cmp(Op::Eq, b, zero_of(e->dtype)), divisible}, {},
                                     DType::Bool));
            }
            return g;
          } else if constexpr (std::is_same_v<T, Cast>) {
            return ok(n.value);
          } else if constexpr (std::is_same_v<T, Select>) {
            Expr t = ok(n.then), o = ok(n.otherwise);
            if (!t && !o)
              return ok(n.cond);
            auto yes = [] { return make_const(Scalar::of_int(DType::Bool, 1)); };
            return both(ok(n.cond), make_select(n.cond, t ? t : yes(), o ? o : yes()));
          } else {
            return nullptr;
          }
        },
        e->node);
  }

  // The interpreter's valid(): every access anywhere in \p e, both branches
  // of a select included, is in range.
  Expr valid(const Expr& e) {
    return std::visit(
        [&](const auto& n) -> Expr {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, Load>) {
            Expr g;
            for (const Expr& i : n.index)
              g = both(g, valid(i));
            for (size_t d = 0; d < n.index.size(); ++d)
              g = both(g,
                       both(ok(n.index[d]), in_range(n.index[d], k_.tensors[n.tensor].shape[d])));
            return g;
          } else if constexpr (std::is_same_v<T, Apply>) {
            Expr g;
            for (const Expr& a : n.args)
              g = both(g, valid(a));
            return g;
          } else if constexpr (std::is_same_v<T, Cast>) {
            return valid(n.value);
          } else if constexpr (std::is_same_v<T, Select>) {
            return both(valid(n.cond), both(valid(n.then), valid(n.otherwise)));
          } else {
            return nullptr;
          }
        },
        e->node);
  }

  // An exact division that valid() does not cover (outside every index).
  static bool exact_division_outside_loads(const Expr& e) {
    if (std::holds_alternative<Load>(e->node))
      return false;
    if (const auto* a = std::get_if<Apply>(&e->node)) {
      if (a->op == Op::ExactDiv)
        return true;
      for (const Expr& x : a->args)
        if (exact_division_outside_loads(x))
          return true;
      return false;
    }
    if (const auto* c = std::get_if<Cast>(&e->node))
      return exact_division_outside_loads(c->value);
    if (const auto* s = std::get_if<Select>(&e->node))
      return exact_division_outside_loads(s->cond) || exact_division_outside_loads(s->then) ||
             exact_division_outside_loads(s->otherwise);
    return false;
  }

  const Kernel& k_;
  LoopNest n_;
  const Statement* s_ = nullptr;
  std::vector<int> vars_;
  int writer_ = -1;
};

} // namespace

LoopNest lower(const Kernel& kernel) {
  return Lowering(kernel).run();
}

} // namespace teval::core
