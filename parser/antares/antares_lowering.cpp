// Typing and lowering of einstein_v2 expressions to Kernel IR expressions.
#include "parser/antares/antares_lowering.h"

#include "core/error.h"
#include "core/fault.h"
#include "core/format.h"

#include <cctype>
#include <cmath>

namespace teval::parser::antares {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::Expr;
using core::Op;
using core::promote;
using core::Span;

namespace {} // namespace

bool is_axis_name(const std::string& id) {
  return !id.empty() && std::isupper(static_cast<unsigned char>(id[0]));
}

Expr Lowering::value(const ast::Expr& e) {
  return lower(e).expr;
}

Expr Lowering::index(const ast::Expr& e) {
  bool saved = in_index_;
  in_index_ = true;
  Expr out = lower(e).expr;
  in_index_ = saved;
  if (!core::is_integer(out->dtype))
    throw Error(ErrorKind::Type, e.span,
                "a tensor index must be an integer, not " + core::to_string(out->dtype));
  return out;
}

Lowering::Typed Lowering::lower(const ast::Expr& e) {
  return std::visit([&](const auto& n) { return lower_node(e, n); }, e.node);
}

Lowering::Typed Lowering::convert(const Typed& t, DType to, Span span) {
  if (t.expr->dtype == to)
    return t;
  if (!t.literal)
    return {core::make_cast(t.expr, to, span)};
  Typed out = t;
  if (core::is_float(to)) {
    double v = t.literal_is_float ? t.float_value : core::int_to_float(to, t.int_value);
    out.expr = core::make_const(core::Scalar::of_float(to, v), t.expr->span);
    return out;
  }
  if (t.literal_is_float) // never reached by promotion, which does not narrow
    return {core::make_cast(t.expr, to, span)};
  out.expr = core::make_const(core::Scalar::of_int(to, t.int_value), t.expr->span);
  return out;
}

const core::TensorDecl* Lowering::bare_tensor(const ast::Expr& e) const {
  const auto* n = std::get_if<ast::Name>(&e.node);
  if (!n || is_axis_name(n->id))
    return nullptr;
  int id = kernel_.find(n->id);
  return id < 0 ? nullptr : &kernel_.tensors[id];
}

Lowering::Typed Lowering::lower_node(const ast::Expr& e, const ast::Name& n) {
  if (!is_axis_name(n.id)) {
    if (kernel_.find(n.id) >= 0)
      throw Error(ErrorKind::Type, e.span,
                  "tensor `" + n.id + "` must be indexed, as in `" + n.id + "[...]`");
    throw Error(ErrorKind::Name, e.span, "unknown name `" + n.id + "`");
  }
  for (size_t i = 0; i < axes_.size(); ++i)
    if (axes_[i].name == n.id)
      return {core::make_var(static_cast<int>(i), DType::Int32, e.span)};
  TEVAL_UNREACHABLE("axis `" + n.id + "` was not collected");
}

namespace {

[[noreturn]] void int_literal_too_large(Span span, const std::string& text) {
  throw Error(ErrorKind::Range, span,
              "integer literal " + text +
                  " does not fit int32, the type of integer literals; "
                  "write const(" +
                  text + ", `int64`)");
}

} // namespace

Lowering::Typed Lowering::lower_node(const ast::Expr& e, const ast::IntLit& n) {
  if (n.value > static_cast<uint64_t>(INT32_MAX))
    int_literal_too_large(e.span, n.text);
  Typed t;
  t.literal = true;
  t.int_value = static_cast<int64_t>(n.value);
  t.expr = core::make_const(core::Scalar::of_int(DType::Int32, t.int_value), e.span);
  return t;
}

Lowering::Typed Lowering::lower_node(const ast::Expr& e, const ast::FloatLit& n) {
  Typed t;
  t.literal = true;
  t.literal_is_float = true;
  t.float_value = n.value;
  t.expr = core::make_const(core::Scalar::of_float(DType::Float32, n.value), e.span);
  return t;
}

Lowering::Typed Lowering::lower_node(const ast::Expr& e, const ast::StringLit&) {
  throw Error(ErrorKind::Type, e.span,
              "a string is only allowed as a dtype or a function name argument");
}

Lowering::Typed Lowering::lower_node(const ast::Expr& e, const ast::Unary& n) {
  if (n.op == ast::UnaryOp::Plus)
    throw Error(ErrorKind::Unsupported, e.span, "unary `+` is not defined in einstein_v2; drop it");
  const auto* int_operand = std::get_if<ast::IntLit>(&n.operand->node);
  if (n.op == ast::UnaryOp::Neg && int_operand &&
      int_operand->value == static_cast<uint64_t>(INT32_MAX) + 1) {
    Typed t;
    t.literal = true;
    t.int_value = INT32_MIN;
    t.expr = core::make_const(core::Scalar::of_int(DType::Int32, INT32_MIN), e.span);
    return t;
  }
  Typed operand = lower(*n.operand);
  if (n.op == ast::UnaryOp::Invert)
    return {core::make_apply(Op::Not, {operand.expr}, e.span, DType::Int8)};
  TEVAL_ASSERT(n.op == ast::UnaryOp::Neg, "`not` is rejected by the grammar");
  if (operand.literal) { // fold, so -0.5 and -2147483648 are literals of their dtype
    Typed t = operand;
    DType type = operand.expr->dtype;
    if (core::is_float(type)) {
      t.float_value = -t.float_value;
      t.expr = core::make_const(core::Scalar::of_float(type, t.float_value), e.span);
      return t;
    }
    // As for any other operand: bool negates in int8, and a result that
    // does not fit wraps, except in an index, where it is an error.
    if (core::is_bool(type))
      type = DType::Int8;
    int64_t negated = core::wrapping_sub(DType::Int64, 0, t.int_value);
    if (negated < core::int_min(type) || negated > core::int_max(type)) {
      if (in_index_)
        throw Error(ErrorKind::Range, e.span,
                    std::to_string(negated) + " does not fit " + core::to_string(type));
      negated = core::wrap_int(type, negated);
    }
    t.int_value = negated;
    t.expr = core::make_const(core::Scalar::of_int(type, t.int_value), e.span);
    return t;
  }
  Expr x = operand.expr;
  if (core::is_bool(x->dtype))
    x = core::make_cast(x, DType::Int8, e.span);
  return {core::make_apply(Op::Neg, {x}, e.span, std::nullopt,
                           in_index_ ? core::Overflow::Trap : core::Overflow::Wrap)};
}

Lowering::Typed Lowering::arith(const ast::Expr& e, Op op, const ast::Expr& lhs_e,
                                const ast::Expr& rhs_e) {
  Typed lhs = lower(lhs_e);
  Typed rhs = lower(rhs_e);
  DType t = promote(lhs.expr->dtype, rhs.expr->dtype);
  if (core::is_bool(t))
    t = DType::Int8;
  Typed a = convert(lhs, t, lhs_e.span);
  Typed b = convert(rhs, t, rhs_e.span);
  // Integer identities fold away, as Antares folds them: x * 1, 1 * x,
  // x + 0, 0 + x, x - 0 and x / 1 are exactly x (they cannot overflow).
  auto is = [](const Typed& v, int64_t n) {
    return v.literal && !v.literal_is_float && v.int_value == n;
  };
  if (core::is_integer(t)) {
    if ((op == Op::Mul && is(b, 1)) || (op == Op::Add && is(b, 0)) || (op == Op::Sub && is(b, 0)) ||
        (op == Op::Div && is(b, 1)))
      return a;
    if ((op == Op::Mul && is(a, 1)) || (op == Op::Add && is(a, 0)))
      return b;
  }
  return {core::make_apply(op, {a.expr, b.expr}, e.span, std::nullopt,
                           in_index_ ? core::Overflow::Trap : core::Overflow::Wrap)};
}

Lowering::Typed Lowering::lower_node(const ast::Expr& e, const ast::Binary& n) {
  switch (n.op) {
  case ast::BinaryOp::Add:
    return arith(e, Op::Add, *n.lhs, *n.rhs);
  case ast::BinaryOp::Sub:
    return arith(e, Op::Sub, *n.lhs, *n.rhs);
  case ast::BinaryOp::Mul:
    return arith(e, Op::Mul, *n.lhs, *n.rhs);
  case ast::BinaryOp::Div:
  case ast::BinaryOp::FloorDiv:
    return arith(e, Op::Div, *n.lhs, *n.rhs);
  case ast::BinaryOp::Mod:
    return arith(e, Op::Mod, *n.lhs, *n.rhs);
  case ast::BinaryOp::Pow:
    throw Error(ErrorKind::Unsupported, n.op_span,
                "`**` is not an einstein_v2 operator; write x.call(`pow`, [y])");
  case ast::BinaryOp::BitXor:
    throw Error(ErrorKind::Unsupported, n.op_span, "`^` is not an einstein_v2 operator");
  case ast::BinaryOp::LogicalAnd:
  case ast::BinaryOp::LogicalOr:
    throw Error(ErrorKind::Unsupported, n.op_span,
                "`" + std::string(spelling(n.op)) +
                    "` is not an einstein_v2 operator; use `&` or `|`");
  case ast::BinaryOp::Shl:
  case ast::BinaryOp::Shr: {
    Expr a = lower(*n.lhs).expr;
    Typed rhs = lower(*n.rhs);
    if (!core::is_integer(a->dtype) || !core::is_integer(rhs.expr->dtype))
      throw Error(ErrorKind::Type, n.op_span,
                  "shift operands must be integers, not " + core::to_string(a->dtype) + " and " +
                      core::to_string(rhs.expr->dtype));
    // The result has the left operand's type; the amount is converted to it.
    Expr b = convert(rhs, a->dtype, n.rhs->span).expr;
    return {core::make_apply(n.op == ast::BinaryOp::Shl ? Op::Shl : Op::Shr, {a, b}, e.span)};
  }
  case ast::BinaryOp::BitAnd:
  case ast::BinaryOp::BitOr: {
    Expr a = lower(*n.lhs).expr;
    Expr b = lower(*n.rhs).expr;
    return {core::make_apply(n.op == ast::BinaryOp::BitAnd ? Op::And : Op::Or, {a, b}, e.span,
                             DType::Int8)};
  }
  case ast::BinaryOp::Lt:
  case ast::BinaryOp::Le:
  case ast::BinaryOp::Gt:
  case ast::BinaryOp::Ge:
  case ast::BinaryOp::Eq:
  case ast::BinaryOp::Ne: {
    Typed lhs = lower(*n.lhs);
    Typed rhs = lower(*n.rhs);
    DType t = promote(lhs.expr->dtype, rhs.expr->dtype);
    Op op = n.op == ast::BinaryOp::Lt   ? Op::Lt
            : n.op == ast::BinaryOp::Le ? Op::Le
            : n.op == ast::BinaryOp::Gt ? Op::Gt
            : n.op == ast::BinaryOp::Ge ? Op::Ge
            : n.op == ast::BinaryOp::Eq ? Op::Eq
                                        : Op::Ne;
    return {core::make_apply(op,
                             {convert(lhs, t, n.lhs->span).expr, convert(rhs, t, n.rhs->span).expr},
                             e.span, DType::Int8)};
  }
  }
  TEVAL_UNREACHABLE("unknown binary operator");
}

Expr Lowering::load(const ast::Expr& e, const ast::Subscript& s) {
  const auto* base = std::get_if<ast::Name>(&s.base->node);
  if (!base)
    throw Error(ErrorKind::Syntax, s.base->span, "only a tensor name can be indexed");
  if (is_axis_name(base->id))
    throw Error(ErrorKind::Type, s.base->span,
                "`" + base->id +
                    "` is an axis (upper-case initial), not a tensor; tensor "
                    "names start with a lower-case letter");
  int id = kernel_.find(base->id);
  if (id < 0)
    throw Error(ErrorKind::Name, s.base->span,
                "unknown tensor `" + base->id + "`; declare it in input_dict or pass it with -i " +
                    base->id + "=...");
  const core::TensorDecl& t = kernel_.tensors[id];
  if (s.indices.size() != t.shape.size())
    throw Error(ErrorKind::Shape, e.span,
                "tensor `" + t.name + "` has rank " + std::to_string(t.shape.size()) + " (shape " +
                    core::to_string(t.shape) + ") but is indexed with " +
                    std::to_string(s.indices.size()) +
                    (s.indices.size() == 1 ? " index" : " indices"));
  std::vector<Expr> idx;
  for (const ast::ExprPtr& i : s.indices)
    idx.push_back(index(*i));
  return core::make_load(id, t.dtype, std::move(idx), e.span);
}

Lowering::Typed Lowering::lower_node(const ast::Expr& e, const ast::Subscript& n) {
  bool saved = in_index_;
  in_index_ = false; // a loaded value is data, even inside an index
  Expr out = load(e, n);
  in_index_ = saved;
  return {out};
}

Lowering::Typed Lowering::lower_node(const ast::Expr& e, const ast::List&) {
  throw Error(ErrorKind::Syntax, e.span, "a list is only allowed as a .when or .call argument");
}
Lowering::Typed Lowering::lower_node(const ast::Expr& e, const ast::Tuple&) {
  throw Error(ErrorKind::Syntax, e.span, "tuples have no meaning in einstein_v2");
}
Lowering::Typed Lowering::lower_node(const ast::Expr& e, const ast::Dict&) {
  throw Error(ErrorKind::Syntax, e.span, "dicts have no meaning in einstein_v2");
}

Lowering::Typed Lowering::lower_node(const ast::Expr& e, const ast::Call& c) {
  if (!c.method) {
    if (c.callee == "const")
      return const_call(e, c);
    if (c.callee == "f_op")
      return f_op_call(e, c);
    throw Error(ErrorKind::Name, c.callee_span,
                "unknown function `" + c.callee +
                    "`; einstein_v2 has const(...), f_op(`function`, x, ...) and the methods "
                    "x.when, x.cast, x.call, x.dtype, AXIS.val and t.val(dimension)");
  }
  if (c.callee == "when")
    return when(e, c);
  if (c.callee == "cast")
    return cast_call(e, c);
  if (c.callee == "call")
    return math_call(e, c);
  if (c.callee == "val")
    return val_call(e, c);
  if (c.callee == "dtype")
    throw Error(ErrorKind::Type, e.span,
                "x.dtype() names a dtype; it is only allowed as the argument of .cast(...), "
                "const(value, dtype) or x.call(`function`, [y], dtype)");
  throw Error(ErrorKind::Name, c.callee_span,
              "unknown method `" + c.callee +
                  "`; einstein_v2 has .when, .cast, .call, .dtype "
                  "and .val");
}

namespace {

void check_arguments(const ast::Call& c, size_t min_args, size_t max_args,
                     std::initializer_list<const char*> keywords, const char* usage) {
  size_t given = c.args.size() - (c.method ? 1 : 0);
  if (given < min_args || given > max_args)
    throw Error(ErrorKind::Syntax, c.callee_span, std::string("wrong arguments; use ") + usage);
  for (const ast::Keyword& k : c.keywords) {
    bool known = false;
    for (const char* name : keywords)
      known |= k.name == name;
    if (!known)
      throw Error(ErrorKind::Syntax, k.span,
                  "unexpected keyword argument `" + k.name + "`; use " + usage);
  }
}

} // namespace

Expr Lowering::condition(const ast::Expr& e) {
  Expr c = value(e);
  if (core::is_float(c->dtype))
    throw Error(ErrorKind::Type, e.span,
                "a condition must be a comparison or a logical value, not " +
                    core::to_string(c->dtype) + "; write for example `x != 0.0`");
  return c;
}

Lowering::Typed Lowering::when(const ast::Expr& e, const ast::Call& c) {
  check_arguments(c, 2, 2, {"merge_op"}, "x.when([cond, ...], other, merge_op=`all`|`any`)");
  bool any = false;
  for (const ast::Keyword& k : c.keywords) {
    const auto* s = std::get_if<ast::StringLit>(&k.value->node);
    if (!s || (s->value != "all" && s->value != "any"))
      throw Error(ErrorKind::Syntax, k.value->span, "merge_op is `all` or `any`");
    any = s->value == "any";
  }
  std::vector<ast::ExprPtr> conds;
  if (const auto* list = std::get_if<ast::List>(&c.args[1]->node))
    conds = list->items;
  else
    conds = {c.args[1]};
  if (conds.empty())
    throw Error(ErrorKind::Syntax, c.args[1]->span, ".when needs at least one condition");
  Expr cond = condition(*conds[0]);
  for (size_t i = 1; i < conds.size(); ++i)
    cond = core::make_apply(any ? Op::Or : Op::And, {cond, condition(*conds[i])}, c.args[1]->span,
                            DType::Int8);
  Expr then = value(*c.args[0]);
  Expr otherwise = value(*c.args[2]);
  if (then->dtype != otherwise->dtype)
    throw Error(ErrorKind::Type, c.args[2]->span,
                ".when branches must have the same dtype: the value is " +
                    core::to_string(then->dtype) + " but the other branch is " +
                    core::to_string(otherwise->dtype) +
                    "; convert it, e.g. const(0).cast(x.dtype())")
        .note(c.args[0]->span, "the value is here");
  return {core::make_select(cond, then, otherwise, e.span)};
}

DType Lowering::dtype_argument(const ast::Expr& e) {
  if (const auto* s = std::get_if<ast::StringLit>(&e.node)) {
    std::optional<DType> t = core::dtype_from_name(s->value);
    if (t && core::kernel_dtype(*t))
      return *t;
    throw Error(ErrorKind::Type, e.span,
                "unknown dtype `" + s->value + "`" + (t ? core::not_kernel_note(*t) : ""));
  }
  if (const auto* c = std::get_if<ast::Call>(&e.node); c && c->method && c->callee == "dtype") {
    check_arguments(*c, 0, 0, {}, "x.dtype()");
    // Antares' op generators write the dtype of a whole tensor as
    // `input0.dtype()`, on the bare name.
    if (const core::TensorDecl* t = bare_tensor(*c->args[0]))
      return t->dtype;
    return value(*c->args[0])->dtype;
  }
  throw Error(ErrorKind::Type, e.span,
              "expected a dtype: a string such as `float32`, or x.dtype()");
}

Lowering::Typed Lowering::cast_call(const ast::Expr& e, const ast::Call& c) {
  check_arguments(c, 1, 1, {}, "x.cast(`dtype`)");
  Typed x = lower(*c.args[0]);
  return convert(x, dtype_argument(*c.args[1]), e.span);
}

Lowering::Typed Lowering::const_call(const ast::Expr& e, const ast::Call& c) {
  check_arguments(c, 1, 2, {"dtype"}, "const(value) or const(value, dtype)");
  // The number as written, possibly negated; with a dtype it may be any
  // 64-bit integer, as `const(3000000000, `int64`)` needs.
  const ast::Expr* number = c.args[0].get();
  bool negative = false;
  if (const auto* u = std::get_if<ast::Unary>(&number->node); u && u->op == ast::UnaryOp::Neg) {
    negative = true;
    number = u->operand.get();
  }
  const auto* int_lit = std::get_if<ast::IntLit>(&number->node);
  const auto* float_lit = std::get_if<ast::FloatLit>(&number->node);
  if (!int_lit && !float_lit)
    throw Error(ErrorKind::Type, c.args[0]->span, "const(...) takes a number literal");
  const ast::Expr* dtype_arg = c.args.size() > 1 ? c.args[1].get() : nullptr;
  for (const ast::Keyword& k : c.keywords)
    if (!planted(33)) // fault 33: const(k, dtype=...) read as const(k)
      dtype_arg = k.value.get();
  if (!dtype_arg)
    return lower(*c.args[0]); // a plain literal: int32 or float32
  DType t = dtype_argument(*dtype_arg);
  Typed out;
  out.literal = true;
  if (float_lit) {
    if (!core::is_float(t))
      throw Error(ErrorKind::Type, c.args[0]->span,
                  "const(" + std::string(c.args[0]->span.text()) + ", " + core::to_string(t) +
                      "): a float literal is not a value of " + core::to_string(t));
    out.literal_is_float = true;
    out.float_value = negative ? -float_lit->value : float_lit->value;
    out.expr = core::make_const(core::Scalar::of_float(t, out.float_value), e.span);
    return out;
  }
  // -9223372036854775808, the least int64, is a literal too.
  if (int_lit->value > static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0))
    throw Error(ErrorKind::Range, c.args[0]->span, "integer literal does not fit in 64 bits");
  out.int_value = negative && int_lit->value > 0 ? -static_cast<int64_t>(int_lit->value - 1) - 1
                                                 : static_cast<int64_t>(int_lit->value);
  if (core::is_float(t)) {
    out.expr =
        core::make_const(core::Scalar::of_float(t, core::int_to_float(t, out.int_value)), e.span);
    return out;
  }
  if (out.int_value < core::int_min(t) || out.int_value > core::int_max(t))
    throw Error(ErrorKind::Range, c.args[0]->span,
                std::to_string(out.int_value) + " does not fit " + core::to_string(t));
  out.expr = core::make_const(core::Scalar::of_int(t, out.int_value), e.span);
  return out;
}

