// Schedules for speed (see schedule.h).
#include "core/schedule.h"

#include "core/bounds.h"
#include "core/transform.h"
#include "core/transform_util.h"

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
        if (!l || !mentions(l->index, var))
          return;
        any = true;
        all &= steps_with(l->index.back(), var) &&
               !mentions(std::span(l->index).first(l->index.size() - 1), var);
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
      reads(innermost->body, column) != Reads::Stream && !mentions(store->index, inner)) {
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
// batch of one to three) first trades places with a longer loop inside it,
// where the nest cannot fail. A batch of four or more stays outside: each
// thread's images then stay in its cache while their output channels are
// computed (a 4x64x32x32 convolution: 140 -> 205 G MAC/s on two cores).
Stmt parallelize_outer(const LoopNest& nest, Stmt top, const ScheduleOptions& options,
                       std::string* log) {
  constexpr int64_t kFewTrips = 4;
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

// The vectorized output row of \p top: its innermost loop when that is a
// vectorized loop over the last index of the nest's one store, below at
// least one reduction loop (a loop the store's index does not name).
struct Row {
  std::vector<int> vars; // the chain, outer first
  const For* column;
  const Store* store;
  int64_t width; // the row's outputs, or -1 when not constant
  int64_t bytes; // and their size
};
std::optional<Row> vector_row(const LoopNest& nest, const Stmt& top) {
  Row r;
  r.vars = chain(std::get<For>(top->node));
  r.column = find_loop(top, r.vars.back());
  r.store = only_store(r.column->body);
  if (r.column->kind != LoopKind::Vectorized || !r.store || r.vars.size() < 2 ||
      mentions(r.store->index, r.vars[r.vars.size() - 2]))
    return std::nullopt;
  r.width = points(top, {r.column->var});
  r.bytes = r.width * size_bytes(nest.buffers[r.store->buffer].dtype);
  return r;
}

// \p tiled with the reduction loop directly around its \p copies (a
// convolution's KW) marked to be unrolled (LoopKind::Unrolled) when it is
// short and the copies few: at most 12 vector loops in all, as each is
// vectorized on its own (a 56-wide convolution's rows walked as one, 4
// copies times 3: 111 -> 120 G MAC/s on one core, 20 -> 24 ms to compile;
// a 32-wide one's 8 copies times 3 took 31 ms).
Stmt unroll_short_reduction(const LoopNest& nest, const Stmt& tiled, int64_t copies,
                            std::string* log) {
  constexpr int64_t kVectorLoops = 12;
  const std::vector<int> vars = chain(std::get<For>(tiled->node));
  const For* around = find_loop(tiled, vars.back());
  const int64_t trips = points(tiled, {around->var});
  if (around->kind != LoopKind::Serial || trips < 2 || trips * copies > kVectorLoops ||
      !std::holds_alternative<Block>(around->body->node))
    return tiled;
  note(log, "unroll " + nest.vars[around->var].name);
  return detail::replace_loop_in(tiled, around->var, [](const For& f) {
    return make_for(f.var, f.begin, f.end, f.body, LoopKind::Unrolled);
  });
}

// Register tiling (core::register_tile) of a nest whose vectorized output
// row, 64 outputs at most and whole vectors (64 bytes on AVX-512; or one
// of half that size), is innermost below reduction loops: 2 to 8 rows of
// another output loop above the reductions (a factor of its extent) with
// it, so that up to half the target's vector registers (16 of AVX-512's
// 32) hold accumulators across the reductions (a multiply, an add and a
// vector read or two per pair of accumulators). The
// jammed loop is the one whose copies share the most vector reads (the
// fewest loads naming both it and the vectorized loop), innermost on ties.
std::optional<Stmt> tile_registers(LoopNest& nest, const Stmt& top, const ScheduleOptions& target,
                                   std::string* log) {
  const int64_t vector = target.vector_bytes;
  std::optional<Row> row = vector_row(nest, top);
  // A longer row is left whole: a tile of its columns walks the other
  // operand across rows (a 512^3 matmul ran at 60% with 64-wide tiles).
  // A row of partial vectors is split first (tile_rows).
  if (!row || row->width <= 0 || row->width > 64 ||
      (row->bytes % vector != 0 && row->bytes != vector / 2))
    return std::nullopt;
  const std::vector<int>& vars = row->vars;
  const For* column = row->column;
  const Store* store = row->store;
  const int64_t vectors = std::max<int64_t>(row->bytes / vector, 1);
  auto shared_reads = [&](int var) {
    int n = 0;
    for_each_node(store->value, [&](const Expr& x) {
      const auto* l = std::get_if<Load>(&x->node);
      n += l && mentions(l->index, var) && mentions(l->index, column->var);
    });
    return n;
  };
  const int64_t accumulators = std::max<int64_t>(target.vector_registers / 2, 2);
  int jam = -1;
  int64_t factor = 0;
  for (size_t l = 0; l + 1 < vars.size() && mentions(store->index, vars[l]); ++l) {
    int64_t trips = points(top, {vars[l]});
    // Up to 16 accumulators on AVX-512 (a 32-wide convolution's 2 vectors
    // x 8 output channels: 110 -> 126 G MAC/s on one core, against 12's 2 x
    // 4); a row of one vector jams up to 8 copies (the 8-wide remainder of
    // a 56-wide convolution: 4 chains of additions left the adders idle).
    for (int64_t k = std::min<int64_t>(accumulators / vectors, 8); k >= 2; --k)
      if (trips % k == 0 && k * vectors <= accumulators && (l > 0 || trips / k >= 2)) {
        if (jam < 0 || shared_reads(vars[l]) <= shared_reads(jam))
          jam = vars[l], factor = k;
        break;
      }
  }
  if (jam < 0)
    return std::nullopt;
  std::string why;
  std::optional<Stmt> r = register_tile(nest, top, jam, factor, &why);
  if (!r)
    return note(log, "no register tile: " + why), std::nullopt;
  note(log, "register tile " + std::to_string(row->width) + " " + nest.vars[column->var].name +
                " x " + std::to_string(factor) + " " + nest.vars[jam].name);
  return unroll_short_reduction(nest, *r, factor, log);
}

// \p top register-tiled: as it is, or, for a row of whole vectors and a
// remainder (56 floats: three 64-byte vectors and 8 floats), split into
// two statements (core::split_range), each tiled where its width allows.
// Untiled, the remainder's control flow kept the accumulators in memory.
std::vector<Stmt> tile_rows(LoopNest& nest, const Stmt& top, const ScheduleOptions& target,
                            std::string* log) {
  if (std::optional<Stmt> tiled = tile_registers(nest, top, target, log))
    return {*tiled};
  const int64_t vector = target.vector_bytes;
  std::optional<Row> row = vector_row(nest, top);
  if (!row || row->width <= 0 || row->width > 64 || row->bytes <= vector ||
      row->bytes % vector == 0)
    return {top};
  const int var = row->column->var;
  const int64_t lanes = vector / (row->bytes / row->width); // elements per vector
  const int64_t whole = row->bytes / vector * lanes;
  const int64_t at = std::get<Const>(row->column->begin->node).value.i + whole;
  std::string why;
  std::optional<std::pair<Stmt, Stmt>> parts = split_range(nest, top, var, at, &why);
  if (!parts)
    return note(log, "no split of " + nest.vars[var].name + ": " + why), std::vector{top};
  std::string tiled;
  std::optional<Stmt> main = tile_registers(nest, parts->first, target, &tiled);
  if (!main)
    return {top};
  note(log, "split " + nest.vars[var].name + " at " + std::to_string(at) +
                ": whole vectors, then the rest");
  if (log)
    *log += tiled;
  std::optional<Stmt> rest = tile_registers(nest, parts->second, target, log);
  return {*main, rest.value_or(parts->second)};
}

// \p tops with each statement's guarded reads made reads of padded copies
// (core::pad_guarded_reads) where the statement has at least \p ratio
// points per element of its copies together.
std::vector<Stmt> pad_reads(LoopNest& nest, const std::vector<Stmt>& tops, int64_t ratio,
                            std::string* log) {
  std::vector<Stmt> out;
  for (const Stmt& top : tops) {
    const auto* f = std::get_if<For>(&top->node);
    int64_t n = f ? points(top, chain(*f)) : -1;
    std::string why;
    size_t buffers = nest.buffers.size();
    std::optional<std::vector<Stmt>> padded =
        n > 0 ? pad_guarded_reads(nest, top, n / ratio, &why) : std::nullopt;
    if (!padded) {
      if (n > 0 && why != "no guarded read")
        note(log, "no padding: " + why);
      out.push_back(top);
      continue;
    }
    for (size_t b = buffers; b < nest.buffers.size(); ++b)
      note(log,
           "pad guarded reads into " + nest.buffers[b].name + to_string(nest.buffers[b].shape));
    out.insert(out.end(), padded->begin(), padded->end());
  }
  return out;
}

// \p tops with each statement whose output rows are partial vectors (a
// 56-wide convolution's: three 64-byte vectors and half of one) walked as
// one row through its padded copies (core::coalesce_rows), in rows of 4
// vectors, where it has at least ScheduleOptions::coalesce_points_per_element
// points per output element.
std::vector<Stmt> coalesce(LoopNest& nest, std::vector<Stmt> tops, const ScheduleOptions& target,
                           std::string* log) {
  const int64_t vector = target.vector_bytes, ratio = target.coalesce_points_per_element;
  for (size_t i = 0; i < tops.size(); ++i) {
    const auto* f = std::get_if<For>(&tops[i]->node);
    const Store* store = f ? only_store(tops[i]) : nullptr;
    if (!store || store->index.size() < 2)
      continue;
    const Buffer target = nest.buffers[store->buffer]; // a copy: coalesce_rows replaces the nest
    const int64_t bytes = size_bytes(target.dtype);
    const int64_t row = target.shape.back() * bytes;
    std::optional<int64_t> elements = checked_numel(target.shape);
    const int64_t n = points(tops[i], chain(*f));
    if (row <= vector || row % vector == 0 || !elements || n < 0 || n / ratio < *elements)
      continue;
    std::string why;
    const size_t before = tops.size();
    std::optional<std::vector<Stmt>> walked =
        coalesce_rows(nest, tops, i, 4 * vector / bytes, &why);
    if (!walked) {
      if (why != "no read of a temp through the rows")
        note(log, "rows of " + target.name + " not walked as one: " + why);
      continue;
    }
    const Buffer& rows = nest.buffers.back();
    note(log,
         "walk the rows of " + target.name + " as one, into " + rows.name + to_string(rows.shape));
    tops = std::move(*walked);
    i += tops.size() - before; // past the statements made of it
  }
  return tops;
}

// \p nest with each top-level Allocate whose buffer the next statement
// that touches it stores all of, unread (a padded copy, a fill), not
// zeroed: a serial memset of a 56-wide convolution's padded copy and
// walked rows (1.7 MB) was 4% of its two-core time.
LoopNest unset_allocates(LoopNest nest, std::string* log) {
  if (!nest.root || !std::holds_alternative<Block>(nest.root->node))
    return nest;
  std::vector<Stmt> stmts = std::get<Block>(nest.root->node).stmts;
  const detail::BufferTouches touches(stmts);
  bool changed = false;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const auto* a = std::get_if<Allocate>(&stmts[i]->node);
    if (!a || !a->zeroed)
      continue;
    const size_t next = touches.next(a->buffer, i);
    const Store* all = next < stmts.size() ? detail::covering_store(nest, stmts[next]) : nullptr;
    if (!all || all->buffer != a->buffer)
      continue;
    note(log, "allocate " + nest.buffers[a->buffer].name +
                  " unzeroed: the next statement writes it all");
    stmts[i] = make_allocate(a->buffer, false);
    changed = true;
  }
  if (changed)
    nest.root = make_block(std::move(stmts));
  return nest;
}

} // namespace

