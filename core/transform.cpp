// Loop transformations of the LoopNest IR (see transform.h).
#include "core/transform.h"

#include "core/bounds.h"
#include "core/transform_util.h"

#include <algorithm>
#include <functional>
#include <map>

namespace teval::core {

namespace detail {

bool fail(std::string* why, std::string reason) {
  if (why)
    *why = std::move(reason);
  return false;
}

bool whole_index(const Expr& e, int var, std::optional<std::pair<int64_t, int64_t>> range) {
  if (const auto* v = std::get_if<VarRef>(&e->node))
    return v->var == var;
  const auto* c = std::get_if<Cast>(&e->node);
  if (!c || !range || !is_integer(e->dtype) || is_bool(e->dtype) || !is_integer(c->value->dtype))
    return false;
  return range->first >= int_min(e->dtype) && range->second <= int_max(e->dtype) &&
         whole_index(c->value, var, range);
}

std::optional<int64_t> constant(const Expr& e) {
  if (const auto* c = std::get_if<Const>(&e->node))
    return c->value.i;
  return std::nullopt;
}

std::optional<LoopNest> with_root(const LoopNest& nest, std::optional<Stmt> root) {
  if (!root)
    return std::nullopt;
  LoopNest out = nest;
  out.root = std::move(*root);
  return out;
}

// Rebuilds \p s bottom-up; \p f may replace any statement (returning null
// keeps it and descends into it).
Stmt map_stmt(const Stmt& s, const std::function<Stmt(const Stmt&)>& f) {
  if (Stmt r = f(s))
    return r;
  return std::visit(
      [&](const auto& n) -> Stmt {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, For>) {
          Stmt b = map_stmt(n.body, f);
          return b == n.body ? s : make_for(n.var, n.begin, n.end, b, n.kind);
        } else if constexpr (std::is_same_v<T, Let>) {
          Stmt b = map_stmt(n.body, f);
          return b == n.body ? s : make_let(n.var, n.value, b);
        } else if constexpr (std::is_same_v<T, Cond>) {
          Stmt t = map_stmt(n.then, f);
          Stmt o = n.otherwise ? map_stmt(n.otherwise, f) : nullptr;
          return t == n.then && o == n.otherwise ? s : make_cond(n.cond, t, o);
        } else if constexpr (std::is_same_v<T, Block>) {
          std::vector<Stmt> out;
          bool changed = false;
          for (const Stmt& c : n.stmts) {
            out.push_back(map_stmt(c, f));
            changed |= out.back() != c;
          }
          return changed ? make_block(std::move(out)) : s;
        } else {
          return s;
        }
      },
      s->node);
}

// \p root with the loop over \p var replaced by f(loop).
Stmt replace_loop_in(const Stmt& root, int var, const std::function<Stmt(const For&)>& f) {
  return map_stmt(root, [&](const Stmt& s) -> Stmt {
    const auto* loop = std::get_if<For>(&s->node);
    return loop && loop->var == var ? f(*loop) : nullptr;
  });
}

Stmt map_exprs(const Stmt& s, const std::function<Expr(const Expr&)>& f, ExprMemo* memo) {
  auto sub = [&](const Expr& e) { return replace(e, f, memo); };
  auto subs = [&](const std::vector<Expr>& es) {
    std::vector<Expr> out;
    for (const Expr& e : es)
      out.push_back(sub(e));
    return out;
  };
  return std::visit(
      [&](const auto& n) -> Stmt {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, For>) {
          return make_for(n.var, sub(n.begin), sub(n.end), map_exprs(n.body, f, memo), n.kind);
        } else if constexpr (std::is_same_v<T, Store>) {
          return make_store(n.buffer, subs(n.index), sub(n.value),
                            n.guard ? sub(n.guard) : nullptr);
        } else if constexpr (std::is_same_v<T, Let>) {
          return make_let(n.var, sub(n.value), map_exprs(n.body, f, memo));
        } else if constexpr (std::is_same_v<T, Cond>) {
          return make_cond(sub(n.cond), map_exprs(n.then, f, memo),
                           n.otherwise ? map_exprs(n.otherwise, f, memo) : nullptr);
        } else if constexpr (std::is_same_v<T, Block>) {
          std::vector<Stmt> out;
          for (const Stmt& c : n.stmts)
            out.push_back(map_exprs(c, f, memo));
          return make_block(std::move(out));
        } else if constexpr (std::is_same_v<T, Raise>) {
          return make_raise(n.kind, n.span, n.message, subs(n.args));
        } else {
          return s;
        }
      },
      s->node);
}

} // namespace detail

