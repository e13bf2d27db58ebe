// PlaidML's later contraction builder (its MLIR-based eDSL):
// `Contraction().outShape(I, J).outAccess(i, j).sum(A(i, k) * B(k, j))`,
// then `.add_constraint(k < 2)`, `.add_constraints({...})`, `.init(P)` and
// (Python) `.build()`. It means what `O(i, j) += A(i, k) * B(k, j)` on a
// `TensorOutput(I, J)` means; `.init(P)` starts the output as P.
#include "parser/tile/tile_elaborator.h"

namespace teval::parser::tile {

namespace {

const std::map<std::string, core::Aggregation>& aggregations() {
  static const std::map<std::string, core::Aggregation> kAll = {
      {"sum", core::Aggregation::Sum},
      {"product", core::Aggregation::Product},
      {"max", core::Aggregation::Max},
      {"min", core::Aggregation::Min},
      {"assign", core::Aggregation::Assign}};
  return kAll;
}

bool is_builder_method(const std::string& name) {
  return aggregations().count(name) || name == "outShape" || name == "outAccess" ||
         name == "add_constraint" || name == "add_constraints" || name == "init" || name == "build";
}

} // namespace

std::vector<Value> Elaborator::flattened(std::span<const ast::ExprPtr> args) {
  std::vector<Value> out;
  for (const ast::ExprPtr& a : args) {
    Value v = evaluate(*a);
    if (const auto* list = std::get_if<ListV>(&v.v)) {
      for (const Value& item : *list->items)
        out.push_back(item);
      continue;
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<ConstraintV> Elaborator::constraints(std::span<const ast::ExprPtr> args) {
  std::vector<ConstraintV> out;
  for (const Value& v : flattened(args)) {
    const auto* constraint = std::get_if<ConstraintV>(&v.v);
    if (!constraint)
      throw Error(ErrorKind::Type, v.span,
                  "a constraint is `index_expression < bound`, not " + kind_name(v));
    out.push_back(*constraint);
  }
  return out;
}

std::optional<Value> Elaborator::builder_method(const ast::Expr& e, const ast::Call& c) {
  if (!is_builder_method(c.callee) || c.args.empty())
    return std::nullopt;
  Value self = evaluate(*c.args[0]);
  if (std::holds_alternative<BuilderV>(self.v))
    return builder_step(e, c, self);
  auto* o = std::get_if<OutputV>(&self.v);
  if (!o)
    return std::nullopt;
  OutputCell& out = *o->cell;
  std::span<const ast::ExprPtr> args(c.args.begin() + 1, c.args.end());
  if (c.callee == "build") {
    if (!args.empty())
      throw Error(ErrorKind::Syntax, c.callee_span, "build() takes no arguments");
    return self;
  }
  if (c.callee == "add_constraint" || c.callee == "add_constraints") {
    for (const ConstraintV& constraint : constraints(args))
      add_constraint_to(out, constraint, c.callee_span);
    return self;
  }
  if (c.callee == "init") {
    std::shared_ptr<Pending> pending = out.pending.lock();
    if (!pending || out.tensor)
      throw Error(ErrorKind::Syntax, c.callee_span,
                  "`.init(...)` belongs to a contraction not yet used");
    if (args.size() != 1)
      throw Error(ErrorKind::Syntax, c.callee_span, "init takes one tensor");
    if (pending->init)
      throw Error(ErrorKind::Syntax, c.callee_span, "the contraction already has an init");
    pending->init = tensor_of(evaluate(*args[0]), "", args[0]->span);
    pending->init_span = args[0]->span;
    return self;
  }
  throw Error(ErrorKind::Syntax, c.callee_span,
              "`." + c.callee + "(...)` belongs to a Contraction() before its aggregation");
}

Value Elaborator::builder_step(const ast::Expr& e, const ast::Call& c, const Value& self) {
  std::span<const ast::ExprPtr> args(c.args.begin() + 1, c.args.end());
  BuilderCell& b = *std::get<BuilderV>(self.v).cell;
  if (c.callee == "outShape") {
    if (b.shape)
      throw Error(ErrorKind::Syntax, c.callee_span, "the contraction already has an outShape");
    core::Shape shape;
    for (const Value& v : flattened(args)) {
      const auto* i = std::get_if<IntV>(&v.v);
      if (!i)
        throw Error(ErrorKind::Type, v.span, "a dimension is an integer, not " + kind_name(v));
      if (i->v < 0)
        throw Error(ErrorKind::Shape, v.span, "negative dimension " + std::to_string(i->v));
      shape.push_back(i->v);
    }
    b.shape = std::move(shape);
    return self;
  }
  if (c.callee == "outAccess") {
    if (b.access)
      throw Error(ErrorKind::Syntax, c.callee_span, "the contraction already has an outAccess");
    std::vector<Poly> access;
    for (const Value& v : flattened(args)) {
      if (!is_index(v))
        throw Error(ErrorKind::Type, v.span,
                    "an index is a TensorIndex expression, not " + kind_name(v));
      access.push_back(poly(v));
    }
    b.access = std::move(access);
    b.access_span = c.callee_span;
    return self;
  }
  if (c.callee == "add_constraint" || c.callee == "add_constraints") {
    for (const ConstraintV& constraint : constraints(args))
      b.constraints.push_back(constraint);
    return self;
  }
  auto agg = aggregations().find(c.callee);
  if (agg == aggregations().end())
    throw Error(ErrorKind::Syntax, c.callee_span,
                "`." + c.callee + "(...)` comes after the contraction's aggregation (" +
                    "`.sum(...)`, `.max(...)`, ...)");
  if (!b.shape || !b.access)
    throw Error(ErrorKind::Syntax, c.callee_span,
                std::string("the contraction has no ") + (b.shape ? "outAccess" : "outShape") +
                    "(...) before its aggregation");
  if (args.size() != 1)
    throw Error(ErrorKind::Syntax, c.callee_span, c.callee + " takes one tensor expression");
  if (b.access->size() != b.shape->size())
    throw Error(ErrorKind::Shape, b.access_span,
                "outAccess names " + std::to_string(b.access->size()) +
                    (b.access->size() == 1 ? " index" : " indices") + " but outShape " +
                    std::to_string(b.shape->size()) + " dimensions " + core::to_string(*b.shape));
  auto out = std::make_shared<OutputCell>();
  out->shape = *b.shape;
  out->span = e.span;
  std::shared_ptr<Pending> p =
      begin_contraction(out, agg->second, *b.access, b.access_span, e.span, *args[0]);
  p->constraints = b.constraints;
  return {OutputV{out}, e.span};
}

int Elaborator::broadcast_init(int from, const core::Shape& shape, DType dtype, Span span) {
  const core::TensorDecl init = k_.tensors[from];
  if (init.shape == shape && init.dtype == dtype)
    return from;
  // numpy's rules: P's dimensions align with the output's last ones; a
  // dimension of 1 stretches.
  size_t rank = shape.size(), r = init.shape.size();
  bool fits = r <= rank;
  for (size_t j = 0; fits && j < r; ++j)
    fits = init.shape[j] == 1 || init.shape[j] == shape[rank - r + j];
  if (!fits)
    throw Error(ErrorKind::Shape, span,
                "the init has shape " + core::to_string(init.shape) +
                    ", which does not broadcast to the output's " + core::to_string(shape));
  core::Statement s;
  s.span = span;
  for (size_t i = 0; i < rank; ++i)
    s.vars.push_back({"d" + std::to_string(i), 0, shape[i], false, DType::Int64, span});
  for (size_t i = 0; i < rank; ++i)
    s.out_index.push_back(core::make_var(static_cast<int>(i), DType::Int64, span));
  std::vector<core::Expr> index;
  for (size_t j = 0; j < r; ++j)
    index.push_back(init.shape[j] == 1
                        ? core::make_const(core::constant(DType::Int64, 0), span)
                        : core::make_var(static_cast<int>(rank - r + j), DType::Int64, span));
  s.value = core::make_load(from, init.dtype, std::move(index), span);
  if (init.dtype != dtype)
    s.value = core::make_cast(s.value, dtype, span);
  s.aggregation = core::Aggregation::Assign;
  s.init = core::constant(dtype, 0);
  int id = static_cast<int>(k_.tensors.size());
  k_.tensors.push_back({"init", dtype, shape, core::TensorRole::Intermediate, span});
  s.target = id;
  core::check_statement_count(k_, span);
  k_.statements.push_back(std::move(s));
  return id;
}

} // namespace teval::parser::tile
