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

} // namespace

LoopNest schedule(const LoopNest& nest, const ScheduleOptions& options, std::string* log) {
  LoopNest out = nest;
  if (!out.root)
    return out;
  for (const Stmt& top : top_loops(nest.root))
    if (options.vectorize)
      out = vectorize_contiguous(std::move(out), top, log);
  return out;
}

} // namespace teval::core