using namespace detail;

namespace {

// \p s with every reference to variable \p var replaced by \p by.
Stmt substitute_var(const Stmt& s, int var, const Expr& by) {
  return map_exprs(s, [&](const Expr& e) -> Expr {
    const auto* v = std::get_if<VarRef>(&e->node);
    if (!v || v->var != var)
      return nullptr;
    return by->dtype == e->dtype ? by : make_cast(by, e->dtype, e->span);
  });
}

// The index lists at which each buffer is loaded and stored in statements.
struct Accesses {
  std::map<int, std::vector<std::vector<Expr>>> at;
  std::map<int, bool> stored;
  bool allocates = false;

  void add(const Stmt& s) {
    each_stmt(s, [&](const Stmt& st) {
      if (const auto* store = std::get_if<Store>(&st->node)) {
        at[store->buffer].push_back(store->index);
        stored[store->buffer] = true;
      }
      if (std::holds_alternative<Allocate>(st->node) || std::holds_alternative<Free>(st->node))
        allocates = true;
      for (const Expr& e : own_exprs(st))
        for_each_node(e, [&](const Expr& x) {
          if (const auto* l = std::get_if<Load>(&x->node))
            at[l->tensor].push_back(l->index);
        });
    });
  }

  // Every buffer stored is accessed only at indices that have one of \p vars
  // whole in one dimension, the same for every access: iterations that
  // differ in that variable never share a stored location.
  static bool whole(const Expr& e, int var, std::optional<std::pair<int64_t, int64_t>> range) {
    return whole_index(e, var, range);
  }

  bool separated(const std::vector<int>& vars, std::string* why,
                 std::optional<std::pair<int64_t, int64_t>> range = std::nullopt) const {
    if (allocates)
      return fail(why, "the loop body allocates or frees a buffer");
    for (const auto& [buffer, stored_here] : stored) {
      const auto& lists = at.at(buffer);
      bool found = false;
      for (size_t d = 0; !found && d < lists.front().size(); ++d)
        for (int var : vars) {
          bool all = true;
          for (const auto& l : lists)
            all &= d < l.size() && whole(l[d], var, range);
          found |= all;
        }
      if (!found)
        return fail(why, "a stored buffer's index does not separate the iterations");
    }
    return true;
  }
};

Expr add(Expr a, Expr b) {
  return make_apply(Op::Add, {std::move(a), std::move(b)});
}
Expr mul(Expr a, int64_t f) {
  return make_apply(Op::Mul, {std::move(a), int64(f)});
}
Expr var_ref(const LoopNest& n, int v) {
  return make_var(v, n.vars[v].dtype);
}
Expr as_dtype(const Expr& e, DType t) {
  return e->dtype == t ? e : make_cast(e, t);
}

// The number of iterations of [begin, end), never negative.
Expr trip_count(const For& f) {
  auto b = constant(f.begin), e = constant(f.end);
  if (b && e)
    return int64(std::max<int64_t>(*e - *b, 0));
  return make_apply(Op::Max, {make_apply(Op::Sub, {f.end, f.begin}), int64(0)});
}

Expr ceil_div(const Expr& n, int64_t f) {
  if (auto c = constant(n))
    return int64((*c + f - 1) / f);
  return make_apply(Op::Div, {add(n, int64(f - 1)), int64(f)});
}

Expr floor_div(const Expr& n, int64_t f) {
  if (auto c = constant(n))
    return int64(*c / f);
  return make_apply(Op::Div, {n, int64(f)});
}

std::optional<LoopNest> replace_loop(const LoopNest& nest, int var,
                                     const std::function<Stmt(const For&)>& f) {
  LoopNest out = nest;
  out.root = replace_loop_in(nest.root, var, f);
  return out;
}

// \p nest with root \p root, when there is one.
} // namespace

