// Guarded reads as plain reads of a padded copy (see transform.h).
#include "core/bounds.h"
#include "core/transform.h"
#include "core/transform_util.h"

#include <algorithm>
#include <bit>
#include <map>

namespace teval::core {

using namespace detail;

namespace {

using Wide = __int128;

// One guarded read: select(cond, buffer[index], pad).
struct Guarded {
  const ExprNode* node;
  int buffer;
  std::vector<Expr> index;
  Expr pad; // a constant
  // Per dimension: the index's range [lo, hi] and the condition's bounds
  // [low, high] on it (the dtype's limits where it sets none).
  std::vector<IntRange> range, box;
};

// An index the padded read may evaluate where the condition is false:
// integer arithmetic on variables and constants, which cannot fail where
// its range is known.
bool plain_index(const Expr& e) {
  if (std::holds_alternative<Const>(e->node) || std::holds_alternative<VarRef>(e->node))
    return true;
  if (const auto* c = std::get_if<Cast>(&e->node))
    return is_integer(c->value->dtype) && plain_index(c->value);
  const auto* a = std::get_if<Apply>(&e->node);
  if (!a || (a->op != Op::Add && a->op != Op::Sub && a->op != Op::Mul && a->op != Op::Neg &&
             a->op != Op::Max && a->op != Op::Min))
    return false;
  return std::all_of(a->args.begin(), a->args.end(), plain_index);
}

// The conjuncts of \p cond (a tree of And).
void conjuncts(const Expr& cond, std::vector<Expr>& out) {
  const auto* a = std::get_if<Apply>(&cond->node);
  if (a && a->op == Op::And) {
    for (const Expr& x : a->args)
      conjuncts(x, out);
    return;
  }
  out.push_back(cond);
}

// Narrows \p box by conjunct \p c, a comparison of one of \p index with an
// integer constant; false when \p c is not one.
bool narrow(const Expr& c, const std::vector<Expr>& index, std::vector<IntRange>& box) {
  const auto* a = std::get_if<Apply>(&c->node);
  if (!a || a->args.size() != 2 || !is_integer(a->args[0]->dtype))
    return false;
  Op op = a->op;
  Expr x = a->args[0];
  std::optional<int64_t> k = constant(a->args[1]);
  if (!k) { // the constant first: mirror the comparison
    k = constant(a->args[0]);
    x = a->args[1];
    op = op == Op::Lt   ? Op::Gt
         : op == Op::Le ? Op::Ge
         : op == Op::Gt ? Op::Lt
         : op == Op::Ge ? Op::Le
                        : op;
  }
  if (!k || (op != Op::Lt && op != Op::Le && op != Op::Gt && op != Op::Ge))
    return false;
  Wide low = INT64_MIN, high = INT64_MAX;
  if (op == Op::Ge)
    low = *k;
  else if (op == Op::Gt)
    low = Wide(*k) + 1;
  else if (op == Op::Le)
    high = *k;
  else
    high = Wide(*k) - 1;
  bool matched = false;
  for (size_t d = 0; d < index.size(); ++d)
    if (same_value(index[d], x)) {
      matched = true;
      box[d].lo = static_cast<int64_t>(std::max<Wide>(box[d].lo, std::min<Wide>(low, INT64_MAX)));
      box[d].hi = static_cast<int64_t>(std::min<Wide>(box[d].hi, std::max<Wide>(high, INT64_MIN)));
    }
  return matched;
}

// \p e as a guarded read of \p nest that padding can replace, with the
// ranges where it is evaluated; a reason when it is not one.
std::optional<Guarded> guarded(const LoopNest& nest, const Expr& e, const RangeOf& range,
                               std::string& why) {
  const auto* s = std::get_if<Select>(&e->node);
  const auto* load = s ? std::get_if<Load>(&s->then->node) : nullptr;
  const auto* pad = s ? std::get_if<Const>(&s->otherwise->node) : nullptr;
  if (!load || !pad)
    return std::nullopt; // not a guarded read: nothing to say
  const Buffer& b = nest.buffers[load->tensor];
  if (s->otherwise->dtype != b.dtype)
    return why = "its default is not of " + b.name + "'s dtype", std::nullopt;
  Guarded g{e.get(), load->tensor, load->index, s->otherwise, {}, {}};
  for (const Expr& i : load->index) {
    std::optional<IntRange> r = plain_index(i) ? range(i) : std::nullopt;
    if (!r || r->lo == INT64_MIN || r->hi == INT64_MAX)
      return why = "an index of " + b.name + " is not arithmetic on known ranges", std::nullopt;
    g.range.push_back(*r);
    g.box.push_back({INT64_MIN, INT64_MAX});
  }
  std::vector<Expr> cs;
  conjuncts(s->cond, cs);
  for (const Expr& c : cs)
    if (!narrow(c, load->index, g.box))
      return why = "its condition is not bounds on " + b.name + "'s indices", std::nullopt;
  for (size_t d = 0; d < g.box.size(); ++d) {
    int64_t lo = std::max(g.box[d].lo, g.range[d].lo), hi = std::min(g.box[d].hi, g.range[d].hi);
    if (lo <= hi && (lo < 0 || hi >= b.shape[d]))
      return why = "where its condition holds, " + b.name + " may be read out of range",
             std::nullopt;
    // Where the index goes, the box means the same inside B's shape: reads
    // whose conditions bound different sides (x - 1 >= 0, x + 1 < n) then
    // share a copy.
    g.box[d] = {std::max<int64_t>(g.box[d].lo, 0), std::min(g.box[d].hi, b.shape[d] - 1)};
  }
  return g;
}

// What a padded copy holds: buffer's element where every index is inside
// box (within buffer's shape), pad elsewhere. Reads with the same content
// share one copy over the union of their ranges (a stencil's shifted
// windows of one input).
struct Content {
  int buffer;
  std::vector<IntRange> box;
  Scalar pad;
  bool operator<(const Content& o) const {
    auto key = [](const Content& c) {
      std::vector<int64_t> k{c.buffer, c.pad.i, std::bit_cast<int64_t>(c.pad.f)};
      for (const IntRange& r : c.box)
        k.insert(k.end(), {r.lo, r.hi});
      return k;
    };
    return key(*this) < key(o);
  }
};

// One padded copy: the indices' range it covers, its reads, and its buffer.
struct Copy {
  std::vector<IntRange> range;
  std::vector<const Guarded*> reads;
  Expr pad;
  int buffer = -1;
};

// \p i minus \p lo (> INT64_MIN), which cannot overflow where i >= lo,
// folding a constant term of \p i: `(x - 1) - (-1)` is `x`.
Expr shifted(const Expr& i, int64_t lo) {
  if (lo == 0)
    return i;
  const auto* a = std::get_if<Apply>(&i->node);
  std::optional<int64_t> k = a && a->args.size() == 2 && (a->op == Op::Add || a->op == Op::Sub)
                                 ? constant(a->args[1])
                                 : std::nullopt;
  Expr base = i;
  Wide offset = -Wide(lo);
  if (k) {
    base = a->args[0];
    offset += a->op == Op::Add ? Wide(*k) : -Wide(*k);
  }
  if (offset == 0)
    return base;
  if (offset < int_min(base->dtype) || offset > int_max(base->dtype)) {
    base = make_cast(i, DType::Int64, i->span);
    offset = -Wide(lo);
  }
  return make_apply(Op::Add,
                    {base, make_const(Scalar::of_int(base->dtype, static_cast<int64_t>(offset)))},
                    i->span);
}

} // namespace

std::optional<std::vector<Stmt>> pad_guarded_reads(LoopNest& nest, const Stmt& top,
                                                   int64_t max_elements, std::string* why) {
  std::vector<Guarded> reads;
  std::string refused;
  each_node_in_scope(nest, top, [&](const Expr& e, const RangeOf& range) {
    std::string reason;
    if (std::optional<Guarded> g = guarded(nest, e, range, reason))
      reads.push_back(std::move(*g));
    else if (refused.empty())
      refused = reason;
  });
  // A node reached twice is padded over both places' ranges.
  std::map<const ExprNode*, Guarded> by_node;
  for (Guarded& g : reads) {
    auto [at, fresh] = by_node.try_emplace(g.node, g);
    for (size_t d = 0; !fresh && d < g.range.size(); ++d)
      at->second.range[d] = {std::min(at->second.range[d].lo, g.range[d].lo),
                             std::max(at->second.range[d].hi, g.range[d].hi)};
  }
  std::map<Content, Copy> copies;
  for (const auto& [node, g] : by_node) {
    bool stored = false;
    each_stmt(top, [&](const Stmt& st) {
      if (const auto* store = std::get_if<Store>(&st->node))
        stored |= store->buffer == g.buffer;
    });
    if (stored) {
      refused = nest.buffers[g.buffer].name + " is written where it is read";
      continue;
    }
    auto [at, fresh] = copies.try_emplace(
        Content{g.buffer, g.box, std::get<Const>(g.pad->node).value}, Copy{g.range, {}, g.pad});
    for (size_t d = 0; d < g.range.size(); ++d)
      at->second.range[d] = {std::min(at->second.range[d].lo, g.range[d].lo),
                             std::max(at->second.range[d].hi, g.range[d].hi)};
    at->second.reads.push_back(&g);
  }
  // No copy much larger than what it copies, whatever the indices' ranges,
  // and all of them together within the statement's budget.
  Wide budget = max_elements;
  std::map<const ExprNode*, const Copy*> rewrite;
  std::vector<Stmt> before, after;
  for (auto& [content, copy] : copies) {
    const Buffer b = nest.buffers[content.buffer]; // a copy: buffers are added below
    Shape shape;
    Wide elements = 1;
    for (const IntRange& r : copy.range) {
      Wide extent = Wide(r.hi) - r.lo + 1;
      elements = std::min<Wide>(elements * extent, Wide(INT64_MAX) + 1);
      shape.push_back(static_cast<int64_t>(std::min<Wide>(extent, INT64_MAX)));
    }
    Wide most = std::min<Wide>(budget, 4 * Wide(checked_numel(b.shape).value_or(0)) + 4096);
    if (elements > most) {
      refused = "a padded " + b.name + " would have " +
                std::to_string(static_cast<long long>(std::min<Wide>(elements, INT64_MAX))) +
                " elements (at most " + std::to_string(static_cast<long long>(most)) + ")";
      continue;
    }
    budget -= elements;
    copy.buffer = nest.add_buffer({b.name + "_padded", b.dtype, shape, BufferKind::Temp, b.span});
    const int p = copy.buffer;
    before.push_back(make_allocate(p, /*zeroed=*/false)); // the next statement writes it all
    const std::string prefix = b.name + "_p";
    auto origin = [&](const std::vector<Expr>& at) {
      std::vector<Expr> index;
      for (size_t d = 0; d < at.size(); ++d)
        index.push_back(shifted(at[d], copy.range[d].lo));
      return index;
    };
    // One statement writes all of P (so its Allocate need not zero it):
    // B's element where the index is inside B and the condition's box, k
    // elsewhere.
    std::vector<IntRange> inside;
    for (size_t d = 0; d < copy.range.size(); ++d)
      inside.push_back({std::max(content.box[d].lo, copy.range[d].lo),
                        std::min(content.box[d].hi, copy.range[d].hi)});
    const bool any =
        std::all_of(inside.begin(), inside.end(), [](IntRange r) { return r.lo <= r.hi; });
    before.push_back(box_loops(nest, prefix, copy.range, [&](const std::vector<Expr>& v) {
      Expr cond;
      for (size_t d = 0; any && d < v.size(); ++d) {
        auto bound = [&](Op op, int64_t k) {
          Expr c = make_apply(op, {v[d], int64(k)}, {}, DType::Bool);
          cond = cond ? make_apply(Op::And, {cond, c}, {}, DType::Bool) : c;
        };
        if (inside[d].lo > copy.range[d].lo)
          bound(Op::Ge, inside[d].lo);
        if (inside[d].hi < copy.range[d].hi)
          bound(Op::Le, inside[d].hi);
      }
      Expr value = !any   ? copy.pad
                   : cond ? make_select(cond, make_load(content.buffer, b.dtype, v), copy.pad)
                          : make_load(content.buffer, b.dtype, v);
      return make_store(p, origin(v), value, nullptr);
    }));
    after.push_back(make_free(p));
    for (const Guarded* g : copy.reads)
      rewrite[g->node] = &copy;
  }
  if (rewrite.empty())
    return fail(why, refused.empty() ? "no guarded read" : refused), std::nullopt;
  Stmt body = map_exprs(top, [&](const Expr& e) -> Expr {
    auto found = rewrite.find(e.get());
    if (found == rewrite.end())
      return nullptr;
    const Copy& copy = *found->second;
    const Guarded& g = by_node.at(e.get());
    std::vector<Expr> index;
    for (size_t d = 0; d < g.index.size(); ++d)
      index.push_back(shifted(g.index[d], copy.range[d].lo));
    return make_load(copy.buffer, e->dtype, std::move(index), e->span);
  });
  before.push_back(body);
  before.insert(before.end(), after.begin(), after.end());
  return before;
}

std::optional<LoopNest> pad_guarded_reads(const LoopNest& nest, int var, int64_t max_elements,
                                          std::string* why) {
  return rewrite_top(nest, var, why, [&](LoopNest& out, const Stmt& top) {
    return pad_guarded_reads(out, top, max_elements, why);
  });
}

namespace detail {

Stmt box_loops(LoopNest& nest, const std::string& prefix, const std::vector<IntRange>& box,
               const std::function<Stmt(const std::vector<Expr>&)>& store) {
  std::vector<int> vars;
  std::vector<Expr> refs;
  for (size_t d = 0; d < box.size(); ++d) {
    vars.push_back(nest.add_var(prefix + std::to_string(d), DType::Int64));
    refs.push_back(make_var(vars.back(), DType::Int64));
  }
  Stmt s = store(refs);
  for (size_t d = box.size(); d-- > 0;)
    s = make_for(vars[d], int64(box[d].lo), int64(box[d].hi + 1), s);
  return s;
}

bool zero_bits(const Scalar& v, DType t) {
  return is_float(t) ? std::bit_cast<uint64_t>(v.f) == 0 : v.i == 0;
}

} // namespace detail

} // namespace teval::core
