// Schedules for speed (see schedule.h).
#include "core/schedule.h"

#include "core/bounds.h"
#include "core/transform.h"

#include <algorithm>

namespace teval::core {

namespace {

// Loop \p f and the loops perfectly nested in it, outer first.
std::vector<int> chain(const For& f) {
  std::vector<int> vars{f.var};
  for (const For* at = &f; (at = std::get_if<For>(&at->body->node));)
    vars.push_back(at->var);
  return vars;
}

// The variable a store's last index is (possibly through an integer
// cast), or -1.
int last_index_var(const Store& s) {
  if (s.index.empty())
    return -1;
  const Expr* e = &s.index.back();
  while (const auto* c = std::get_if<Cast>(&(*e)->node))
    e = &c->value;
  const auto* v = std::get_if<VarRef>(&(*e)->node);
  return v ? v->var : -1;
}

// The one store under \p s, or null.
const Store* only_store(const Stmt& s) {
  const Store* found = nullptr;
  int stores = 0;
  each_stmt(s, [&](const Stmt& st) {
    if (const auto* store = std::get_if<Store>(&st->node)) {
      found = store;
      ++stores;
    }
  });
  return stores == 1 ? found : nullptr;
}

void note(std::string* log, const std::string& line) {
  if (log)
    *log += line + "\n";
}

// \p e is var, plus or minus terms that do not mention it (through
// integer casts): consecutive values of var are consecutive values of e.
bool steps_with(const Expr& e, int var) {
  if (const auto* c = std::get_if<Cast>(&e->node))
    return steps_with(c->value, var);
  if (const auto* v = std::get_if<VarRef>(&e->node))
    return v->var == var;
  const auto* a = std::get_if<Apply>(&e->node);
  if (!a || (a->op != Op::Add && a->op != Op::Sub) || a->args.size() != 2)
    return false;
  if (steps_with(a->args[0], var))
    return !mentions(a->args[1], var);
  return a->op == Op::Add && steps_with(a->args[1], var) && !mentions(a->args[0], var);
}

// How the loads under a loop's body read memory as its variable steps.
enum class Reads {
  None,    ///< no load depends on the variable
  Stream,  ///< each load that does reads consecutive elements (the variable
           ///< only in its last index, stepping with it)
  Strided, ///< some load jumps
};

Reads reads(const Stmt& body, int var) {
  bool all = true, any = false;
  each_stmt(body, [&](const Stmt& st) {
    for (const Expr& e : own_exprs(st))
      for_each_node(e, [&](const Expr& x) {
        const auto* l = std::get_if<Load>(&x->node);
        if (!l || !std::any_of(l->index.begin(), l->index.end(),
                               [&](const Expr& i) { return mentions(i, var); }))
          return;
        any = true;
        all &= steps_with(l->index.back(), var) &&
               std::none_of(l->index.begin(), l->index.end() - 1,
                            [&](const Expr& i) { return mentions(i, var); });
      });
  });
  return !any ? Reads::None : all ? Reads::Stream : Reads::Strided;
}

// The number of points of the loops \p vars (in \p root), or -1 when a
// bound is not a constant.
int64_t points(const Stmt& root, const std::vector<int>& vars) {
  __int128 total = 1;
  for (int v : vars) {
    const For* f = find_loop(root, v);
    const auto* b = std::get_if<Const>(&f->begin->node);
    const auto* e = std::get_if<Const>(&f->end->node);
    if (!b || !e)
      return -1;
    total *= std::max<int64_t>(e->value.i - b->value.i, 0);
    total = std::min<__int128>(total, INT64_MAX);
  }
  return static_cast<int64_t>(total);
}

// Brings the loop over the last index of the one store of \p top (a
// top-level loop of \p nest) innermost (each step an interchange
// core::reorder accepts) and vectorizes it. Only where the loops cannot
// fail: when several points are erroneous, the order decides which one is
// reported, and that must stay the interpreter's.
Stmt vectorize_contiguous(const LoopNest& nest, Stmt top, const ScheduleOptions& options,
                          std::string* log) {
  std::vector<int> vars = chain(std::get<For>(top->node));
  const For* innermost = find_loop(top, vars.back());
  const Store* store = only_store(innermost->body);
  if (!store)
    return top;
  const int inner = vars.back();
  int column = last_index_var(*store);
  // A long reduction read consecutively where the output loop's reads are
  // not: free to add in any order, the vectorizer sums it in lanes.
  constexpr int64_t kLongReduction = 16;
  if (options.any_order && column != inner && points(top, {inner}) >= kLongReduction &&
      reads(innermost->body, inner) == Reads::Stream &&
      reads(innermost->body, column) != Reads::Stream &&
      std::none_of(store->index.begin(), store->index.end(),
                   [&](const Expr& i) { return mentions(i, inner); })) {
    note(log, "keep " + nest.vars[inner].name +
                  " innermost: a reduction read contiguously, in any order");
    return top;
  }
  auto at = std::find(vars.begin(), vars.end(), column);
  if (at == vars.end())
    return top;
  if (column != vars.back() && !cannot_fail(nest, top)) {
    note(log, "keep " + nest.vars[column].name + " in place: the loops may raise an error");
    return top;
  }
  if (column != inner && reads(innermost->body, column) == Reads::Strided &&
      reads(innermost->body, inner) == Reads::Stream) {
    note(log, "keep " + nest.vars[column].name + " in place: its reads are strided, " +
                  nest.vars[inner].name + "'s consecutive");
    return top;
  }
  for (size_t i = static_cast<size_t>(at - vars.begin()); i + 1 < vars.size(); ++i) {
    std::string why;
    std::optional<Stmt> r = reorder(top, column, vars[i + 1], &why);
    const std::string what =
        "interchange " + nest.vars[column].name + " and " + nest.vars[vars[i + 1]].name;
    if (!r) {
      note(log, what + ": refused (" + why + ")");
      return top;
    }
    note(log, what);
    top = std::move(*r);
    std::swap(vars[i], vars[i + 1]);
  }
  if (std::optional<Stmt> r = vectorize(top, column)) {
    note(log, "vectorize " + nest.vars[column].name);
    top = std::move(*r);
  }
  return top;
}

// Runs the outermost loop of \p top on several threads when the nest is
// large enough; an outermost loop of fewer iterations than kFewTrips (a
// batch of one) first trades places with a longer loop inside it, where
// the nest cannot fail.
Stmt parallelize_outer(const LoopNest& nest, Stmt top, const ScheduleOptions& options,
                       std::string* log) {
  constexpr int64_t kFewTrips = 16;
  std::vector<int> vars = chain(std::get<For>(top->node));
  if (options.parallel_points <= 0 || points(top, vars) < options.parallel_points)
    return top;
  auto trips = [&](int v) { return points(top, {v}); };
  if (vars.size() > 1 && trips(vars[0]) < kFewTrips && trips(vars[1]) > trips(vars[0]) &&
      find_loop(top, vars[1])->kind == LoopKind::Serial && cannot_fail(nest, top))
    if (std::optional<Stmt> r = reorder(top, vars[0], vars[1])) {
      note(log, "interchange " + nest.vars[vars[0]].name + " and " + nest.vars[vars[1]].name);
      top = std::move(*r);
    }
  const For& f = std::get<For>(top->node);
  if (f.kind != LoopKind::Serial)
    return top;
  std::string why;
  if (std::optional<Stmt> r = parallelize(nest, top, &why)) {
    note(log, "parallel " + nest.vars[f.var].name);
    return std::move(*r);
  }
  note(log, "keep " + nest.vars[f.var].name + " on one thread: " + why);
  return top;
}

} // namespace

LoopNest schedule(const LoopNest& nest, const ScheduleOptions& options, std::string* log) {
  if (!nest.root)
    return nest;
  // Each top-level loop on its own: the nest is copied once.
  bool block = std::holds_alternative<Block>(nest.root->node);
  std::vector<Stmt> tops = block ? std::get<Block>(nest.root->node).stmts : std::vector{nest.root};
  for (Stmt& top : tops) {
    if (!std::holds_alternative<For>(top->node))
      continue;
    if (options.vectorize)
      top = vectorize_contiguous(nest, top, options, log);
    top = parallelize_outer(nest, top, options, log);
  }
  LoopNest out = nest;
  out.root = block ? make_block(std::move(tops)) : tops[0];
  return out;
}

} // namespace teval::core
