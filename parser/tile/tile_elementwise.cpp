// Elementwise Tile expressions: broadcasting, typing and lowering.
#include "parser/tile/tile_elementwise.h"

#include "core/error.h"

namespace teval::parser::tile {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::Op;
using core::Shape;
using core::Span;

namespace {

// numpy broadcasting: shapes align at the right; a missing or size-1
// dimension stretches.
Shape broadcast(const std::vector<Ew>& args, Span span) {
  Shape out;
  for (const Ew& a : args) {
    const Shape& s = a->shape;
    if (s.size() > out.size())
      out.insert(out.begin(), s.size() - out.size(), 1);
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[out.size() - s.size() + i];
      int64_t d = s[i];
      if (o == d || d == 1)
        continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string shapes;
      for (const Ew& b : args)
        shapes += (shapes.empty() ? "" : " and ") + core::to_string(b->shape);
      throw Error(ErrorKind::Shape, span, "cannot broadcast shapes " + shapes);
    }
  }
  return out;
}

// The dtype operands of an arithmetic operation convert to, with weak
// scalars taking the other operand's dtype.
DType operand_type(const std::vector<Ew>& args) {
  std::optional<DType> strong;
  bool weak_float = false;
  for (const Ew& a : args) {
    if (a->weak) {
      weak_float |= a->is_float;
      continue;
    }
    strong = strong ? core::promote(*strong, a->dtype) : a->dtype;
  }
  if (!strong)
    return weak_float ? DType::Float64 : DType::Int64;
  if (weak_float && !core::is_float(*strong))
    return DType::Float32;
  return *strong;
}

bool is_compare(Op op) {
  return core::rule(op) == core::OpRule::Compare;
}

Ew node(EwNode n) {
  return std::make_shared<const EwNode>(std::move(n));
}

} // namespace

Ew ew_tensor(const core::Kernel& k, int tensor, Span span) {
  EwNode n;
  n.kind = EwNode::Kind::Tensor;
  n.tensor = tensor;
  n.dtype = k.tensors[tensor].dtype;
  n.shape = k.tensors[tensor].shape;
  n.span = span;
  return node(std::move(n));
}

Ew ew_int(int64_t v, Span span) {
  EwNode n;
  n.weak = true;
  n.dtype = DType::Int64;
  n.int_value = v;
  n.span = span;
  return node(std::move(n));
}

Ew ew_float(double v, Span span) {
  EwNode n;
  n.weak = true;
  n.is_float = true;
  n.dtype = DType::Float64;
  n.float_value = v;
  n.span = span;
  return node(std::move(n));
}

Ew ew_apply(Op op, std::vector<Ew> args, Span span, std::string_view spelled) {
  const std::string name(spelled.empty() ? core::spelling(op) : spelled);
  EwNode n;
  n.kind = EwNode::Kind::Apply;
  n.op = op;
  n.span = span;
  n.shape = broadcast(args, span);
  DType t = operand_type(args);
  core::OpRule r = core::rule(op);
  if ((r == core::OpRule::Float || r == core::OpRule::FloatToInt) && !core::is_float(t))
    throw Error(ErrorKind::Type, span,
                "`" + name + "` needs floating-point operands, not " + core::to_string(t));
  if (r == core::OpRule::Integer && !core::is_integer(t))
    throw Error(ErrorKind::Type, span,
                "`" + name + "` needs integer operands, not " + core::to_string(t));
  bool all_weak = std::all_of(args.begin(), args.end(), [](const Ew& a) { return a->weak; });
  n.weak = all_weak && !is_compare(op);
  n.is_float = core::is_float(t);
  n.dtype = is_compare(op) ? DType::Bool : (core::is_bool(t) ? DType::Int8 : t);
  if (r == core::OpRule::FloatToInt)
    n.dtype = DType::Int32;
  n.args = std::move(args);
  return node(std::move(n));
}

Ew ew_select(Ew cond, Ew then, Ew otherwise, Span span) {
  EwNode n;
  n.kind = EwNode::Kind::Select;
  n.span = span;
  n.shape = broadcast({cond, then, otherwise}, span);
  DType t = operand_type({then, otherwise});
  n.weak = then->weak && otherwise->weak;
  // Between two integer literals, PlaidML's select is an int32 tensor (its
  // untyped integers' dtype), no longer a weak scalar.
  if (n.weak && !then->is_float && !otherwise->is_float) {
    t = DType::Int32;
    n.weak = false;
  }
  n.is_float = core::is_float(t);
  n.dtype = t;
  n.args = {std::move(cond), std::move(then), std::move(otherwise)};
  return node(std::move(n));
}

