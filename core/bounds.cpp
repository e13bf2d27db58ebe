// What a loop nest can be proved never to do (see bounds.h).
#include "core/bounds.h"

#include <algorithm>
#include <utility>

namespace teval::core {

namespace {

using Wide = __int128;

} // namespace

bool same_value(const Expr& a, const Expr& b) {
  if (a == b)
    return true;
  if (a->dtype != b->dtype || a->node.index() != b->node.index())
    return false;
  auto all_same = [](const std::vector<Expr>& x, const std::vector<Expr>& y) {
    if (x.size() != y.size())
      return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!same_value(x[i], y[i]))
        return false;
    return true;
  };
  return std::visit(
      [&](const auto& n) -> bool {
        using T = std::decay_t<decltype(n)>;
        const T& m = std::get<T>(b->node);
        if constexpr (std::is_same_v<T, Const>)
          return n.value.i == m.value.i && n.value.f == m.value.f && !is_float(a->dtype);
        else if constexpr (std::is_same_v<T, VarRef>)
          return n.var == m.var;
        else if constexpr (std::is_same_v<T, Load>)
          return n.tensor == m.tensor && all_same(n.index, m.index);
        else if constexpr (std::is_same_v<T, Apply>)
          return n.op == m.op && all_same(n.args, m.args);
        else if constexpr (std::is_same_v<T, Cast>)
          return same_value(n.value, m.value);
        else
          return same_value(n.cond, m.cond) && same_value(n.then, m.then) &&
                 same_value(n.otherwise, m.otherwise);
      },
      a->node);
}

namespace {

struct Analysis {
  const LoopNest& nest;
  std::vector<std::optional<IntRange>> vars;
  // Ranges known for expressions where a Select's condition held.
  std::vector<std::pair<Expr, IntRange>> facts;
  // Where the walk for proven_accesses() records its findings (null in
  // cannot_fail(), which stops at the first doubt).
  struct Record {
    std::unordered_set<const ExprNode*> loads, unproven_loads;
    std::unordered_set<const StmtNode*> stores, unproven_stores;
    std::unordered_set<const ExprNode*> arithmetic, unproven_arithmetic;
    std::unordered_set<const ExprNode*> natural, unnatural; // divisions
  }* record = nullptr;

  template <class Node>
  void note(std::unordered_set<const Node*>& proven, std::unordered_set<const Node*>& unproven,
            const Node* node, bool ok) {
    (ok ? proven : unproven).insert(node);
  }

  // The range check of an access at \p index of \p buffer cannot fail.
  bool indices_in_shape(int buffer, const std::vector<Expr>& index) const {
    const Buffer& b = nest.buffers[buffer];
    if (index.size() != b.shape.size())
      return false;
    for (size_t d = 0; d < index.size(); ++d)
      if (!within(range(index[d]), 0, b.shape[d] - 1))
        return false;
    return true;
  }