LoopNest schedule(const LoopNest& nest, const ScheduleOptions& options, std::string* log) {
  if (!nest.root)
    return nest;
  // Each top-level loop on its own: the nest is copied once (register
  // tiles add variables to the copy).
  std::vector<int> dropped;
  LoopNest out = drop_dead_fills(nest, &dropped);
  for (int b : dropped)
    note(log, "drop the fill of " + nest.buffers[b].name + ": the next statement writes it all");
  bool block = std::holds_alternative<Block>(out.root->node);
  std::vector<Stmt> tops = block ? std::get<Block>(out.root->node).stmts : std::vector{out.root};
  std::vector<Stmt> scheduled;
  if (options.pad_points_per_element > 0)
    tops = pad_reads(out, tops, options.pad_points_per_element, log);
  if (options.vectorize && options.coalesce_points_per_element > 0)
    tops = coalesce(out, std::move(tops), options, log);
  for (Stmt& top : tops) {
    if (!std::holds_alternative<For>(top->node)) {
      scheduled.push_back(top);
      continue;
    }
    if (options.vectorize)
      top = vectorize_contiguous(out, top, options, log);
    top = parallelize_outer(out, top, options, log);
    if (!options.vectorize || !options.register_tiles) {
      scheduled.push_back(top);
      continue;
    }
    for (Stmt& part : tile_rows(out, top, options, log))
      scheduled.push_back(std::move(part));
  }
  out.root = block || scheduled.size() > 1 ? make_block(std::move(scheduled)) : scheduled[0];
  // Fills that walked rows' copies made dead.
  dropped.clear();
  LoopNest final = drop_dead_fills(out, &dropped);
  for (int b : dropped)
    note(log, "drop the fill of " + out.buffers[b].name + ": a later statement writes it all");
  return unset_allocates(final, log);
}

} // namespace teval::core