std::vector<int> loop_vars(const LoopNest& nest) {
  std::vector<int> out;
  each_stmt(nest.root, [&](const Stmt& s) {
    if (const auto* f = std::get_if<For>(&s->node))
      out.push_back(f->var);
  });
  return out;
}

std::optional<LoopNest> split(const LoopNest& nest, int var, int64_t factor, SplitTail tail,
                              std::string* why) {
  if (factor < 1)
    return fail(why, "the factor must be at least 1"), std::nullopt;
  if (!find_loop(nest.root, var))
    return fail(why, "no loop over that variable"), std::nullopt;
  LoopNest out = nest;
  std::string name = nest.vars[var].name;
  int vo = out.add_var(name + ".o", DType::Int64);
  int vi = out.add_var(name + ".i", DType::Int64);
  DType t = nest.vars[var].dtype;
  auto result = replace_loop(out, var, [&](const For& f) {
    Expr n = trip_count(f);
    // begin + vo * factor + vi, as the loop variable's dtype.
    Expr position =
        add(add(f.begin, mul(make_var(vo, DType::Int64), factor)), make_var(vi, DType::Int64));
    Stmt body = make_let(var, as_dtype(position, t), f.body);
    if (tail == SplitTail::Mask) {
      body = make_cond(make_apply(Op::Lt, {position, f.end}, {}, DType::Bool), body);
      return make_for(vo, int64(0), ceil_div(n, factor),
                      make_for(vi, int64(0), int64(factor), body));
    }
    Expr full = floor_div(n, factor);
    Stmt main = make_for(vo, int64(0), full, make_for(vi, int64(0), int64(factor), body, f.kind));
    Expr tail_begin = add(f.begin, make_apply(Op::Mul, {full, int64(factor)}));
    return make_block({main, make_for(var, tail_begin, f.end, f.body, f.kind)});
  });
  return result;
}

std::optional<Stmt> reorder(const Stmt& root, int outer, int inner, std::string* why) {
  const For* o = find_loop(root, outer);
  if (!o)
    return fail(why, "no loop over the outer variable"), std::nullopt;
  const auto* i = std::get_if<For>(&o->body->node);
  if (!i || i->var != inner)
    return fail(why, "the loops are not perfectly nested"), std::nullopt;
  if (mentions(i->begin, outer) || mentions(i->end, outer))
    return fail(why, "the inner loop's bounds depend on the outer variable"), std::nullopt;
  Accesses a;
  a.add(i->body);
  if (!a.separated({outer, inner}, why))
    return std::nullopt;
  return replace_loop_in(root, outer, [&](const For& f) {
    return make_for(i->var, i->begin, i->end, make_for(f.var, f.begin, f.end, i->body, f.kind),
                    i->kind);
  });
}

std::optional<LoopNest> reorder(const LoopNest& nest, int outer, int inner, std::string* why) {
  return with_root(nest, reorder(nest.root, outer, inner, why));
}