  std::optional<IntRange> fit(Wide lo, Wide hi, DType t) const {
    if (lo > hi)
      std::swap(lo, hi);
    if (lo < int_min(t) || hi > int_max(t))
      return std::nullopt;
    return IntRange{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
  }

  // The range of integer (or bool) expression \p e, when known; its value
  // where it does not fail.
  std::optional<IntRange> range(const Expr& e) const {
    DType t = e->dtype;
    if (!is_integer(t) && !is_bool(t))
      return std::nullopt;
    std::optional<IntRange> r = structural(e);
    for (const auto& [x, known] : facts)
      if (same_value(x, e)) {
        IntRange k = known;
        if (r) {
          k.lo = std::max(k.lo, r->lo);
          k.hi = std::min(k.hi, r->hi);
        }
        r = k;
      }
    return r;
  }

  std::optional<IntRange> structural(const Expr& e) const {
    DType t = e->dtype;
    if (is_bool(t))
      return IntRange{0, 1};
    if (const auto* c = std::get_if<Const>(&e->node))
      return IntRange{c->value.i, c->value.i};
    if (const auto* v = std::get_if<VarRef>(&e->node))
      return static_cast<size_t>(v->var) < vars.size() ? vars[v->var] : std::nullopt;
    if (const auto* c = std::get_if<Cast>(&e->node)) {
      std::optional<IntRange> r = range(c->value);
      return r ? fit(r->lo, r->hi, t) : std::nullopt; // a wrapping cast: unknown
    }
    if (const auto* s = std::get_if<Select>(&e->node)) {
      std::optional<IntRange> a = range(s->then), b = range(s->otherwise);
      if (!a || !b)
        return std::nullopt;
      return IntRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
    }
    const auto* a = std::get_if<Apply>(&e->node);
    if (!a)
      return std::nullopt; // a load: any value
    std::vector<IntRange> args;
    for (const Expr& x : a->args) {
      std::optional<IntRange> r = range(x);
      if (!r)
        return std::nullopt;
      args.push_back(*r);
    }
    auto both = [&](auto f) -> std::optional<IntRange> {
      Wide c[4] = {f(Wide(args[0].lo), Wide(args[1].lo)), f(Wide(args[0].lo), Wide(args[1].hi)),
                   f(Wide(args[0].hi), Wide(args[1].lo)), f(Wide(args[0].hi), Wide(args[1].hi))};
      return fit(*std::min_element(c, c + 4), *std::max_element(c, c + 4), t);
    };
    switch (a->op) {
    case Op::Add:
      return both([](Wide x, Wide y) { return x + y; });
    case Op::Sub:
      return both([](Wide x, Wide y) { return x - y; });
    case Op::Mul:
      return both([](Wide x, Wide y) { return x * y; });
    case Op::Neg:
      return fit(-Wide(args[0].hi), -Wide(args[0].lo), t);
    case Op::Max:
      return IntRange{std::max(args[0].lo, args[1].lo), std::max(args[0].hi, args[1].hi)};
    case Op::Min:
      return IntRange{std::min(args[0].lo, args[1].lo), std::min(args[0].hi, args[1].hi)};
    case Op::Div: // truncating, monotone in each operand where the divisor keeps its sign
      if ((args[1].lo <= 0 && args[1].hi >= 0) || args[1].lo > args[1].hi)
        return std::nullopt; // a zero divisor, or no value at all
      return both([](Wide x, Wide y) { return x / y; });
    case Op::Mod: // floored: the divisor's sign, smaller in magnitude
      if (args[1].lo > args[1].hi)
        return std::nullopt;
      if (args[1].lo > 0)
        return args[0].lo >= 0 && args[0].hi < args[1].lo ? args[0] : IntRange{0, args[1].hi - 1};
      if (args[1].hi < 0)
        return args[0].hi <= 0 && args[0].lo > args[1].hi ? args[0] : IntRange{args[1].lo + 1, 0};
      return std::nullopt;
    default:
      return std::nullopt;
    }
  }

  // Records what \p cond being true says of integer expressions: for
  // `x < y` (and the other orders), a bound of x from y's range and of y
  // from x's.
  void assume(const Expr& cond) {
    const auto* a = std::get_if<Apply>(&cond->node);
    if (!a)
      return;
    if (a->op == Op::And) {
      for (const Expr& x : a->args)
        assume(x);
      return;
    }
    if (a->args.size() != 2 || !is_integer(a->args[0]->dtype))
      return;
    Op op = a->op;
    if (op != Op::Lt && op != Op::Le && op != Op::Gt && op != Op::Ge)
      return;
    auto mirrored = [](Op o) {
      return o == Op::Lt ? Op::Gt : o == Op::Le ? Op::Ge : o == Op::Gt ? Op::Lt : Op::Le;
    };
    bound(a->args[0], op, a->args[1]);
    bound(a->args[1], mirrored(op), a->args[0]);
  }

  // Records `x op y` as a range of x.
  void bound(const Expr& x, Op op, const Expr& y) {
    std::optional<IntRange> b = range(y);
    if (!b)
      return;
    IntRange r{int_min(x->dtype), int_max(x->dtype)};
    if (op == Op::Ge)
      r.lo = b->lo;
    else if (op == Op::Gt && b->lo < INT64_MAX)
      r.lo = b->lo + 1;
    else if (op == Op::Le)
      r.hi = b->hi;
    else if (op == Op::Lt && b->hi > INT64_MIN)
      r.hi = b->hi - 1;
    else
      return;
    facts.emplace_back(x, r);
  }

  static bool within(const std::optional<IntRange>& r, int64_t lo, int64_t hi) {
    return r && r->lo >= lo && r->hi <= hi;
  }

  bool safe(const Expr& e) {
    return std::visit(
        [&](const auto& n) -> bool {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, Const> || std::is_same_v<T, VarRef>) {
            return true;
          } else if constexpr (std::is_same_v<T, Load>) {
            bool ok = in_shape(n.tensor, n.index);
            if (record)
              note(record->loads, record->unproven_loads, e.get(),
                   indices_in_shape(n.tensor, n.index));
            return ok;
          } else if constexpr (std::is_same_v<T, Cast>) {
            // Only a float to integer conversion can fail.
            return safe(n.value) && (!is_float(n.value->dtype) || is_float(e->dtype));
          } else if constexpr (std::is_same_v<T, Select>) {
            bool ok = safe(n.cond);
            ok = safe(n.otherwise) && ok;
            size_t known = facts.size();
            assume(n.cond);
            ok = safe(n.then) && ok;
            facts.resize(known);
            return ok;
          } else {
            return safe_apply(e, n);
          }
        },
        e->node);
  }

