// Tile contractions: their accesses, constraints and the exact bounding box
// of their valid points.
#include "parser/tile/tile_elaborator.h"

#include "core/affine.h"

#include <set>

namespace teval::parser::tile {

Poly Elaborator::new_index(const std::string& name, Span span) {
  indexes_.push_back({name, span});
  return Poly::variable(static_cast<int>(indexes_.size()) - 1);
}

// The index list of an access `A(i, j)`, `A[i, j]`, `A[()]`.
std::vector<ast::ExprPtr> Elaborator::access_indices(const ast::Expr& e) {
  if (const auto* c = std::get_if<ast::Call>(&e.node); c && !c->method)
    return c->args;
  if (const auto* s = std::get_if<ast::Subscript>(&e.node)) {
    std::vector<ast::ExprPtr> index = s->indices;
    if (index.size() == 1)
      if (const auto* t = std::get_if<ast::Tuple>(&index[0]->node))
        index = t->items; // O[()] and O[(i, j)]
    return index;
  }
  throw Error(ErrorKind::Syntax, e.span, "expected a tensor access such as A(i, j)");
}

Value Elaborator::access_base(const ast::Expr& e) {
  if (const auto* c = std::get_if<ast::Call>(&e.node))
    return lookup(c->callee, c->callee_span);
  return evaluate(*std::get<ast::Subscript>(e.node).base);
}

Poly Elaborator::index_poly(const ast::Expr& e) {
  Value v = evaluate(e);
  if (const auto* p = std::get_if<PolyV>(&v.v))
    return p->p;
  if (const auto* i = std::get_if<IntV>(&v.v))
    return Poly::constant(i->v);
  throw Error(ErrorKind::Type, e.span, "an index is a TensorIndex expression, not " + kind_name(v));
}

Access Elaborator::access(const ast::Expr& e) {
  std::vector<ast::ExprPtr> index = access_indices(e);
  Value base = access_base(e);
  int id = tensor_of(base, "", e.span);
  const core::TensorDecl& t = k_.tensors[id];
  if (index.size() != t.shape.size())
    throw Error(ErrorKind::Shape, e.span,
                "`" + t.name + "` has rank " + std::to_string(t.shape.size()) + " (shape " +
                    core::to_string(t.shape) + ") but is indexed with " +
                    std::to_string(index.size()));
  Access a{id, {}, e.span};
  for (const ast::ExprPtr& i : index)
    a.index.push_back(index_poly(*i));
  return a;
}

void Elaborator::contraction(const ast::Stmt& s, const ast::Expr& target, const std::string& op,
                             Span op_span, const ast::Expr& value) {
  static const std::map<std::string, core::Aggregation> kAggregations = {
      {"+=", core::Aggregation::Sum},
      {"*=", core::Aggregation::Product},
      {">=", core::Aggregation::Max},
      {"<=", core::Aggregation::Min},
      {"=", core::Aggregation::Assign}};
  auto agg = kAggregations.find(op);
  if (agg == kAggregations.end())
    throw Error(ErrorKind::Unsupported, op_span,
                "`" + op + "` is not a Tile aggregation; use +=, *=, >=, <= or =");
  std::vector<ast::ExprPtr> index = access_indices(target);
  Value out = access_base(target);
  auto* cell = std::get_if<OutputV>(&out.v);
  if (!cell)
    throw Error(ErrorKind::Type, target.span,
                "a contraction writes a TensorOutput, not " + kind_name(out));
  OutputCell& o = *cell->cell;
  if (!o.pending.expired() || o.tensor)
    throw Error(ErrorKind::Name, target.span, "`" + o.name + "` already has a contraction");
  if (index.size() != o.shape.size())
    throw Error(ErrorKind::Shape, target.span,
                "the contraction writes `" + o.name + "` with " + std::to_string(index.size()) +
                    (index.size() == 1 ? " index" : " indices") + " but it was declared with " +
                    std::to_string(o.shape.size()) + " dimensions " + core::to_string(o.shape))
        .note(o.span, "declared here");
  std::vector<Poly> out_index;
  for (const ast::ExprPtr& i : index)
    out_index.push_back(index_poly(*i));
  std::shared_ptr<Pending> p =
      begin_contraction(cell->cell, agg->second, std::move(out_index), target.span, s.span, value);
  p->constraints = std::move(o.early_constraints);
}

std::shared_ptr<Pending> Elaborator::begin_contraction(const std::shared_ptr<OutputCell>& out,
                                                       core::Aggregation aggregation,
                                                       std::vector<Poly> out_index, Span out_span,
                                                       Span span, const ast::Expr& value) {
  auto p = std::make_shared<Pending>();
  p->out = out;
  p->aggregation = aggregation;
  p->out_index = std::move(out_index);
  p->out_span = out_span;
  p->span = span;
  combination(value, *p);
  out->pending = p;
  pending_.push_back(p);
  return p;
}

void Elaborator::combination(const ast::Expr& value, Pending& p) {
  if (const auto* b = std::get_if<ast::Binary>(&value.node)) {
    const char* op = b->op == ast::BinaryOp::Add   ? "+"
                     : b->op == ast::BinaryOp::Mul ? "*"
                     : b->op == ast::BinaryOp::Eq  ? "=="
                                                   : nullptr;
    if (!op)
      throw Error(ErrorKind::Unsupported, b->op_span,
                  "a contraction combines two tensors with +, * or ==, or three with "
                  "cond(A, B, C)");
    p.combination = op;
    p.accesses = {access(*b->lhs), access(*b->rhs)};
    return;
  }
  if (const auto* c = std::get_if<ast::Call>(&value.node); c && !c->method && c->callee == "cond") {
    if (c->args.size() != 3)
      throw Error(ErrorKind::Syntax, c->callee_span, "cond takes three tensor accesses");
    p.combination = "cond";
    p.accesses = {access(*c->args[0]), access(*c->args[1]), access(*c->args[2])};
    return;
  }
  p.accesses = {access(value)};
}

void Elaborator::add_constraint(const ast::Call& c) {
  if (c.args.size() != 2)
    throw Error(ErrorKind::Syntax, c.callee_span, "add_constraint takes one constraint");
  Value out = evaluate(*c.args[0]);
  auto* cell = std::get_if<OutputV>(&out.v);
  if (!cell)
    throw Error(ErrorKind::Type, c.args[0]->span,
                "constraints belong to a TensorOutput's contraction, not to " + kind_name(out));
  Value v = evaluate(*c.args[1]);
  auto* constraint = std::get_if<ConstraintV>(&v.v);
  if (!constraint)
    throw Error(ErrorKind::Type, c.args[1]->span,
                "a constraint is `index_expression < bound`, not " + kind_name(v));
  add_constraint_to(*cell->cell, *constraint, c.callee_span);
}

void Elaborator::add_constraint_to(OutputCell& o, const ConstraintV& constraint, Span span) {
  if (o.tensor)
    throw Error(ErrorKind::Syntax, span,
                "`" + o.name + "` was already used; add its constraints before using it");
  if (std::shared_ptr<Pending> pending = o.pending.lock())
    pending->constraints.push_back(constraint);
  else
    o.early_constraints.push_back(constraint);
}

void Elaborator::materialize_all() {
  for (const std::shared_ptr<Pending>& p : pending_)
    if (!p->out->tensor)
      materialize(*p);
}

// ---------------------------------------------------------------------------
// Materialising a contraction

int Elaborator::materialize(Pending& p) {
  OutputCell& out = *p.out;
  // The statement's variables: output indices first, then the right-hand
  // side's, in order of appearance.
  std::map<int, int> var;
  std::vector<int> order;
  auto note = [&](const Poly& x) {
    for (int v : x.variables())
      if (var.emplace(v, static_cast<int>(order.size())).second)
        order.push_back(v);
  };
  for (const Poly& x : p.out_index)
    note(x);
  size_t data_vars = order.size();
  for (const Access& a : p.accesses)
    for (const Poly& x : a.index)
      note(x);
  for (const ConstraintV& c : p.constraints)
    for (int v : c.p.variables())
      if (!var.count(v))
        throw Error(ErrorKind::Name, c.span,
                    "index `" + indexes_[v].name +
                        "` appears only in constraints, not in the contraction");

  // The polyhedron: every access in range, every constraint satisfied.
  std::vector<core::LinearConstraint> system;
  auto in_range = [&](const Poly& x, int64_t extent, Span span) {
    if (!x.is_linear())
      return; // checked point by point; its bounds come from elsewhere
    std::optional<tile::ScaledLinear> s = tile::scaled(x, var);
    if (!s || __builtin_mul_overflow(s->denominator, extent - 1, &extent))
      throw Error(ErrorKind::Limit, span,
                  "the coefficients of this index expression are too large");
    // 0 <= (a.x + c) / d <= extent - 1
    system.push_back({s->coeffs, s->constant});
    std::vector<int64_t> neg = s->coeffs;
    for (int64_t& a : neg)
      a = -a;
    system.push_back({neg, extent - s->constant});
  };
  for (size_t d = 0; d < p.out_index.size(); ++d)
    in_range(p.out_index[d], out.shape[d], p.out_span);
  for (const Access& a : p.accesses)
    for (size_t d = 0; d < a.index.size(); ++d)
      in_range(a.index[d], k_.tensors[a.tensor].shape[d], a.span);
  for (const ConstraintV& c : p.constraints)
    in_range(c.p, c.bound, c.span);
  std::optional<std::vector<core::IntegerRange>> box = core::bounding_box(order.size(), system);

  core::Statement st;
  st.span = p.span;
  for (size_t i = 0; i < order.size(); ++i) {
    const IndexInfo& info = indexes_[order[i]];
    int64_t begin = 0, end = 0; // an empty box when nothing is valid
    if (box) {
      const core::IntegerRange& r = (*box)[i];
      if (!r.lo || !r.hi)
        throw Error(ErrorKind::Shape, p.span,
                    "index `" + info.name + "` is unbounded: no access or constraint limits " +
                        (!r.lo && !r.hi ? "it"
                         : !r.lo        ? "it from below"
                                        : "it from above"))
            .note(info.span, "`" + info.name + "` is declared here");
      if (__builtin_add_overflow(*r.hi, 1, &end))
        throw Error(ErrorKind::Limit, p.span, "index `" + info.name + "` has too large a range");
      begin = *r.lo;
    }
    st.vars.push_back({info.name, begin, end, i >= data_vars, DType::Int64, info.span});
  }
  core::check_index_points(st.vars, p.span);
  for (const Poly& x : p.out_index)
    st.out_index.push_back(tile::to_expr(x, var, p.out_span));

  // The value: one access, or a combination of two or three.
  std::vector<core::Expr> loads;
  for (const Access& a : p.accesses) {
    std::vector<core::Expr> index;
    for (const Poly& x : a.index)
      index.push_back(tile::to_expr(x, var, a.span));
    loads.push_back(
        core::make_load(a.tensor, k_.tensors[a.tensor].dtype, std::move(index), a.span));
  }
  auto convert = [&](core::Expr x, DType t) {
    return x->dtype == t ? x : core::make_cast(std::move(x), t, x->span);
  };
  if (p.combination.empty()) {
    st.value = loads[0];
  } else if (p.combination == "cond") {
    DType t = core::promote(loads[0]->dtype, loads[1]->dtype);
    core::Expr eq = core::make_apply(core::Op::Eq, {convert(loads[0], t), convert(loads[1], t)},
                                     p.span, DType::Bool);
    st.value = core::make_select(
        eq, loads[2], core::make_const(core::constant(loads[2]->dtype, 0), p.span), p.span);
  } else {
    DType t = core::promote(loads[0]->dtype, loads[1]->dtype);
    if (p.combination == "==") {
      st.value = core::make_apply(core::Op::Eq, {convert(loads[0], t), convert(loads[1], t)},
                                  p.span, DType::Bool);
    } else {
      if (core::is_bool(t))
        t = DType::Int8;
      st.value = core::make_apply(p.combination == "+" ? core::Op::Add : core::Op::Mul,
                                  {convert(loads[0], t), convert(loads[1], t)}, p.span);
    }
  }
  if (core::is_bool(st.value->dtype) &&
      (p.aggregation == core::Aggregation::Sum || p.aggregation == core::Aggregation::Product))
    st.value = core::make_cast(st.value, DType::Int8, p.span);
  for (const ConstraintV& c : p.constraints)
    st.constraints.push_back({tile::to_expr(c.p, var, c.span), c.bound, c.span});

  DType t = st.value->dtype;
  st.aggregation = p.aggregation;
  st.init = core::constant(t, 0);
  st.start = core::Start::FirstValue;
  st.out_of_range = core::OutOfRange::Skip;
  st.conflict = core::WriteConflict::Error;
  core::check_tensor_size(t, out.shape, out.span);
  if (p.init) {
    // The builder's .init(P): the output starts as P, and aggregates onto it.
    st.init_from = broadcast_init(*p.init, out.shape, t, p.init_span);
    st.start = core::Start::Init;
  }
  if (out.name.empty())
    out.name = "tmp";
  int id = static_cast<int>(k_.tensors.size());
  k_.tensors.push_back({out.name, t, out.shape, core::TensorRole::Intermediate, out.span});
  st.target = id;
  core::check_statement_count(k_, out.span);
  k_.statements.push_back(std::move(st));
  out.tensor = id;
  out.pending.reset();
  return id;
}

} // namespace teval::parser::tile