std::optional<LoopNest> tile(const LoopNest& nest, int outer, int inner, int64_t outer_factor,
                             int64_t inner_factor, std::string* why) {
  if (outer_factor < 1 || inner_factor < 1)
    return fail(why, "the factors must be at least 1"), std::nullopt;
  if (!reorder(nest, outer, inner, why))
    return std::nullopt;
  const For* o = find_loop(nest.root, outer);
  const For* i = &std::get<For>(o->body->node);
  LoopNest out = nest;
  std::string on = nest.vars[outer].name, in = nest.vars[inner].name;
  int oo = out.add_var(on + ".o", DType::Int64), oi = out.add_var(on + ".i", DType::Int64);
  int io = out.add_var(in + ".o", DType::Int64), ii = out.add_var(in + ".i", DType::Int64);
  auto position = [](const For& f, int hi, int lo, int64_t factor) {
    return add(add(f.begin, mul(make_var(hi, DType::Int64), factor)), make_var(lo, DType::Int64));
  };
  Expr op = position(*o, oo, oi, outer_factor), ip = position(*i, io, ii, inner_factor);
  Stmt body = make_let(outer, as_dtype(op, nest.vars[outer].dtype),
                       make_let(inner, as_dtype(ip, nest.vars[inner].dtype), i->body));
  Expr inside = make_apply(Op::And,
                           {make_apply(Op::Lt, {op, o->end}, {}, DType::Bool),
                            make_apply(Op::Lt, {ip, i->end}, {}, DType::Bool)},
                           {}, DType::Bool);
  Stmt tiled = make_for(
      oo, int64(0), ceil_div(trip_count(*o), outer_factor),
      make_for(io, int64(0), ceil_div(trip_count(*i), inner_factor),
               make_for(oi, int64(0), int64(outer_factor),
                        make_for(ii, int64(0), int64(inner_factor), make_cond(inside, body)))));
  return replace_loop(out, outer, [&](const For&) { return tiled; });
}

std::optional<LoopNest> unroll(const LoopNest& nest, int var, std::string* why) {
  const For* f = find_loop(nest.root, var);
  if (!f)
    return fail(why, "no loop over that variable"), std::nullopt;
  auto b = constant(f->begin), e = constant(f->end);
  if (!b || !e)
    return fail(why, "the loop bounds are not constants"), std::nullopt;
  if (*e - *b > 64)
    return fail(why, "more than 64 iterations"), std::nullopt;
  DType t = nest.vars[var].dtype;
  return replace_loop(nest, var, [&](const For& loop) {
    std::vector<Stmt> copies;
    for (int64_t k = *b; k < *e; ++k)
      copies.push_back(make_let(var, make_const(Scalar::of_int(t, k)), loop.body));
    return make_block(std::move(copies));
  });
}

bool iterations_separated(const For& f, std::string* why) {
  Accesses a;
  a.add(f.body);
  return a.separated({f.var}, why);
}

std::optional<Stmt> vectorize(const Stmt& root, int var, std::string* why) {
  if (!find_loop(root, var))
    return fail(why, "no loop over that variable"), std::nullopt;
  return replace_loop_in(root, var, [&](const For& f) {
    return make_for(f.var, f.begin, f.end, f.body, LoopKind::Vectorized);
  });
}

std::optional<LoopNest> vectorize(const LoopNest& nest, int var, std::string* why) {
  return with_root(nest, vectorize(nest.root, var, why));
}

std::optional<Stmt> parallelize(const LoopNest& nest, const Stmt& loop, std::string* why) {
  const auto* f = std::get_if<For>(&loop->node);
  if (!f)
    return fail(why, "not a loop"), std::nullopt;
  if (!constant(f->begin) || !constant(f->end))
    return fail(why, "the loop's bounds are not constants"), std::nullopt;
  if (!iterations_separated(*f, why))
    return std::nullopt;
  if (!cannot_fail(nest, loop))
    return fail(why, "the loop may raise an error"), std::nullopt;
  return make_for(f->var, f->begin, f->end, f->body, LoopKind::Parallel);
}