  bool safe_apply(const Expr& e, const Apply& a) {
    bool ok = true;
    for (const Expr& x : a.args)
      ok = safe(x) && ok;
    if (!ok)
      return false;
    DType t = a.args.empty() ? e->dtype : a.args[0]->dtype;
    if (is_float(t))
      return a.op != Op::Floor && a.op != Op::Ceil; // float to integer
    switch (a.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Neg:
    case Op::Abs: {
      if (a.overflow != Overflow::Trap)
        return true;
      bool fits = range(e).has_value();
      if (record && a.op != Op::Abs)
        note(record->arithmetic, record->unproven_arithmetic, e.get(), fits);
      return fits;
    }
    case Op::Div:
    case Op::Mod: {
      std::optional<IntRange> d = range(a.args[1]);
      if (!d || (d->lo <= 0 && d->hi >= 0))
        return false; // a zero divisor
      bool minus_one = d->lo <= -1 && d->hi >= -1;
      std::optional<IntRange> n = range(a.args[0]);
      if (record)
        note(record->natural, record->unnatural, e.get(), n && n->lo >= 0 && d->lo >= 1);
      return !minus_one || (n && n->lo > int_min(t));
    }
    case Op::ExactDiv:
      return false;
    case Op::Shl:
    case Op::Shr:
      return within(range(a.args[1]), 0, bit_width(t) - 1);
    default:
      return true; // comparisons, logic, max, min
    }
  }

  // The indices cannot fail and are in range.
  bool in_shape(int buffer, const std::vector<Expr>& index) {
    bool ok = true;
    for (const Expr& i : index)
      ok = safe(i) && ok; // every index visited when recording
    return ok && indices_in_shape(buffer, index);
  }

