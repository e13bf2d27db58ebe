// Rows coalesced through a padded copy's row stride (see transform.h).
#include "core/bounds.h"
#include "core/transform.h"
#include "core/transform_util.h"

#include <algorithm>
#include <map>

namespace teval::core {

using namespace detail;

namespace {

// The variable \p e is (through integer casts), or -1.
int var_of(const Expr& e) {
  if (const auto* c = std::get_if<Cast>(&e->node))
    return is_integer(c->value->dtype) ? var_of(c->value) : -1;
  const auto* v = std::get_if<VarRef>(&e->node);
  return v ? v->var : -1;
}

// Whether every value of integer dtype \p from is one of \p to.
bool widens(DType from, DType to) {
  return is_integer(from) && is_integer(to) && int_min(to) <= int_min(from) &&
         int_max(to) >= int_max(from);
}

// When \p e is variable \p var plus or minus terms that do not mention it
// (`var + a`, `a + var`, `var - a`, through casts that keep every value),
// the terms as one int64 expression: `a`, `-a`, or a null Expr for none.
// Else nothing. (The statement's arithmetic cannot overflow, so the
// terms' int64 sum is the index's value; the walked statement's own reads
// are proved in range afterwards.)
std::optional<Expr> offset_from(const Expr& e, int var) {
  if (const auto* c = std::get_if<Cast>(&e->node))
    return widens(c->value->dtype, e->dtype) ? offset_from(c->value, var) : std::nullopt;
  if (const auto* v = std::get_if<VarRef>(&e->node))
    return v->var == var ? std::optional<Expr>(Expr()) : std::nullopt;
  const auto* a = std::get_if<Apply>(&e->node);
  if (!a || (a->op != Op::Add && a->op != Op::Sub) || a->args.size() != 2)
    return std::nullopt;
  auto with = [&](std::optional<Expr> rest, const Expr& term, bool negate) -> std::optional<Expr> {
    if (!rest || mentions(term, var))
      return std::nullopt;
    Expr t = term->dtype == DType::Int64 ? term : make_cast(term, DType::Int64, term->span);
    if (negate)
      t = make_apply(Op::Neg, {t}, term->span, std::nullopt, Overflow::Trap);
    if (!*rest)
      return t;
    return make_apply(Op::Add, {*rest, t}, term->span, std::nullopt, Overflow::Trap);
  };
  if (mentions(a->args[0], var))
    return with(offset_from(a->args[0], var), a->args[1], a->op == Op::Sub);
  if (a->op == Op::Add)
    return with(offset_from(a->args[1], var), a->args[0], false);
  return std::nullopt;
}

Expr i64(const Expr& e) {
  return e->dtype == DType::Int64 ? e : make_cast(e, DType::Int64, e->span);
}
Expr add(Expr a, Expr b) {
  return make_apply(Op::Add, {std::move(a), std::move(b)}, {}, std::nullopt, Overflow::Trap);
}
Expr mul(Expr a, int64_t k) {
  return make_apply(Op::Mul, {std::move(a), int64(k)}, {}, std::nullopt, Overflow::Trap);
}

// Every index of \p shape.
std::vector<IntRange> whole(const Shape& shape) {
  std::vector<IntRange> box;
  for (int64_t e : shape)
    box.push_back({0, e - 1});
  return box;
}

// A read through the rows: B[..., h + a, w + b].
struct RowRead {
  const ExprNode* node;
  int buffer;
  std::vector<Expr> index; // the read's index
  Expr a, b;               // the offsets, int64 (null: none)
};

} // namespace

std::optional<std::vector<Stmt>> coalesce_rows(LoopNest& nest, const std::vector<Stmt>& tops,
                                               size_t at, int64_t row, std::string* why) {
  if (at >= tops.size() || row < 1)
    return fail(why, "no such statement"), std::nullopt;
  const Stmt& top = tops[at];
  // A chain of loops with constant bounds around one unguarded store.
  std::vector<const For*> loops;
  const Stmt* s = &top;
  while (const auto* f = std::get_if<For>(&(*s)->node)) {
    if (!constant(f->begin) || !constant(f->end))
      return fail(why, "a loop's bounds are not constants"), std::nullopt;
    loops.push_back(f);
    s = &f->body;
  }
  const auto* store = std::get_if<Store>(&(*s)->node);
  if (loops.empty() || !store || store->guard)
    return fail(why, "not a chain of loops around one store"), std::nullopt;
  const Buffer target = nest.buffers[store->buffer];
  const size_t n = store->index.size();
  if (n < 2 || target.kind == BufferKind::Input)
    return fail(why, "the store has fewer than two indices"), std::nullopt;
  // h and w: adjacent loops over the store's last two dimensions, whole.
  const int h = var_of(store->index[n - 2]), w = var_of(store->index[n - 1]);
  auto position = [&](int v) {
    auto found =
        std::find_if(loops.begin(), loops.end(), [&](const For* f) { return f->var == v; });
    return found - loops.begin();
  };
  const auto ih = static_cast<size_t>(position(h)), iw = static_cast<size_t>(position(w));
  if (h < 0 || w < 0 || iw >= loops.size() || iw != ih + 1)
    return fail(why, "the store's last two indices are not two loops, one inside the other"),
           std::nullopt;
  const int64_t height = target.shape[n - 2], width = target.shape[n - 1];
  for (size_t i : {ih, iw}) {
    const int64_t extent = i == ih ? height : width;
    if (*constant(loops[i]->begin) != 0 || *constant(loops[i]->end) != extent ||
        !whole_index(store->index[n - 2 + (i == iw)], loops[i]->var, std::pair{0, extent - 1}))
      return fail(why, "a row loop does not cover its dimension"), std::nullopt;
  }
  for (size_t d = 0; d + 2 < n; ++d)
    if (mentions(store->index[d], h) || mentions(store->index[d], w))
      return fail(why, "a row variable indexes another dimension"), std::nullopt;
  if (!cannot_fail(nest, top))
    return fail(why, "the statement may raise an error"), std::nullopt;

  // The reads of the value: the target at the store's index, and temps read
  // at [..., h + a, w + b] with one row stride.
  std::vector<RowRead> reads;
  std::vector<const ExprNode*> own; // reads of the target
  int64_t stride = -1;
  std::string refused;
  each_node_in_scope(nest, top, [&](const Expr& e, const RangeOf&) {
    const auto* l = std::get_if<Load>(&e->node);
    if (!l || !refused.empty())
      return;
    if (l->tensor == store->buffer) {
      bool same = l->index.size() == n;
      for (size_t d = 0; same && d < n; ++d)
        same = same_value(l->index[d], store->index[d]);
      if (!same)
        refused = target.name + " is read elsewhere than where it is stored";
      own.push_back(e.get());
      return;
    }
    if (!mentions(l->index, h) && !mentions(l->index, w))
      return;
    const Buffer& b = nest.buffers[l->tensor];
    const size_t m = l->index.size();
    std::optional<Expr> a, c;
    if (b.kind != BufferKind::Temp || m < 2 || !(a = offset_from(l->index[m - 2], h)) ||
        !(c = offset_from(l->index[m - 1], w)) || mentions(l->index[m - 2], w) ||
        mentions(l->index[m - 1], h) || mentions(std::span(l->index).first(m - 2), h) ||
        mentions(std::span(l->index).first(m - 2), w)) {
      refused = "a read of " + b.name + " is not a temp's [..., row + a, column + b]";
      return;
    }
    if (stride >= 0 && b.shape[m - 1] != stride) {
      refused = "the reads have different row strides";
      return;
    }
    stride = b.shape[m - 1];
    reads.push_back({e.get(), l->tensor, l->index, *a, *c});
  });
  bool nested = false; // a read inside an index
  for (const Expr& e : own_exprs(*s))
    for_each_node(e, [&](const Expr& x) {
      if (const auto* l = std::get_if<Load>(&x->node))
        for (const Expr& i : l->index)
          for_each_node(i, [&](const Expr& y) { nested |= std::holds_alternative<Load>(y->node); });
    });
  if (nested)
    return fail(why, "a read inside an index"), std::nullopt;
  if (!refused.empty())
    return fail(why, refused), std::nullopt;
  if (reads.empty())
    return fail(why, "no read of a temp through the rows"), std::nullopt;
  if (stride < width)
    return fail(why, "the temp's rows are narrower than the output's"), std::nullopt;
  for (const RowRead& r : reads) {
    bool stored = false;
    each_stmt(top, [&](const Stmt& st) {
      const auto* x = std::get_if<Store>(&st->node);
      stored |= x && x->buffer == r.buffer;
    });
    if (stored)
      return fail(why, nest.buffers[r.buffer].name + " is written where it is read"), std::nullopt;
  }

  LoopNest work = nest;
  // The rows walked as one: q = h * stride + w over [0, extent), the
  // columns from width to stride computed and thrown away; q = qo * row + qi.
  const int64_t rows_walked = (height * stride + row - 1) / row;
  const int64_t extent = rows_walked * row;
  const int qo = work.add_var(work.vars[h].name + "." + work.vars[w].name + ".o", DType::Int64);
  const int qi = work.add_var(work.vars[h].name + "." + work.vars[w].name + ".i", DType::Int64);
  const Expr q = add(mul(make_var(qo, DType::Int64), row), make_var(qi, DType::Int64));
  Shape shape(target.shape.begin(), target.shape.end() - 2);
  shape.push_back(rows_walked);
  shape.push_back(row);
  const int walked =
      work.add_buffer({target.name + "_rows", target.dtype, shape, BufferKind::Temp, target.span});
  std::vector<Expr> walked_index(store->index.begin(), store->index.end() - 2);
  walked_index.push_back(make_var(qo, DType::Int64));
  walked_index.push_back(make_var(qi, DType::Int64));

  // Each temp read through the rows becomes one dimension, the rows flat:
  // B[..., x, y] is B[..., x * stride + y] everywhere, with rows enough for
  // the last walked column's reads.
  std::map<int, int64_t> rows_needed;
  std::map<const ExprNode*, Expr> rewritten;
  for (const RowRead& r : reads) {
    Expr offset;
    if (r.a)
      offset = mul(r.a, stride);
    if (r.b)
      offset = offset ? add(offset, r.b) : r.b;
    std::vector<Expr> index(r.index.begin(), r.index.end() - 2);
    index.push_back(offset ? add(q, offset) : q);
    rewritten[r.node] = make_load(r.buffer, nest.buffers[r.buffer].dtype, std::move(index));
    rows_needed[r.buffer] = nest.buffers[r.buffer].shape.end()[-2];
  }
  // The reads' offsets, where they are evaluated.
  each_node_in_scope(nest, top, [&](const Expr& e, const RangeOf& range) {
    auto found = std::find_if(reads.begin(), reads.end(),
                              [&](const RowRead& r) { return r.node == e.get(); });
    if (found == reads.end())
      return;
    std::optional<IntRange> a = found->a ? range(found->a) : IntRange{};
    std::optional<IntRange> b = found->b ? range(found->b) : IntRange{};
    if (!a || !b || a->lo < 0 || b->lo < 0 || a->hi > height * 4 || b->hi > stride) {
      refused = "a read's offsets are not known small";
      return;
    }
    const int64_t last = extent - 1 + a->hi * stride + b->hi;
    rows_needed[found->buffer] = std::max(rows_needed[found->buffer], last / stride + 1);
  });
  if (!refused.empty())
    return fail(why, refused), std::nullopt;
  for (auto& [b, rows] : rows_needed) {
    if (rows > 2 * nest.buffers[b].shape.end()[-2] + 2)
      return fail(why, nest.buffers[b].name + " would grow too much"), std::nullopt;
    Shape flat(work.buffers[b].shape.begin(), work.buffers[b].shape.end() - 2);
    flat.push_back(rows * stride);
    work.buffers[b].shape = flat;
  }
  auto flat_index = [&](const std::vector<Expr>& index) {
    std::vector<Expr> out(index.begin(), index.end() - 2);
    out.push_back(add(mul(i64(index.end()[-2]), stride), i64(index.back())));
    return out;
  };
  auto flat_load = [&](const Expr& e) {
    return make_load(std::get<Load>(e->node).tensor, e->dtype,
                     flat_index(std::get<Load>(e->node).index), e->span);
  };
  auto flatten = [&](const Stmt& st) {
    Stmt out = map_exprs(st, [&](const Expr& e) -> Expr {
      const auto* l = std::get_if<Load>(&e->node);
      return l && rows_needed.count(l->tensor) ? flat_load(e) : nullptr;
    });
    // Stores keep their own index: rebuild those that write a flattened temp.
    return map_stmt(out, [&](const Stmt& x) -> Stmt {
      const auto* t = std::get_if<Store>(&x->node);
      return t && rows_needed.count(t->buffer)
                 ? make_store(t->buffer, flat_index(t->index), t->value, t->guard)
                 : nullptr;
    });
  };

  // The statement over the walked rows.
  Expr value = replace(store->value, [&](const Expr& e) -> Expr {
    if (std::find(own.begin(), own.end(), e.get()) != own.end())
      return make_load(walked, e->dtype, walked_index, e->span);
    auto found = rewritten.find(e.get());
    if (found != rewritten.end())
      return found->second;
    const auto* l = std::get_if<Load>(&e->node);
    return l && rows_needed.count(l->tensor) ? flat_load(e) : nullptr;
  });
  if (mentions(value, h) || mentions(value, w))
    return fail(why, "a row variable is used outside the reads"), std::nullopt;
  Stmt body = make_store(walked, walked_index, value);
  for (size_t i = loops.size(); i-- > 0;) {
    const For& f = *loops[i];
    if (i == iw)
      body = make_for(qi, int64(0), int64(row), body, f.kind);
    else if (i == ih)
      body = make_for(qo, int64(0), int64(rows_walked), body, f.kind);
    else
      body = make_for(f.var, f.begin, f.end, body, f.kind);
  }
  if (!cannot_fail(work, body))
    return fail(why, "the walked rows' reads are not proved in range"), std::nullopt;

  // The walked buffer starts as the target does: a fill with the constant
  // of the target's fill before, else a copy of the target.
  const std::vector<IntRange> box = whole(target.shape);
  const std::string prefix = target.name + "_r";
  // A store at element v of the target and the walked point it is:
  // `let q = v_h * stride + v_w` around it, at [..., q / row, q % row] (one
  // q for both, which the code generator reads as the flat position q).
  auto at_walked = [&](const std::vector<Expr>& v,
                       const std::function<Stmt(const std::vector<Expr>&)>& store) {
    const int q = work.add_var(prefix + "q", DType::Int64);
    const Expr flat = make_var(q, DType::Int64);
    std::vector<Expr> index(v.begin(), v.end() - 2);
    index.push_back(make_apply(Op::Div, {flat, int64(row)}, {}, std::nullopt, Overflow::Trap));
    index.push_back(make_apply(Op::Mod, {flat, int64(row)}, {}, std::nullopt, Overflow::Trap));
    return make_let(q, add(mul(v.end()[-2], stride), v.back()), store(index));
  };
  std::vector<Stmt> before;
  // The rows a temp gained, which only thrown-away columns read, written
  // (zeros) before them: every element of the temp is still written before
  // it is read (its Allocate need not zero it).
  for (const auto& [b, rows] : rows_needed) {
    const Buffer& grown = work.buffers[b];
    const int64_t had = nest.buffers[b].shape.end()[-2] * stride;
    if (rows * stride == had)
      continue;
    std::vector<IntRange> gained = whole(grown.shape);
    gained.back().lo = had;
    const Scalar zero = constant(grown.dtype, 0);
    before.push_back(box_loops(work, grown.name + "_g", gained, [&](const std::vector<Expr>& v) {
      return make_store(b, v, make_const(zero));
    }));
  }
  before.push_back(make_allocate(walked));
  if (!own.empty()) {
    size_t prev = at;
    while (prev > 0 && !touches_buffer(tops[prev - 1], store->buffer))
      --prev;
    const Store* fill = prev > 0 ? covering_store(nest, tops[prev - 1]) : nullptr;
    const Const* k =
        fill && fill->buffer == store->buffer ? std::get_if<Const>(&fill->value->node) : nullptr;
    if (!k)
      before.push_back(box_loops(work, prefix, box, [&](const std::vector<Expr>& v) {
        return at_walked(v, [&](const std::vector<Expr>& index) {
          return make_store(walked, index, make_load(store->buffer, target.dtype, v));
        });
      }));
    else // all of it, so that its Allocate need not zero it
      before.push_back(box_loops(work, prefix, whole(shape), [&](const std::vector<Expr>& v) {
        return make_store(walked, v, fill->value);
      }));
  }
  Stmt back = box_loops(work, prefix, box, [&](const std::vector<Expr>& v) {
    return at_walked(v, [&](const std::vector<Expr>& index) {
      return make_store(store->buffer, v, make_load(walked, target.dtype, index));
    });
  });
  if (!cannot_fail(work, back) || (before.size() > 1 && !cannot_fail(work, before[1])))
    return fail(why, "the copies of the walked rows are not proved in range"), std::nullopt;

  std::vector<Stmt> out;
  for (size_t i = 0; i < tops.size(); ++i) {
    if (i != at) {
      out.push_back(flatten(tops[i]));
      continue;
    }
    out.insert(out.end(), before.begin(), before.end());
    out.push_back(body);
    out.push_back(back);
    out.push_back(make_free(walked));
  }
  nest = std::move(work);
  return out;
}

} // namespace teval::core
