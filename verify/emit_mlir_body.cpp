// One statement's region as MLIR operations (see emit_mlir_body.h). Each
// value is computed in its dtype with the interpreter's roundings: float32
// and float64 operations as arith's IEEE operations; float16 through
// float32 (exact, or one rounding for + - * / sqrt, which float32's 24
// bits make innocuous); library functions in float64, rounded once to
// float32 and then to the dtype, as the C emitter does; integers in their
// width, wrapping, with the division of the smallest value by -1 defined.
// `.when` and the right of && and || are scf.if, evaluated only when
// chosen, as the interpreter evaluates them.
#include "verify/emit_mlir_body.h"

#include "core/error.h"
#include "verify/emit_mlir.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>

namespace teval::verify::mlir {

using core::DType;
using core::Expr;

namespace {

std::string hex(uint64_t bits, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llX", digits, static_cast<unsigned long long>(bits));
  return buf;
}

// The bits of \p v in the float type named \p type.
std::string float_bits(const std::string& type, double v) {
  if (type == "f64") {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return hex(b, 16);
  }
  if (type == "f16")
    return hex(core::float16_bits(v), 4);
  float f = static_cast<float>(v);
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return hex(b, 8);
}

} // namespace

std::string element_type(DType t) {
  switch (t) {
  case DType::Bool:
    return "i1";
  case DType::Int8:
  case DType::UInt8:
  case DType::Int2:
  case DType::Int4:
  case DType::UInt2:
  case DType::UInt4: // kernels have none (kernel_dtype)
    return "i8";
  case DType::Int16:
  case DType::UInt16:
    return "i16";
  case DType::Int32:
  case DType::UInt32:
    return "i32";
  case DType::Int64:
  case DType::UInt64:
    return "i64";
  case DType::Float16:
    return "f16";
  case DType::Float32:
    return "f32";
  TEVAL_MINIFLOAT_CASES:
  TEVAL_COMPLEX_CASES:
    TEVAL_UNREACHABLE("kernels have no minifloats and no complex values (kernel_dtype)");
  case DType::Float64:
    return "f64";
  case DType::BFloat16:
    throw Inexpressible{"bfloat16 (MLIR 19 lowers its arithmetic on x86-64 with double "
                        "roundings teval's interpreter does not make)"};
  }
  TEVAL_UNREACHABLE("unknown dtype");
}

std::string tensor_type(const core::TensorDecl& t) {
  std::string s = "tensor<";
  for (int64_t d : t.shape)
    s += std::to_string(d) + "x";
  return s + element_type(t.dtype) + ">";
}

std::string constant(DType t, const core::Scalar& v) {
  const std::string type = element_type(t);
  if (core::is_float(t))
    return float_bits(type, v.f) + " : " + type;
  if (t == DType::Bool)
    return std::string(v.i ? "true" : "false");
  // Signless: the value's bits as a signed number of the width.
  return std::to_string(core::wrap_int(core::bit_width(t) == 8    ? DType::Int8
                                       : core::bit_width(t) == 16 ? DType::Int16
                                       : core::bit_width(t) == 32 ? DType::Int32
                                                                  : DType::Int64,
                                       v.i)) +
         " : " + type;
}

Body::Body(const core::Kernel& k, const core::Statement& s, const std::vector<std::string>& tensors,
           int& counter)
    : k_(k), s_(s), tensors_(tensors), counter_(counter), vars_(s.vars.size()) {}

const std::vector<Operand>& Body::operands() {
  find_operands(s_.value, false);
  return operands_;
}

void Body::find_operands(const Expr& e, bool lazy) {
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, core::Load>) {
          // An operand when evaluated at every point at affine indices,
          // each plain variable's range being the whole dimension (linalg
          // would take its loop bound from the tensor).
          Operand o{n.tensor, "", {}};
          bool operand = !lazy;
          const core::Shape& shape = k_.tensors[n.tensor].shape;
          for (size_t d = 0; d < n.index.size() && operand; ++d) {
            std::optional<std::string> a = affine(n.index[d]);
            std::optional<int> v = pure_dim(n.index[d]);
            operand = a && (!v || s_.vars[*v].end - s_.vars[*v].begin == shape[d]);
            o.map += (d ? ", " : "") + a.value_or("");
            o.permutation &= v && std::find(o.bound.begin(), o.bound.end(), *v) == o.bound.end();
            if (v)
              o.bound.push_back(*v);
          }
          if (operand && !operand_of_.contains(e.get())) {
            operand_of_[e.get()] = static_cast<int>(operands_.size());
            operands_.push_back(o);
          }
          for (const Expr& i : n.index)
            find_operands(i, lazy);
        } else if constexpr (std::is_same_v<T, core::Apply>) {
          const bool short_circuit = n.op == core::Op::And || n.op == core::Op::Or;
          for (size_t i = 0; i < n.args.size(); ++i)
            find_operands(n.args[i], lazy || (short_circuit && i == 1));
        } else if constexpr (std::is_same_v<T, core::Cast>) {
          find_operands(n.value, lazy);
        } else if constexpr (std::is_same_v<T, core::Select>) {
          find_operands(n.cond, lazy);
          find_operands(n.then, true);
          find_operands(n.otherwise, true);
        }
      },
      e->node);
}