Lowering::Typed Lowering::val_call(const ast::Expr& e, const ast::Call& c) {
  if (const core::TensorDecl* t = bare_tensor(*c.args[0])) {
    // t.val(d): the size of dimension d, a Python int in Antares.
    check_arguments(c, 1, 1, {}, "t.val(dimension)");
    const auto* d = std::get_if<ast::IntLit>(&c.args[1]->node);
    if (!d)
      throw Error(ErrorKind::Type, c.args[1]->span,
                  "t.val(d) takes a dimension number, an integer literal");
    if (d->value >= t->shape.size())
      throw Error(ErrorKind::Range, c.args[1]->span,
                  "tensor `" + t->name + "` has rank " + std::to_string(t->shape.size()) +
                      " (shape " + core::to_string(t->shape) + "): it has no dimension " +
                      std::to_string(d->value));
    int64_t size = t->shape[d->value];
    if (size > core::int_max(DType::Int32))
      throw Error(ErrorKind::Range, e.span,
                  std::to_string(size) + " does not fit int32, the type of t.val(d)");
    Typed out;
    out.literal = true;
    out.int_value = size;
    out.expr = core::make_const(core::Scalar::of_int(DType::Int32, size), e.span);
    return out;
  }
  check_arguments(c, 0, 0, {}, "AXIS.val()");
  const auto* n = std::get_if<ast::Name>(&c.args[0]->node);
  if (!n || !is_axis_name(n->id))
    throw Error(ErrorKind::Type, c.args[0]->span,
                ".val() is the extent of an axis, AXIS.val(), or the size of a tensor's "
                "dimension, t.val(d)");
  for (const Axis& a : axes_)
    if (a.name == n->id) {
      Typed t;
      t.literal = true;
      t.int_value = a.extent;
      t.expr = core::make_const(core::Scalar::of_int(DType::Int32, a.extent), e.span);
      return t;
    }
  TEVAL_UNREACHABLE("axis of .val() was not collected");
}