  bool safe(const Stmt& s) {
    return std::visit(
        [&](const auto& n) -> bool {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, For>) {
            bool ok = safe(n.begin);
            ok = safe(n.end) && ok;
            std::optional<IntRange> b = range(n.begin), end = range(n.end);
            std::optional<IntRange> saved = vars[n.var];
            vars[n.var] = b && end && end->hi > INT64_MIN
                              ? std::optional<IntRange>(IntRange{b->lo, end->hi - 1})
                              : std::nullopt;
            ok = safe(n.body) && ok;
            vars[n.var] = saved;
            return ok;
          } else if constexpr (std::is_same_v<T, Let>) {
            bool ok = safe(n.value);
            std::optional<IntRange> saved = vars[n.var];
            vars[n.var] = range(n.value);
            ok = safe(n.body) && ok;
            vars[n.var] = saved;
            return ok;
          } else if constexpr (std::is_same_v<T, Store>) {
            bool ok = !n.guard || safe(n.guard);
            size_t known = facts.size();
            if (n.guard)
              assume(n.guard);
            ok = in_shape(n.buffer, n.index) && ok;
            if (record)
              note(record->stores, record->unproven_stores, s.get(),
                   indices_in_shape(n.buffer, n.index));
            ok = safe(n.value) && ok;
            facts.resize(known);
            return ok;
          } else if constexpr (std::is_same_v<T, Cond>) {
            bool ok = safe(n.cond);
            ok = (!n.otherwise || safe(n.otherwise)) && ok;
            size_t known = facts.size();
            assume(n.cond);
            ok = safe(n.then) && ok;
            facts.resize(known);
            return ok;
          } else if constexpr (std::is_same_v<T, Block>) {
            bool ok = true;
            for (const Stmt& c : n.stmts)
              ok = safe(c) && ok;
            return ok;
          } else if constexpr (std::is_same_v<T, Raise>) {
            return false;
          } else {
            return true; // Allocate, Free
          }
        },
        s->node);
  }
};

// Calls f on the nodes of s's own expressions and walks its children,
// with the ranges of the variables of the loops and lets around them.
void walk_in_scope(Analysis& a, const Stmt& s,
                   const std::function<void(const Expr&, const RangeOf&)>& f) {
  RangeOf range = [&](const Expr& e) { return a.range(e); };
  for (const Expr& e : own_exprs(s))
    for_each_node(e, [&](const Expr& x) { f(x, range); });
  auto scoped = [&](int var, std::optional<IntRange> r, const Stmt& body) {
    std::optional<IntRange> saved = a.vars[var];
    a.vars[var] = r;
    walk_in_scope(a, body, f);
    a.vars[var] = saved;
  };
  if (const auto* loop = std::get_if<For>(&s->node)) {
    std::optional<IntRange> b = a.range(loop->begin), e = a.range(loop->end);
    scoped(loop->var,
           b && e && e->hi > INT64_MIN ? std::optional(IntRange{b->lo, e->hi - 1}) : std::nullopt,
           loop->body);
  } else if (const auto* let = std::get_if<Let>(&s->node)) {
    scoped(let->var, a.range(let->value), let->body);
  } else if (const auto* c = std::get_if<Cond>(&s->node)) {
    walk_in_scope(a, c->then, f);
    if (c->otherwise)
      walk_in_scope(a, c->otherwise, f);
  } else if (const auto* b = std::get_if<Block>(&s->node)) {
    for (const Stmt& c : b->stmts)
      walk_in_scope(a, c, f);
  }
}

} // namespace

void each_node_in_scope(const LoopNest& nest, const Stmt& s,
                        const std::function<void(const Expr&, const RangeOf&)>& f) {
  Analysis a{nest, {}, {}};
  a.vars.resize(nest.vars.size());
  walk_in_scope(a, s, f);
}

ProvenAccesses proven_accesses(const LoopNest& nest) {
  Analysis::Record r;
  Analysis a{nest, {}, {}, &r};
  a.vars.resize(nest.vars.size());
  if (nest.root)
    a.safe(nest.root);
  // Proved where every place that evaluates the node proved it.
  auto everywhere = [](const auto& proven, const auto& unproven, auto& out) {
    for (const auto* node : proven)
      if (!unproven.count(node))
        out.insert(node);
  };
  ProvenAccesses p;
  everywhere(r.loads, r.unproven_loads, p.loads);
  everywhere(r.stores, r.unproven_stores, p.stores);
  everywhere(r.arithmetic, r.unproven_arithmetic, p.arithmetic);
  everywhere(r.natural, r.unnatural, p.natural_divisions);
  return p;
}

bool cannot_fail(const LoopNest& nest, const Stmt& s,
                 const std::vector<std::optional<IntRange>>& bound) {
  Analysis a{nest, bound, {}};
  a.vars.resize(nest.vars.size());
  return a.safe(s);
}

} // namespace teval::core