std::optional<LoopNest> parallelize(const LoopNest& nest, int var, std::string* why) {
  bool block = std::holds_alternative<Block>(nest.root->node);
  std::vector<Stmt> top = block ? std::get<Block>(nest.root->node).stmts : std::vector{nest.root};
  for (Stmt& s : top) {
    const auto* f = std::get_if<For>(&s->node);
    if (!f || f->var != var)
      continue;
    std::optional<Stmt> r = parallelize(nest, s, why);
    if (!r)
      return std::nullopt;
    s = *r;
    return with_root(nest, block ? make_block(std::move(top)) : top[0]);
  }
  return fail(why, "not a loop of the nest's top level"), std::nullopt;
}

std::optional<Stmt> register_tile(LoopNest& nest, const Stmt& top, int jam, int64_t jam_factor,
                                  std::string* why) {
  const auto* outer = std::get_if<For>(&top->node);
  if (!outer)
    return fail(why, "not a loop"), std::nullopt;
  std::vector<const For*> loops{outer};
  while (const auto* inner = std::get_if<For>(&loops.back()->body->node))
    loops.push_back(inner);
  const For& innermost = *loops.back();
  std::vector<const Store*> stores;
  bool other = false;
  each_stmt(innermost.body, [&](const Stmt& s) {
    if (const auto* st = std::get_if<Store>(&s->node))
      stores.push_back(st);
    other |= std::holds_alternative<Allocate>(s->node) || std::holds_alternative<Free>(s->node) ||
             std::holds_alternative<For>(s->node);
  });
  if (stores.size() != 1 || other)
    return fail(why, "the innermost loop's body is not one store"), std::nullopt;
  const Store& store = *stores[0];
  size_t jam_at = loops.size();
  for (size_t l = 0; l + 1 < loops.size(); ++l)
    if (loops[l]->var == jam)
      jam_at = l;
  if (jam_at == loops.size())
    return fail(why, "no loop over that variable outside the innermost one"), std::nullopt;
  if (std::none_of(store.index.begin(), store.index.end(),
                   [&](const Expr& i) { return Accesses::whole(i, jam, std::nullopt); }))
    return fail(why, "the variable is not a whole index of the store"), std::nullopt;
  for (const For* f : loops)
    if (!constant(f->begin) || !constant(f->end))
      return fail(why, "the loops' bounds are not constants"), std::nullopt;
  const For& jammed = *loops[jam_at];
  const int64_t extent = std::max<int64_t>(*constant(jammed.end) - *constant(jammed.begin), 0);
  if (jam_factor < 1 || extent % jam_factor != 0)
    return fail(why, "the factor does not divide the extent"), std::nullopt;
  bool stray_read = false;
  for (const Expr& e : {store.value, store.guard}) {
    if (!e)
      continue;
    for_each_node(e, [&](const Expr& x) {
      if (const auto* l = std::get_if<Load>(&x->node))
        stray_read |= l->tensor == store.buffer && (e == store.guard || l->index != store.index);
    });
  }
  if (stray_read)
    return fail(why, "the stored buffer is read elsewhere than the stored element"), std::nullopt;
  if (!cannot_fail(nest, top))
    return fail(why, "the loops may raise an error"), std::nullopt;
  // The tile, innermost first.
  auto around = [](const For& f, Stmt inside) {
    return make_for(f.var, f.begin, f.end, std::move(inside), f.kind);
  };
  int jo = nest.add_var(nest.vars[jam].name + ".o", DType::Int64);
  std::vector<Stmt> copies;
  for (int64_t k = 0; k < jam_factor; ++k) {
    Expr position = add(add(jammed.begin, mul(make_var(jo, DType::Int64), jam_factor)), int64(k));
    copies.push_back(
        make_let(jam, as_dtype(position, nest.vars[jam].dtype), around(innermost, innermost.body)));
  }
  Stmt body = make_block(std::move(copies));
  for (size_t l = loops.size() - 1; l-- > 0;)
    body = l == jam_at ? make_for(jo, int64(0), int64(extent / jam_factor), body, jammed.kind)
                       : around(*loops[l], body);
  return body;
}