Lowering::Typed Lowering::math_call(const ast::Expr& e, const ast::Call& c) {
  const char* usage = "x.call(`function`), x.call(`function`, [y]) or "
                      "x.call(`function`, [y], dtype)";
  check_arguments(c, 1, 3, {"others", "output_dtype"}, usage);
  // Python's binding of call(self, func_name, others=None, output_dtype=None).
  ast::ExprPtr others = c.args.size() > 2 ? c.args[2] : nullptr;
  ast::ExprPtr output_dtype = c.args.size() > 3 ? c.args[3] : nullptr;
  for (const ast::Keyword& k : c.keywords) {
    ast::ExprPtr& slot = k.name == "others" ? others : output_dtype;
    if (slot)
      throw Error(ErrorKind::Syntax, k.span, "`" + k.name + "` is given twice; use " + usage);
    slot = k.value;
  }
  std::vector<ast::ExprPtr> extra;
  if (others) {
    if (const auto* list = std::get_if<ast::List>(&others->node))
      extra = list->items;
    else
      extra = {others};
  }
  Typed out = apply_function(e, *c.args[0], *c.args[1], extra);
  if (!output_dtype)
    return out;
  // The function's value converted to the requested dtype.
  return convert(out, dtype_argument(*output_dtype), e.span);
}