namespace {

class Lowering {
public:
  Lowering(const core::Kernel& k, const Shape& shape) : k_(k), shape_(shape) {}

  // \p e as a Kernel expression of dtype \p want (weak scalars and operands
  // are converted to it).
  core::Expr lower(const Ew& e, DType want) {
    switch (e->kind) {
    case EwNode::Kind::Scalar:
      return scalar(*e, want);
    case EwNode::Kind::Tensor:
      return convert(load(*e), want, e->span);
    case EwNode::Kind::Select: {
      core::Expr c = lower(e->args[0], e->args[0]->weak ? DType::Int64 : e->args[0]->dtype);
      if (core::is_float(c->dtype))
        c = core::make_apply(Op::Ne, {c, core::make_const(core::constant(c->dtype, 0), e->span)},
                             e->span, DType::Bool);
      return core::make_select(c, lower(e->args[1], want), lower(e->args[2], want), e->span);
    }
    case EwNode::Kind::Apply:
      break;
    }
    // The operands' dtype: weak operands take the strong ones'.
    DType operands = operand_type(e->args);
    if (operands == DType::Int64 && e->weak && !is_compare(e->op))
      operands = want;
    if (operands == DType::Float64 && e->weak && !is_compare(e->op))
      operands = want;
    if (core::is_bool(operands) && !is_compare(e->op))
      operands = DType::Int8;
    std::vector<core::Expr> args;
    for (const Ew& a : e->args)
      args.push_back(lower(a, operands));
    core::OpRule r = core::rule(e->op);
    std::optional<DType> result;
    if (r == core::OpRule::Compare)
      result = DType::Bool;
    if (r == core::OpRule::FloatToInt)
      result = DType::Int32;
    core::Expr out = core::make_apply(e->op, std::move(args), e->span, result);
    return convert(out, want, e->span);
  }

private:
  core::Expr convert(core::Expr x, DType want, Span span) {
    if (x->dtype == want)
      return x;
    return core::make_cast(std::move(x), want, span);
  }

  core::Expr scalar(const EwNode& e, DType want) {
    if (core::is_float(want))
      return core::make_const(
          core::Scalar::of_float(want, e.is_float ? e.float_value
                                                  : core::int_to_float(want, e.int_value)),
          e.span);
    if (e.is_float)
      throw Error(ErrorKind::Type, e.span,
                  "a float value cannot take part in " + core::to_string(want) + " arithmetic");
    if (!core::is_bool(want) &&
        (e.int_value < core::int_min(want) || e.int_value > core::int_max(want)))
      throw Error(ErrorKind::Range, e.span,
                  std::to_string(e.int_value) + " does not fit " + core::to_string(want));
    return core::make_const(core::Scalar::of_int(want, e.int_value), e.span);
  }

  // A tensor read at the broadcast position: its dimensions align with the
  // output's at the right, a size-1 dimension always reads index 0.
  core::Expr load(const EwNode& e) {
    const Shape& s = k_.tensors[e.tensor].shape;
    std::vector<core::Expr> index;
    size_t offset = shape_.size() - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == 1 && shape_[offset + i] != 1)
        index.push_back(core::make_const(core::Scalar::of_int(DType::Int64, 0), e.span));
      else
        index.push_back(core::make_var(static_cast<int>(offset + i), DType::Int64, e.span));
    }
    return core::make_load(e.tensor, k_.tensors[e.tensor].dtype, std::move(index), e.span);
  }

  const core::Kernel& k_;
  const Shape& shape_;
};

} // namespace

int emit_elementwise(core::Kernel& k, const Ew& e, const std::string& name, Span span) {
  DType t = e->weak ? (e->is_float ? DType::Float32 : DType::Int64) : e->dtype;
  core::check_tensor_size(t, e->shape, span);
  core::Statement s;
  s.span = span;
  for (size_t i = 0; i < e->shape.size(); ++i)
    s.vars.push_back({"d" + std::to_string(i), 0, e->shape[i], false, DType::Int64, span});
  for (size_t i = 0; i < e->shape.size(); ++i)
    s.out_index.push_back(core::make_var(static_cast<int>(i), DType::Int64, span));
  s.value = Lowering(k, e->shape).lower(e, t);
  s.aggregation = core::Aggregation::Assign;
  s.init = core::constant(t, 0);
  int id = static_cast<int>(k.tensors.size());
  k.tensors.push_back({name, t, e->shape, core::TensorRole::Intermediate, span});
  s.target = id;
  core::check_statement_count(k, span);
  k.statements.push_back(std::move(s));
  return id;
}

} // namespace teval::parser::tile