std::optional<LoopNest> register_tile(const LoopNest& nest, int jam, int64_t jam_factor,
                                      std::string* why) {
  bool block = std::holds_alternative<Block>(nest.root->node);
  std::vector<Stmt> top = block ? std::get<Block>(nest.root->node).stmts : std::vector{nest.root};
  for (Stmt& s : top) {
    if (!find_loop(s, jam))
      continue;
    LoopNest out = nest;
    std::optional<Stmt> r = register_tile(out, s, jam, jam_factor, why);
    if (!r)
      return std::nullopt;
    s = *r;
    out.root = block ? make_block(std::move(top)) : top[0];
    return out;
  }
  return fail(why, "no loop over that variable"), std::nullopt;
}

std::vector<std::pair<int, int>> adjacent_loops(const LoopNest& nest) {
  std::vector<std::pair<int, int>> out;
  each_stmt(nest.root, [&](const Stmt& s) {
    if (const auto* b = std::get_if<Block>(&s->node))
      for (size_t k = 0; k + 1 < b->stmts.size(); ++k) {
        const auto* x = std::get_if<For>(&b->stmts[k]->node);
        const auto* y = std::get_if<For>(&b->stmts[k + 1]->node);
        if (x && y)
          out.emplace_back(x->var, y->var);
      }
  });
  return out;
}

std::optional<LoopNest> fuse(const LoopNest& nest, int first, int second, std::string* why) {
  std::optional<LoopNest> result;
  std::string reason = "the loops are not adjacent in one block";
  LoopNest out = nest;
  out.root = map_stmt(nest.root, [&](const Stmt& s) -> Stmt {
    const auto* block = std::get_if<Block>(&s->node);
    if (!block || result)
      return nullptr;
    for (size_t k = 0; k + 1 < block->stmts.size(); ++k) {
      const auto* a = std::get_if<For>(&block->stmts[k]->node);
      const auto* b = std::get_if<For>(&block->stmts[k + 1]->node);
      if (!a || !b || a->var != first || b->var != second)
        continue;
      auto ab = constant(a->begin), ae = constant(a->end);
      auto bb = constant(b->begin), be = constant(b->end);
      if (!ab || !ae || ab != bb || ae != be) {
        reason = "the loops' bounds differ or are not constants";
        return nullptr;
      }
      Stmt renamed = substitute_var(b->body, second, var_ref(nest, first));
      Accesses first_body, second_body_accesses;
      first_body.add(a->body);
      second_body_accesses.add(renamed);
      // Buffers one body stores and both touch must be separated.
      Accesses shared;
      shared.allocates = first_body.allocates || second_body_accesses.allocates;
      for (const Accesses* one : {&first_body, &second_body_accesses})
        for (const auto& [buffer, _] : one->stored) {
          auto x = first_body.at.find(buffer), y = second_body_accesses.at.find(buffer);
          if (x == first_body.at.end() || y == second_body_accesses.at.end())
            continue;
          shared.stored[buffer] = true;
          shared.at[buffer] = x->second;
          shared.at[buffer].insert(shared.at[buffer].end(), y->second.begin(), y->second.end());
        }
      if (!shared.separated({first}, &reason, std::pair{*ab, *ae - 1}))
        return nullptr;
      // The second body keeps its own variable, bound to the first's value,
      // so its error messages still name it.
      Stmt second_body =
          make_let(second, as_dtype(var_ref(nest, first), nest.vars[second].dtype), b->body);
      std::vector<Stmt> stmts = block->stmts;
      stmts[k] = make_for(first, a->begin, a->end, make_block({a->body, second_body}), a->kind);
      stmts.erase(stmts.begin() + static_cast<long>(k) + 1);
      result.emplace();
      return make_block(std::move(stmts));
    }
    return nullptr;
  });
  if (!result)
    return fail(why, reason), std::nullopt;
  return out;
}

} // namespace teval::core