Lowering::Typed Lowering::f_op_call(const ast::Expr& e, const ast::Call& c) {
  if (c.args.size() < 2 || !c.keywords.empty())
    throw Error(ErrorKind::Syntax, c.callee_span,
                "wrong arguments; use f_op(`function`, x, y, ...), which is "
                "x.call(`function`, [y, ...])");
  std::vector<ast::ExprPtr> extra(c.args.begin() + 2, c.args.end());
  return apply_function(e, *c.args[1], *c.args[0], extra);
}

Lowering::Typed Lowering::apply_function(const ast::Expr& e, const ast::Expr& receiver,
                                         const ast::Expr& name,
                                         const std::vector<ast::ExprPtr>& extra) {
  const auto* fn_name = std::get_if<ast::StringLit>(&name.node);
  if (!fn_name)
    throw Error(ErrorKind::Syntax, name.span, "the function name is a string: x.call(`exp`)");
  const std::string& fn = fn_name->value;
  std::optional<Op> op = core::function_named(fn);
  if (!op)
    throw Error(ErrorKind::Name, name.span,
                "unknown function `" + fn + "`; teval knows " + core::function_name_list());
  size_t want = static_cast<size_t>(core::arity(*op)) - 1;
  if (extra.size() != want)
    throw Error(ErrorKind::Syntax, name.span,
                "`" + fn + "` takes " + std::to_string(want + 1) + " argument" +
                    (want ? "s: x.call(`" + fn + "`, [y])" : ": x.call(`" + fn + "`)"));
  std::vector<Typed> args{lower(receiver)};
  for (const ast::ExprPtr& x : extra)
    args.push_back(lower(*x));
  DType t = args[0].expr->dtype;
  for (const Typed& a : args)
    t = promote(t, a.expr->dtype);
  core::OpRule r = core::rule(*op);
  if ((r == core::OpRule::Float || r == core::OpRule::FloatToInt) && !core::is_float(t))
    throw Error(ErrorKind::Type, receiver.span,
                "`" + fn + "` needs a floating-point argument, not " + core::to_string(t) +
                    "; cast first, as in x.cast(`float32`).call(`" + fn + "`)");
  if (core::is_bool(t))
    t = DType::Int8;
  std::vector<Expr> operands;
  for (size_t i = 0; i < args.size(); ++i)
    operands.push_back(convert(args[i], t, i ? extra[i - 1]->span : receiver.span).expr);
  std::optional<DType> result;
  if (r == core::OpRule::FloatToInt)
    result = DType::Int32;
  return {core::make_apply(*op, std::move(operands), e.span, result)};
}

} // namespace teval::parser::antares
