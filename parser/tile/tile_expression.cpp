// Tile expressions: dimensions, index polynomials and elementwise tensors.
#include "parser/tile/tile_elaborator.h"

#include "core/fault.h"

namespace teval::parser::tile {

// The kernel tensor \p v stands for (materialising or emitting it).
int Elaborator::tensor_of(const Value& v, const std::string& name, Span span) {
  if (const auto* t = std::get_if<TensorV>(&v.v))
    return t->id;
  if (const auto* o = std::get_if<OutputV>(&v.v)) {
    OutputCell& cell = *o->cell;
    if (cell.tensor)
      return *cell.tensor;
    if (cell.name.empty()) // a contraction returned or used where it is built
      cell.name = name;
    std::shared_ptr<Pending> pending = cell.pending.lock();
    if (!pending)
      throw Error(ErrorKind::Syntax, span,
                  "`" + cell.name + "` is a TensorOutput that no contraction writes");
    return materialize(*pending);
  }
  if (const auto* e = std::get_if<EwV>(&v.v))
    return tile::emit_elementwise(k_, e->e, name.empty() ? "tmp" : name, span);
  throw Error(ErrorKind::Type, span, "expected a tensor, not " + kind_name(v));
}

Ew Elaborator::as_elementwise(const Value& v) {
  if (const auto* i = std::get_if<IntV>(&v.v))
    return tile::ew_int(i->v, v.span);
  if (const auto* f = std::get_if<FloatV>(&v.v))
    return tile::ew_float(f->v, v.span);
  if (const auto* d = std::get_if<DimV>(&v.v))
    return tile::ew_int(dim_value(*d, v.span), v.span);
  if (const auto* e = std::get_if<EwV>(&v.v))
    return e->e;
  return tile::ew_tensor(k_, tensor_of(v, "", v.span), v.span);
}

bool Elaborator::is_tensor(const Value& v) {
  return std::holds_alternative<TensorV>(v.v) || std::holds_alternative<OutputV>(v.v) ||
         std::holds_alternative<EwV>(v.v);
}

int64_t Elaborator::dim_value(const DimV& d, Span span) {
  if (!d.cell->value)
    throw Error(ErrorKind::Name, span,
                "dimension `" + d.cell->name + "` is used before bind_dims gives it a size");
  return *d.cell->value;
}

// The value of \p e; a bound dimension is its integer.
Value Elaborator::evaluate(const ast::Expr& e) {
  Value v = evaluate_raw(e);
  if (auto* d = std::get_if<DimV>(&v.v); d && d->cell->value)
    return {IntV{*d->cell->value}, e.span};
  return v;
}

// The value of \p e, dimensions kept as dimensions (for bind_dims).
Value Elaborator::evaluate_raw(const ast::Expr& e) {
  Value v = std::visit([&](const auto& n) { return eval(e, n); }, e.node);
  v.span = e.span;
  return v;
}

Value Elaborator::eval(const ast::Expr& e, const ast::IntLit& n) {
  if (n.value > static_cast<uint64_t>(INT64_MAX))
    throw Error(ErrorKind::Range, e.span, "integer literal does not fit in 64 bits");
  return {IntV{static_cast<int64_t>(n.value)}, e.span};
}

Value Elaborator::eval(const ast::Expr& e, const ast::StringLit&) {
  throw Error(ErrorKind::Type, e.span, "strings have no meaning in Tile");
}

Value Elaborator::eval(const ast::Expr& e, const ast::Dict&) {
  throw Error(ErrorKind::Type, e.span, "dicts have no meaning in Tile");
}

Value Elaborator::sequence(const ast::Expr& e, const std::vector<ast::ExprPtr>& items) {
  auto out = std::make_shared<std::vector<Value>>();
  for (const ast::ExprPtr& i : items)
    out->push_back(evaluate(*i));
  return {ListV{out}, e.span};
}

Value Elaborator::eval(const ast::Expr& e, const ast::Subscript& s) {
  Value base = evaluate(*s.base);
  if (auto* list = std::get_if<ListV>(&base.v)) {
    if (s.indices.size() != 1)
      throw Error(ErrorKind::Syntax, e.span, "a list takes one index");
    int64_t i = integer(*s.indices[0]);
    if (i < 0 || i >= static_cast<int64_t>(list->items->size()))
      throw Error(ErrorKind::Range, s.indices[0]->span,
                  "index " + std::to_string(i) + " is outside a list of " +
                      std::to_string(list->items->size()));
    return (*list->items)[i];
  }
  throw Error(ErrorKind::Syntax, e.span,
              "a tensor access such as " + std::string(s.base->span.text()) +
                  "[...] belongs in a contraction");
}

Value Elaborator::eval(const ast::Expr& e, const ast::Unary& u) {
  Value x = evaluate(*u.operand);
  if (u.op == ast::UnaryOp::Plus)
    return x;
  if (u.op != ast::UnaryOp::Neg)
    throw Error(ErrorKind::Unsupported, e.span,
                "`" + std::string(spelling(u.op)) + "` is not supported here");
  if (auto* i = std::get_if<IntV>(&x.v)) {
    if (i->v == INT64_MIN)
      dimension_overflow(e.span);
    return {IntV{-i->v}, e.span};
  }
  if (auto* f = std::get_if<FloatV>(&x.v))
    return {FloatV{-f->v}, e.span};
  if (auto* p = std::get_if<PolyV>(&x.v))
    return {PolyV{planted(36) ? p->p : -p->p}, e.span}; // fault 36: the sign is lost
  return {EwV{tile::ew_apply(core::Op::Neg, {as_elementwise(x)}, e.span)}, e.span};
}

Value Elaborator::eval(const ast::Expr& e, const ast::Binary& b) {
  Value l = evaluate(*b.lhs);
  Value r = evaluate(*b.rhs);
  if (b.op == ast::BinaryOp::Lt && is_index(l) && !is_tensor(r)) {
    if (!std::holds_alternative<IntV>(r.v))
      throw Error(ErrorKind::Type, b.rhs->span,
                  "a constraint's bound is an integer or a dimension, not " + kind_name(r));
    return {ConstraintV{poly(l), std::get<IntV>(r.v).v, e.span}, e.span};
  }
  if (is_tensor(l) || is_tensor(r) || std::holds_alternative<FloatV>(l.v) ||
      std::holds_alternative<FloatV>(r.v))
    return elementwise_binary(e, b, l, r);
  if (std::holds_alternative<IntV>(l.v) && std::holds_alternative<IntV>(r.v))
    return {IntV{int_binary(b, std::get<IntV>(l.v).v, std::get<IntV>(r.v).v, e.span)}, e.span};
  if (is_index(l) && is_index(r))
    return {PolyV{poly_binary(b, poly(l), poly(r))}, e.span};
  throw Error(ErrorKind::Type, b.op_span,
              "`" + std::string(spelling(b.op)) + "` of " + kind_name(l) + " and " + kind_name(r) +
                  " has no meaning here");
}

bool Elaborator::is_index(const Value& v) {
  return std::holds_alternative<PolyV>(v.v) || std::holds_alternative<IntV>(v.v);
}

Poly Elaborator::poly(const Value& v) {
  if (const auto* p = std::get_if<PolyV>(&v.v))
    return p->p;
  return Poly::constant(std::get<IntV>(v.v).v);
}

// Dimension arithmetic: integers, truncating division.
int64_t Elaborator::int_binary(const ast::Binary& b, int64_t x, int64_t y, Span span) {
  int64_t r = 0;
  bool overflow = false;
  switch (b.op) {
  case ast::BinaryOp::Add:
    overflow = __builtin_add_overflow(x, y, &r);
    break;
  case ast::BinaryOp::Sub:
    overflow = __builtin_sub_overflow(x, y, &r);
    break;
  case ast::BinaryOp::Mul:
    overflow = __builtin_mul_overflow(x, y, &r);
    break;
  case ast::BinaryOp::Div:
  case ast::BinaryOp::FloorDiv:
  case ast::BinaryOp::Mod:
    if (y == 0)
      throw Error(ErrorKind::Arithmetic, b.op_span, "division of dimensions by zero");
    if (x == INT64_MIN && y == -1)
      dimension_overflow(span);
    return b.op == ast::BinaryOp::Mod ? x % y : x / y;
  default:
    throw Error(ErrorKind::Unsupported, b.op_span,
                "`" + std::string(spelling(b.op)) + "` is not a dimension operation");
  }
  if (overflow)
    dimension_overflow(span);
  return r;
}

// Index arithmetic: polynomials with exact rational division by constants.
Poly Elaborator::poly_binary(const ast::Binary& b, const Poly& x, const Poly& y) {
  switch (b.op) {
  case ast::BinaryOp::Add:
    return x + y;
  case ast::BinaryOp::Sub:
    return x - y;
  case ast::BinaryOp::Mul:
    return x * y;
  case ast::BinaryOp::Div:
  case ast::BinaryOp::FloorDiv:
    if (!y.is_constant())
      throw Error(ErrorKind::Unsupported, b.rhs->span,
                  "an index expression can only be divided by a constant");
    if (y.constant_term() == 0)
      throw Error(ErrorKind::Arithmetic, b.rhs->span, "division by zero in an index expression");
    return x.divided_by(y.constant_term());
  default:
    break;
  }
  throw Error(ErrorKind::Unsupported, b.op_span,
              "`" + std::string(spelling(b.op)) + "` is not an index operation");
}

Value Elaborator::elementwise_binary(const ast::Expr& e, const ast::Binary& b, const Value& l,
                                     const Value& r) {
  static const std::map<ast::BinaryOp, core::Op> kOps = {
      {ast::BinaryOp::Add, core::Op::Add}, {ast::BinaryOp::Sub, core::Op::Sub},
      {ast::BinaryOp::Mul, core::Op::Mul}, {ast::BinaryOp::Div, core::Op::Div},
      {ast::BinaryOp::Mod, core::Op::Mod}, {ast::BinaryOp::Eq, core::Op::Eq},
      {ast::BinaryOp::Ne, core::Op::Ne},   {ast::BinaryOp::Lt, core::Op::Lt},
      {ast::BinaryOp::Le, core::Op::Le},   {ast::BinaryOp::Gt, core::Op::Gt},
      {ast::BinaryOp::Ge, core::Op::Ge}};
  auto op = kOps.find(b.op);
  if (op == kOps.end())
    throw Error(ErrorKind::Unsupported, b.op_span,
                "`" + std::string(spelling(b.op)) + "` is not an elementwise Tile operation");
  if (std::holds_alternative<PolyV>(l.v) || std::holds_alternative<PolyV>(r.v))
    throw Error(ErrorKind::Type, b.op_span,
                "an index expression cannot be combined with a tensor outside a contraction");
  return {EwV{tile::ew_apply(op->second, {as_elementwise(l), as_elementwise(r)}, e.span)}, e.span};
}

Value Elaborator::eval(const ast::Expr& e, const ast::Call& c) {
  if (c.method) {
    if (c.callee == "size" && c.args.size() == 1) {
      Value base = evaluate(*c.args[0]);
      if (auto* list = std::get_if<ListV>(&base.v))
        return {IntV{static_cast<int64_t>(list->items->size())}, e.span};
    }
    if (std::optional<Value> v = builder_method(e, c))
      return *v;
    throw Error(ErrorKind::Unsupported, c.callee_span,
                "`." + c.callee + "(...)` has no value here");
  }
  const std::string& f = c.callee;
  if (env_.count(f))
    throw Error(ErrorKind::Syntax, e.span,
                "a tensor access such as " + f + "(...) belongs in a contraction");
  if (f == "Contraction") {
    // Contraction() or Contraction("name"): the name labels PlaidML's IR;
    // the tensor takes the name it is bound to, as a TensorOutput does.
    if (c.args.size() > 1 ||
        (c.args.size() == 1 && !std::holds_alternative<ast::StringLit>(c.args[0]->node)))
      throw Error(ErrorKind::Syntax, c.callee_span, "Contraction takes at most a name");
    return {BuilderV{std::make_shared<BuilderCell>()}, e.span};
  }
  if (f == "TensorOutput") {
    auto cell = std::make_shared<OutputCell>();
    cell->span = e.span;
    for (const ast::ExprPtr& a : c.args) {
      int64_t d = integer(*a);
      if (d < 0)
        throw Error(ErrorKind::Shape, a->span, "negative dimension " + std::to_string(d));
      cell->shape.push_back(d);
    }
    return {OutputV{cell}, e.span};
  }
  if (f == "TensorDims" || f == "TensorIndexes") {
    int64_t n = c.args.size() == 1 ? integer(*c.args[0]) : -1;
    if (n < 0)
      throw Error(ErrorKind::Syntax, c.callee_span, f + " takes a count");
    if (n > kMaxListItems)
      throw Error(ErrorKind::Limit, c.args[0]->span,
                  f + " of " + std::to_string(n) + "; teval makes at most " +
                      std::to_string(kMaxListItems));
    auto items = std::make_shared<std::vector<Value>>();
    for (int64_t i = 0; i < n; ++i)
      items->push_back(constructor(f == "TensorDims", e.span));
    return {ListV{items}, e.span};
  }
  if (f == "TensorDim" || f == "TensorIndex") {
    if (!c.args.empty())
      throw Error(ErrorKind::Syntax, c.callee_span, f + "() takes no arguments");
    return constructor(f == "TensorDim", e.span);
  }
  if (f == "select") {
    if (c.args.size() != 3)
      throw Error(ErrorKind::Syntax, c.callee_span, "select takes three arguments");
    return {EwV{tile::ew_select(as_elementwise(evaluate(*c.args[0])),
                                as_elementwise(evaluate(*c.args[1])),
                                as_elementwise(evaluate(*c.args[2])), e.span)},
            e.span};
  }
  if (std::optional<core::Op> op = core::function_named(f)) {
    // PlaidML's floor and ceil keep their operand's float dtype (Antares'
    // give int32): Tile's are teval's rfloor and rceil.
    if (*op == core::Op::Floor || *op == core::Op::Ceil)
      op = *op == core::Op::Floor ? core::Op::RFloor : core::Op::RCeil;
    if (static_cast<int>(c.args.size()) != core::arity(*op))
      throw Error(ErrorKind::Syntax, c.callee_span,
                  f + " takes " + std::to_string(core::arity(*op)) + " argument" +
                      (core::arity(*op) == 1 ? "" : "s"));
    std::vector<Ew> args;
    for (const ast::ExprPtr& a : c.args)
      args.push_back(as_elementwise(evaluate(*a)));
    return {EwV{tile::ew_apply(*op, std::move(args), e.span, f)}, e.span};
  }
  if (f == "cond")
    throw Error(ErrorKind::Syntax, c.callee_span,
                "cond(A, B, C) combines tensor accesses inside a contraction");
  throw Error(ErrorKind::Name, c.callee_span,
              "unknown function `" + f + "`; Tile has select, " + core::function_name_list());
}

Value Elaborator::constructor(bool dim, Span span) {
  if (dim)
    return {DimV{std::make_shared<DimCell>(DimCell{std::nullopt, "", span})}, span};
  return {PolyV{new_index("", span)}, span};
}

} // namespace teval::parser::tile
