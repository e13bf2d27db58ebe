// Rewrites of whole statements of a loop nest (see transform.h): index-set
// splitting of a loop's range, and fills that nothing reads left out.
#include "core/bounds.h"
#include "core/transform.h"
#include "core/transform_util.h"

#include <algorithm>
#include <map>

namespace teval::core {

using namespace detail;

namespace {

// \p s with the variables of its loops and lets renamed by \p fresh.
Stmt rebind(const Stmt& s, const std::map<int, int>& fresh) {
  if (const auto* f = std::get_if<For>(&s->node))
    return make_for(fresh.at(f->var), f->begin, f->end, rebind(f->body, fresh), f->kind);
  if (const auto* l = std::get_if<Let>(&s->node))
    return make_let(fresh.at(l->var), l->value, rebind(l->body, fresh));
  if (const auto* c = std::get_if<Cond>(&s->node))
    return make_cond(c->cond, rebind(c->then, fresh),
                     c->otherwise ? rebind(c->otherwise, fresh) : nullptr);
  if (const auto* b = std::get_if<Block>(&s->node)) {
    std::vector<Stmt> out;
    for (const Stmt& c : b->stmts)
      out.push_back(rebind(c, fresh));
    return make_block(std::move(out));
  }
  return s;
}

// \p s with every variable it binds replaced by a fresh copy added to
// \p nest (in the same order of ids): two statements made from one then
// bind distinct variables, as the transformations that find a loop by its
// variable expect.
Stmt with_fresh_vars(LoopNest& nest, const Stmt& s) {
  std::map<int, int> fresh;
  each_stmt(s, [&](const Stmt& st) {
    if (const auto* f = std::get_if<For>(&st->node))
      fresh[f->var] = -1;
    else if (const auto* l = std::get_if<Let>(&st->node))
      fresh[l->var] = -1;
  });
  for (auto& [old, renamed] : fresh) {
    LoopVar v = nest.vars[old]; // a copy: add_var may move the vector
    renamed = nest.add_var(v.name, v.dtype, v.point);
  }
  // Nodes shared in s stay shared (a sum's store and load of its target
  // share their index, which the register tile and the code generator
  // compare).
  ExprMemo memo;
  Stmt uses = map_exprs(
      s,
      [&](const Expr& e) -> Expr {
        const auto* v = std::get_if<VarRef>(&e->node);
        auto found = v ? fresh.find(v->var) : fresh.end();
        return found == fresh.end() ? nullptr : make_var(found->second, e->dtype, e->span);
      },
      &memo);
  return rebind(uses, fresh);
}

} // namespace

std::optional<std::pair<Stmt, Stmt>> split_range(LoopNest& nest, const Stmt& top, int var,
                                                 int64_t at, std::string* why) {
  const For* loop = nullptr;
  for (const Stmt* s = &top; const auto* f = std::get_if<For>(&(*s)->node); s = &f->body)
    if (f->var == var) {
      loop = f;
      break;
    }
  if (!loop)
    return fail(why, "not a loop of a perfectly nested chain"), std::nullopt;
  auto b = constant(loop->begin), e = constant(loop->end);
  if (!b || !e)
    return fail(why, "the loop's bounds are not constants"), std::nullopt;
  if (at <= *b || at >= *e)
    return fail(why, "the split point is not inside the range"), std::nullopt;
  if (!iterations_separated(*loop, why))
    return std::nullopt;
  if (!cannot_fail(nest, top))
    return fail(why, "the statement may raise an error"), std::nullopt;
  auto part = [&](int64_t from, int64_t to) {
    return replace_loop_in(top, var, [&](const For& f) {
      return make_for(f.var, int64(from), int64(to), f.body, f.kind);
    });
  };
  return std::pair{part(*b, at), with_fresh_vars(nest, part(at, *e))};
}

namespace detail {

std::optional<LoopNest>
rewrite_top(const LoopNest& nest, int var, std::string* why,
            const std::function<std::optional<std::vector<Stmt>>(LoopNest&, const Stmt&)>& f) {
  bool block = std::holds_alternative<Block>(nest.root->node);
  std::vector<Stmt> top = block ? std::get<Block>(nest.root->node).stmts : std::vector{nest.root};
  for (size_t k = 0; k < top.size(); ++k) {
    if (!find_loop(top[k], var))
      continue;
    LoopNest out = nest;
    std::optional<std::vector<Stmt>> r = f(out, top[k]);
    if (!r)
      return std::nullopt;
    top.erase(top.begin() + static_cast<long>(k));
    top.insert(top.begin() + static_cast<long>(k), r->begin(), r->end());
    out.root = make_block(std::move(top));
    return out;
  }
  return fail(why, "no loop over that variable"), std::nullopt;
}

} // namespace detail

std::optional<LoopNest> split_range(const LoopNest& nest, int var, int64_t at, std::string* why) {
  return rewrite_top(nest, var, why, [&](LoopNest& out, const Stmt& top) {
    std::optional<std::pair<Stmt, Stmt>> r = split_range(out, top, var, at, why);
    return r ? std::optional(std::vector{r->first, r->second}) : std::nullopt;
  });
}

namespace detail {

namespace {

// Calls \p f with every buffer \p s (or a statement below it) reads,
// stores, allocates or frees; \p reads_only: only those it reads.
void each_buffer(const Stmt& s, bool reads_only, const std::function<void(int)>& f) {
  each_stmt(s, [&](const Stmt& st) {
    for (const Expr& e : own_exprs(st))
      for_each_node(e, [&](const Expr& x) {
        if (const auto* l = std::get_if<Load>(&x->node))
          f(l->tensor);
      });
    if (reads_only)
      return;
    if (const auto* store = std::get_if<Store>(&st->node))
      f(store->buffer);
    if (const auto* a = std::get_if<Allocate>(&st->node))
      f(a->buffer);
    if (const auto* fr = std::get_if<Free>(&st->node))
      f(fr->buffer);
  });
}

} // namespace

bool reads_buffer(const Stmt& s, int buffer) {
  bool found = false;
  each_buffer(s, true, [&](int b) { found |= b == buffer; });
  return found;
}

bool touches_buffer(const Stmt& s, int buffer) {
  bool found = false;
  each_buffer(s, false, [&](int b) { found |= b == buffer; });
  return found;
}

BufferTouches::BufferTouches(const std::vector<Stmt>& stmts) : size_(stmts.size()) {
  for (size_t i = 0; i < stmts.size(); ++i)
    each_buffer(stmts[i], false, [&](int b) {
      std::vector<size_t>& at = at_[b];
      if (at.empty() || at.back() != i)
        at.push_back(i);
    });
}

size_t BufferTouches::next(int buffer, size_t i) const {
  auto found = at_.find(buffer);
  if (found == at_.end())
    return size_;
  auto after = std::upper_bound(found->second.begin(), found->second.end(), i);
  return after == found->second.end() ? size_ : *after;
}

const Store* covering_store(const LoopNest& nest, const Stmt& s) {
  std::map<int, std::pair<int64_t, int64_t>> ranges;
  const Stmt* at = &s;
  for (;;) {
    if (const auto* f = std::get_if<For>(&(*at)->node)) {
      auto b = constant(f->begin), e = constant(f->end);
      if (!b || !e || *e <= *b)
        return nullptr;
      ranges[f->var] = {*b, *e - 1};
      at = &f->body;
    } else if (const auto* l = std::get_if<Let>(&(*at)->node)) {
      at = &l->body;
    } else {
      break;
    }
  }
  const auto* store = std::get_if<Store>(&(*at)->node);
  if (!store || store->guard)
    return nullptr;
  const Shape& shape = nest.buffers[store->buffer].shape;
  std::vector<int> used;
  for (size_t d = 0; d < store->index.size(); ++d) {
    auto var = std::find_if(ranges.begin(), ranges.end(), [&](const auto& r) {
      return r.second == std::pair<int64_t, int64_t>{0, shape[d] - 1} &&
             whole_index(store->index[d], r.first, r.second) &&
             std::find(used.begin(), used.end(), r.first) == used.end();
    });
    if (var == ranges.end())
      return nullptr;
    used.push_back(var->first);
  }
  return reads_buffer(s, store->buffer) ? nullptr : store;
}

} // namespace detail

LoopNest drop_dead_fills(const LoopNest& nest, std::vector<int>* dropped) {
  if (!nest.root || !std::holds_alternative<Block>(nest.root->node))
    return nest;
  const std::vector<Stmt>& stmts = std::get<Block>(nest.root->node).stmts;
  const BufferTouches touches(stmts);
  std::vector<Stmt> kept;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const Store* fill = covering_store(nest, stmts[i]);
    if (fill && std::holds_alternative<Const>(fill->value->node)) {
      const size_t next = touches.next(fill->buffer, i);
      const Store* again = next < stmts.size() ? covering_store(nest, stmts[next]) : nullptr;
      if (again && again->buffer == fill->buffer) {
        if (dropped)
          dropped->push_back(fill->buffer);
        continue;
      }
    }
    kept.push_back(stmts[i]);
  }
  if (kept.size() == stmts.size())
    return nest;
  LoopNest out = nest;
  out.root = make_block(std::move(kept));
  return out;
}

} // namespace teval::core