// \p e as an affine expression of the dimensions d0... (one per index
// variable, starting at 0), when it is one: sums, differences and constant
// multiples of index variables in index arithmetic, which never wraps in a
// program the interpreter accepts.
std::optional<std::string> Body::affine(const Expr& e) const {
  if (!core::is_integer(e->dtype))
    return std::nullopt;
  if (const auto* c = std::get_if<core::Const>(&e->node))
    return std::to_string(c->value.i);
  if (const auto* v = std::get_if<core::VarRef>(&e->node)) {
    const int64_t begin = s_.vars[v->var].begin;
    return "(d" + std::to_string(v->var) + (begin ? " + " + std::to_string(begin) : "") + ")";
  }
  if (const auto* c = std::get_if<core::Cast>(&e->node)) {
    const DType from = c->value->dtype;
    bool widening = core::is_integer(from) && is_signed(from) == is_signed(e->dtype) &&
                    core::bit_width(from) <= core::bit_width(e->dtype);
    return widening ? affine(c->value) : std::nullopt;
  }
  const auto* a = std::get_if<core::Apply>(&e->node);
  if (!a || (a->overflow != core::Overflow::Trap && e->dtype != DType::Int64))
    return std::nullopt;
  std::vector<std::optional<std::string>> x;
  for (const Expr& arg : a->args)
    x.push_back(affine(arg));
  for (const auto& v : x)
    if (!v)
      return std::nullopt;
  switch (a->op) {
  case core::Op::Add:
    return "(" + *x[0] + " + " + *x[1] + ")";
  case core::Op::Sub:
    return "(" + *x[0] + " - " + *x[1] + ")";
  case core::Op::Neg:
    return "(" + *x[0] + " * -1)";
  case core::Op::Mul:
    if (std::holds_alternative<core::Const>(a->args[1]->node) ||
        std::holds_alternative<core::Const>(a->args[0]->node))
      return "(" + *x[0] + " * " + *x[1] + ")";
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

// The loop dimension \p e is once MLIR simplifies its affine map: the
// variable whose shifted dimension d (the variable minus its begin) it is,
// 1·d + 0 (`i - 1` of a variable from 1 is d0). linalg takes that loop's
// range from the operand's dimension there.
std::optional<int> Body::pure_dim(const Expr& e) const {
  if (!affine(e))
    return std::nullopt;
  std::map<int, __int128> coeffs;
  __int128 constant = 0;
  std::function<bool(const Expr&, __int128)> linear = [&](const Expr& x, __int128 scale) {
    if (const auto* c = std::get_if<core::Const>(&x->node)) {
      constant += scale * c->value.i;
      return true;
    }
    if (const auto* v = std::get_if<core::VarRef>(&x->node)) {
      coeffs[v->var] += scale;
      constant += scale * s_.vars[v->var].begin;
      return true;
    }
    if (const auto* c = std::get_if<core::Cast>(&x->node))
      return linear(c->value, scale);
    const auto* a = std::get_if<core::Apply>(&x->node);
    if (!a)
      return false;
    switch (a->op) {
    case core::Op::Add:
      return linear(a->args[0], scale) && linear(a->args[1], scale);
    case core::Op::Sub:
      return linear(a->args[0], scale) && linear(a->args[1], -scale);
    case core::Op::Neg:
      return linear(a->args[0], -scale);
    case core::Op::Mul: {
      const int k = std::holds_alternative<core::Const>(a->args[1]->node) ? 1 : 0;
      const auto& c = std::get<core::Const>(a->args[static_cast<size_t>(k)]->node);
      return linear(a->args[static_cast<size_t>(1 - k)], scale * c.value.i);
    }
    default:
      return false;
    }
  };
  if (!linear(e, 1) || constant != 0)
    return std::nullopt;
  std::optional<int> dim;
  for (const auto& [v, c] : coeffs) {
    if (c == 0)
      continue;
    if (c != 1 || dim)
      return std::nullopt;
    dim = v;
  }
  return dim;
}

std::string Body::line(const std::string& text) {
  *out_ += indent_ + text + "\n";
  return text;
}

std::string Body::op(const std::string& text) {
  std::string name = "%v" + std::to_string(counter_++);
  line(name + " = " + text);
  return name;
}

std::string Body::var(int v) {
  if (!vars_[v]) {
    const core::IndexVar& iv = s_.vars[v];
    std::string i = op("linalg.index " + std::to_string(v) + " : index");
    std::string x = op("arith.index_cast " + i + " : index to i64");
    if (iv.begin)
      x = op("arith.addi " + x + ", " + int_constant(DType::Int64, iv.begin) + " : i64");
    vars_[v] = x;
  }
  return *vars_[v];
}

std::string Body::value(std::string& out) {
  out_ = &out;
  // Every index variable the value uses, computed first, where each of
  // its uses (inside an scf.if too) sees it.
  core::for_each_node(s_.value, [&](const Expr& x) {
    if (const auto* v = std::get_if<core::VarRef>(&x->node))
      var(v->var);
  });
  return emit(s_.value);
}

std::string Body::int_constant(DType t, int64_t v) {
  return op("arith.constant " + constant(t, core::Scalar::of_int(t, v)));
}

std::string Body::float_constant(const std::string& type, double v) {
  return op("arith.constant " + float_bits(type, v) + " : " + type);
}

std::string Body::to_i1(const std::string& v, DType t) {
  if (t == DType::Bool)
    return v;
  const std::string type = element_type(t);
  if (core::is_float(t))
    return op("arith.cmpf une, " + v + ", " + float_constant(type, 0) + " : " + type);
  return op("arith.cmpi ne, " + v + ", " + int_constant(t, 0) + " : " + type);
}

std::string Body::from_i1(const std::string& b, DType t) {
  if (t == DType::Bool)
    return b;
  return op(std::string(core::is_float(t) ? "arith.uitofp " : "arith.extui ") + b + " : i1 to " +
            element_type(t));
}

std::string Body::to_index(const std::string& v, DType t) {
  return op("arith.index_cast " + convert(v, t, DType::Int64) + " : i64 to index");
}

// \p v (float dtype \p t) in the wider float type \p to (exactly).
std::string Body::widen(const std::string& v, DType t, const std::string& to) {
  const std::string type = element_type(t);
  return type == to ? v : op("arith.extf " + v + " : " + type + " to " + to);
}

// \p v (float type \p from) rounded to float dtype \p t.
std::string Body::narrow(const std::string& v, const std::string& from, DType t) {
  const std::string type = element_type(t);
  return type == from ? v : op("arith.truncf " + v + " : " + from + " to " + type);
}

std::string Body::convert(const std::string& v, DType from, DType to) {
  if (from == to)
    return v;
  if (to == DType::Bool)
    return to_i1(v, from);
  if (from == DType::Bool)
    return from_i1(v, to);
  const std::string f = element_type(from), t = element_type(to);
  if (core::is_float(to) && core::is_float(from))
    return core::bit_width(to) > core::bit_width(from)
               ? op("arith.extf " + v + " : " + f + " to " + t)
               : op("arith.truncf " + v + " : " + f + " to " + t);
  if (core::is_float(to)) {
    // float16 through float32: exact below 2^24, and beyond float16's range
    // either way.
    const std::string via = to == DType::Float16 ? "f32" : t;
    std::string r = op(std::string(is_signed(from) ? "arith.sitofp " : "arith.uitofp ") + v +
                       " : " + f + " to " + via);
    return narrow(r, via, to);
  }
  if (core::is_float(from)) {
    const std::string x = widen(v, from, from == DType::Float16 ? "f32" : f);
    return op(std::string(is_signed(to) ? "arith.fptosi " : "arith.fptoui ") + x + " : " +
              (from == DType::Float16 ? "f32" : f) + " to " + t);
  }
  const int wf = core::bit_width(from), wt = core::bit_width(to);
  if (wf == wt)
    return v;
  if (wt < wf)
    return op("arith.trunci " + v + " : " + f + " to " + t);
  return op(std::string(is_signed(from) ? "arith.extsi " : "arith.extui ") + v + " : " + f +
            " to " + t);
}

// scf.if \p cond -> \p t: \p then, else \p otherwise (or the SSA value
// \p constant_else, defined before).
std::string Body::lazy_if(const std::string& cond, DType t, const Expr& then, const Expr* otherwise,
                          const std::string& constant_else) {
  const std::string type = element_type(t);
  std::string name = "%v" + std::to_string(counter_++);
  line(name + " = scf.if " + cond + " -> (" + type + ") {");
  const std::string outer = indent_;
  indent_ += "  ";
  line("scf.yield " + convert(emit(then), then->dtype, t) + " : " + type);
  indent_ = outer;
  line("} else {");
  indent_ += "  ";
  line("scf.yield " +
       (otherwise ? convert(emit(*otherwise), (*otherwise)->dtype, t) : constant_else) + " : " +
       type);
  indent_ = outer;
  line("}");
  return name;
}

std::string Body::emit(const Expr& e) {
  const core::ExprNode& n = *e;
  if (auto it = operand_of_.find(&n); it != operand_of_.end())
    return "%a" + std::to_string(it->second);
  if (const auto* c = std::get_if<core::Const>(&n.node))
    return op("arith.constant " + constant(n.dtype, c->value));
  if (const auto* v = std::get_if<core::VarRef>(&n.node))
    return convert(var(v->var), DType::Int64, n.dtype);
  if (const auto* l = std::get_if<core::Load>(&n.node)) {
    std::string index;
    for (const Expr& i : l->index)
      index += (index.empty() ? "" : ", ") + to_index(emit(i), i->dtype);
    return op("tensor.extract " + tensors_[l->tensor] + "[" + index +
              "] : " + tensor_type(k_.tensors[l->tensor]));
  }
  if (const auto* c = std::get_if<core::Cast>(&n.node))
    return convert(emit(c->value), c->value->dtype, n.dtype);
  if (const auto* s = std::get_if<core::Select>(&n.node))
    return lazy_if(to_i1(emit(s->cond), s->cond->dtype), n.dtype, s->then, &s->otherwise, "");
  return apply(n, std::get<core::Apply>(n.node));
}

std::string Body::apply(const core::ExprNode& e, const core::Apply& a) {
  using core::Op;
  const DType t = a.args[0]->dtype;
  auto arg = [&](size_t i) { return emit(a.args[i]); };
  switch (a.op) {
  case Op::And:
  case Op::Or: {
    // x && y is (x ? y : false); x || y is (!x ? y : true).
    const bool is_and = a.op == Op::And;
    std::string x = to_i1(arg(0), t);
    const std::string fixed = op(std::string("arith.constant ") + (is_and ? "false" : "true"));
    if (!is_and)
      x = op("arith.xori " + x + ", " + fixed + " : i1");
    return from_i1(lazy_if(x, DType::Bool, a.args[1], nullptr, fixed), e.dtype);
  }
  case Op::Not:
    return from_i1(
        op("arith.xori " + to_i1(arg(0), t) + ", " + op("arith.constant true") + " : i1"), e.dtype);
  case Op::Lt:
  case Op::Le:
  case Op::Gt:
  case Op::Ge:
  case Op::Eq:
  case Op::Ne:
  case Op::Same: {
    std::string x = arg(0), y = arg(1), type = element_type(t);
    if (t == DType::Float16) {
      x = widen(x, t, "f32");
      y = widen(y, t, "f32");
      type = "f32";
    }
    static const std::map<Op, std::pair<const char*, const char*>> predicates = {
        {Op::Lt, {"olt", "lt"}},  {Op::Le, {"ole", "le"}}, {Op::Gt, {"ogt", "gt"}},
        {Op::Ge, {"oge", "ge"}},  {Op::Eq, {"oeq", "eq"}}, {Op::Ne, {"une", "ne"}},
        {Op::Same, {"oeq", "eq"}}};
    const auto [fp, ip] = predicates.at(a.op);
    std::string r;
    if (core::is_float(t)) {
      r = op(std::string("arith.cmpf ") + fp + ", " + x + ", " + y + " : " + type);
      if (a.op == Op::Same) { // identical: both NaN, or equal with one sign
        const bool wide = type == "f64";
        const std::string bits = wide ? "i64" : "i32";
        const std::string zero = int_constant(wide ? DType::Int64 : DType::Int32, 0);
        auto negative = [&](const std::string& v) {
          const std::string b = op("arith.bitcast " + v + " : " + type + " to " + bits);
          return op("arith.cmpi slt, " + b + ", " + zero + " : " + bits);
        };
        auto nan = [&](const std::string& v) {
          return op("arith.cmpf uno, " + v + ", " + v + " : " + type);
        };
        const std::string same_sign =
            op("arith.cmpi eq, " + negative(x) + ", " + negative(y) + " : i1");
        const std::string equal = op("arith.andi " + r + ", " + same_sign + " : i1");
        const std::string nans = op("arith.andi " + nan(x) + ", " + nan(y) + " : i1");
        r = op("arith.ori " + equal + ", " + nans + " : i1");
      }
    } else {
      std::string pred = ip;
      if (pred != "eq" && pred != "ne")
        pred = (is_signed(t) ? "s" : "u") + pred;
      r = op("arith.cmpi " + pred + ", " + x + ", " + y + " : " + type);
    }
    return from_i1(r, e.dtype);
  }
  case Op::Floor:
  case Op::Ceil: {
    const std::string x = widen(arg(0), t, "f64");
    const std::string r =
        op(std::string(a.op == Op::Floor ? "math.floor " : "math.ceil ") + x + " : f64");
    return op(std::string(is_signed(e.dtype) ? "arith.fptosi " : "arith.fptoui ") + r +
              " : f64 to " + element_type(e.dtype));
  }
  default:
    break;
  }
  return core::is_float(e.dtype) ? floating(a, e.dtype) : integer(a, e.dtype);
}

} // namespace teval::verify::mlir
