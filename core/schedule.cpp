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

const For* loop_of(const Stmt& root, int var) {
  const For* found = nullptr;
  each_stmt(root, [&](const Stmt& s) {
    if (const auto* f = std::get_if<For>(&s->node); f && f->var == var && !found)
      found = f;
  });
  return found;
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

// The top-level statements of \p root that are loops.
std::vector<Stmt> top_loops(const Stmt& root) {
  std::vector<Stmt> out;
  auto add = [&](const Stmt& s) {
    if (std::holds_alternative<For>(s->node))
      out.push_back(s);
  };
  if (const auto* b = std::get_if<Block>(&root->node))
    for (const Stmt& s : b->stmts)
      add(s);
  else
    add(root);
  return out;
}

// Brings the loop over the last index of the nest's one store innermost
// (each step an interchange core::reorder accepts) and vectorizes it. Only
// where the loops cannot fail: when several points are erroneous, the
// order decides which one is reported, and that must stay the
// interpreter's.
LoopNest vectorize_contiguous(LoopNest nest, const Stmt& top, std::string* log) {
  std::vector<int> vars = chain(std::get<For>(top->node));
  const For* innermost = loop_of(nest.root, vars.back());
  const Store* store = only_store(innermost->body);
  if (!store)
    return nest;
  int column = last_index_var(*store);
  auto at = std::find(vars.begin(), vars.end(), column);
  if (at == vars.end())
    return nest;
  if (column != vars.back() && !cannot_fail(nest, top)) {
    note(log, "keep " + nest.vars[column].name + " in place: the loops may raise an error");
    return nest;
  }
  for (size_t i = static_cast<size_t>(at - vars.begin()); i + 1 < vars.size(); ++i) {
    std::string why;
    std::optional<LoopNest> r = reorder(nest, column, vars[i + 1], &why);
    const std::string what =
        "interchange " + nest.vars[column].name + " and " + nest.vars[vars[i + 1]].name;
    if (!r) {
      note(log, what + ": refused (" + why + ")");
      return nest;
    }
    note(log, what);
    nest = std::move(*r);
    std::swap(vars[i], vars[i + 1]);
  }
  if (std::optional<LoopNest> r = vectorize(nest, column)) {
    note(log, "vectorize " + nest.vars[column].name);
    nest = std::move(*r);
  }
  return nest;
}

// The number of points of the loops \p vars (perfectly nested), or -1 when
// a bound is not a constant.
int64_t points(const LoopNest& nest, const std::vector<int>& vars) {
  __int128 total = 1;
  for (int v : vars) {
    const For* f = loop_of(nest.root, v);
    const auto* b = std::get_if<Const>(&f->begin->node);
    const auto* e = std::get_if<Const>(&f->end->node);
    if (!b || !e)
      return -1;
    total *= std::max<int64_t>(e->value.i - b->value.i, 0);
    total = std::min<__int128>(total, INT64_MAX);
  }
  return static_cast<int64_t>(total);
}

// The number of iterations of loop \p var (constant bounds), or -1.
int64_t trips(const LoopNest& nest, int var) {
  return points(nest, {var});
}

// Runs the outermost loop of the nest at \p index of the top level on
// several threads when the nest is large enough; an outermost loop of
// fewer iterations than kFewTrips (a batch of one) first trades places
// with a longer loop inside it, where the nest cannot fail.
LoopNest parallelize_outer(LoopNest nest, size_t index, const ScheduleOptions& options,
                           std::string* log) {
  constexpr int64_t kFewTrips = 16;
  Stmt top = top_loops(nest.root).at(index);
  std::vector<int> vars = chain(std::get<For>(top->node));
  if (options.parallel_points <= 0 || points(nest, vars) < options.parallel_points)
    return nest;
  if (vars.size() > 1 && trips(nest, vars[0]) < kFewTrips &&
      trips(nest, vars[1]) > trips(nest, vars[0]) &&
      loop_of(nest.root, vars[1])->kind == LoopKind::Serial && cannot_fail(nest, top))
    if (std::optional<LoopNest> r = reorder(nest, vars[0], vars[1])) {
      note(log, "interchange " + nest.vars[vars[0]].name + " and " + nest.vars[vars[1]].name);
      nest = std::move(*r);
      std::swap(vars[0], vars[1]);
    }
  const For* f = loop_of(nest.root, vars[0]);
  if (f->kind != LoopKind::Serial)
    return nest;
  std::string why;
  if (std::optional<LoopNest> r = parallelize(nest, f->var, &why)) {
    note(log, "parallel " + nest.vars[f->var].name);
    return std::move(*r);
  }
  note(log, "keep " + nest.vars[f->var].name + " on one thread: " + why);
  return nest;
}

} // namespace

LoopNest schedule(const LoopNest& nest, const ScheduleOptions& options, std::string* log) {
  LoopNest out = nest;
  if (!out.root)
    return out;
  std::vector<Stmt> tops = top_loops(nest.root);
  for (size_t i = 0; i < tops.size(); ++i) {
    if (options.vectorize)
      out = vectorize_contiguous(std::move(out), top_loops(out.root).at(i), log);
    out = parallelize_outer(std::move(out), i, options, log);
  }
  return out;
}

} // namespace teval::core
