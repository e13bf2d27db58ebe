// The arithmetic of one statement's region (see emit_mlir_body.h):
// integer and float operators in the interpreter's roundings, and the
// fold of a value into its accumulator.
#include "verify/emit_mlir_body.h"

#include "verify/emit_mlir.h"

#include <map>

namespace teval::verify::mlir {

using core::DType;

namespace {} // namespace

std::string Body::integer(const core::Apply& a, DType t) {
  using core::Op;
  const std::string type = element_type(t), x = emit(a.args[0]);
  const bool sign = is_signed(t);
  auto zero = [&] { return int_constant(t, 0); };
  if (a.op == Op::Neg)
    return op("arith.subi " + zero() + ", " + x + " : " + type);
  if (a.op == Op::Abs) {
    const std::string neg = op("arith.subi " + zero() + ", " + x + " : " + type);
    const std::string below = op("arith.cmpi slt, " + x + ", " + zero() + " : " + type);
    return sign ? op("arith.select " + below + ", " + neg + ", " + x + " : " + type) : x;
  }
  const std::string y = emit(a.args[1]);
  auto binary = [&](const std::string& name) {
    return op("arith." + name + " " + x + ", " + y + " : " + type);
  };
  switch (a.op) {
  case Op::Add:
    return binary("addi");
  case Op::Sub:
    return binary("subi");
  case Op::Mul:
    return binary("muli");
  case Op::Max:
    return binary(sign ? "maxsi" : "maxui");
  case Op::Min:
    return binary(sign ? "minsi" : "minui");
  case Op::Shl:
    return binary("shli");
  case Op::Shr:
    return binary(sign ? "shrsi" : "shrui");
  case Op::Div:
  case Op::Mod: {
    if (!sign)
      return binary(a.op == Op::Div ? "divui" : "remui");
    // The smallest value divided by -1 wraps (to itself; remainder 0),
    // where arith.divsi is undefined: divide by 1 instead and negate.
    const std::string minus_one =
        op("arith.cmpi eq, " + y + ", " + int_constant(t, -1) + " : " + type);
    const std::string divisor =
        op("arith.select " + minus_one + ", " + int_constant(t, 1) + ", " + y + " : " + type);
    if (a.op == Op::Div) {
      const std::string q = op("arith.divsi " + x + ", " + divisor + " : " + type);
      const std::string neg = op("arith.subi " + zero() + ", " + x + " : " + type);
      return op("arith.select " + minus_one + ", " + neg + ", " + q + " : " + type);
    }
    // The floored remainder: the truncated one, plus the divisor when the
    // signs differ.
    const std::string r = op("arith.remsi " + x + ", " + divisor + " : " + type);
    const std::string nonzero = op("arith.cmpi ne, " + r + ", " + zero() + " : " + type);
    const std::string differ =
        op("arith.xori " + op("arith.cmpi slt, " + r + ", " + zero() + " : " + type) + ", " +
           op("arith.cmpi slt, " + y + ", " + zero() + " : " + type) + " : i1");
    const std::string fix = op("arith.andi " + nonzero + ", " + differ + " : i1");
    const std::string sum = op("arith.addi " + r + ", " + y + " : " + type);
    return op("arith.select " + fix + ", " + sum + ", " + r + " : " + type);
  }
  default:
    throw Inexpressible{"the operator " + std::string(core::spelling(a.op)) + " on integers"};
  }
}

std::string Body::floating(const core::Apply& a, DType t) {
  using core::Op;
  const std::string type = element_type(t);
  const bool wide = t == DType::Float64;
  // The type a float16 value is computed in (float32), and for library
  // functions float64.
  const std::string work = wide ? "f64" : "f32";
  auto in_work = [&](size_t i) { return widen(emit(a.args[i]), t, work); };
  auto done = [&](const std::string& v) { return narrow(v, work, t); };
  auto binary = [&](const std::string& name) {
    const std::string x = in_work(0), y = in_work(1);
    return done(op("arith." + name + " " + x + ", " + y + " : " + work));
  };
  auto unary = [&](const std::string& name, const std::string& x) {
    return op(name + " " + x + " : " + work);
  };
  // A library function in float64, rounded to float32 and then to the dtype.
  auto precise = [&](const std::string& f64_value) {
    return wide ? f64_value : done(narrow(f64_value, "f64", DType::Float32));
  };
  switch (a.op) {
  case Op::Add:
    return binary("addf");
  case Op::Sub:
    return binary("subf");
  case Op::Mul:
    return binary("mulf");
  case Op::Div:
    return binary("divf");
  case Op::Max:
    return binary("maximumf");
  case Op::Min:
    return binary("minimumf");
  case Op::Neg:
    return done(unary("arith.negf", in_work(0)));
  case Op::Abs:
    return done(unary("math.absf", in_work(0)));
  case Op::RFloor:
    return done(unary("math.floor", in_work(0)));
  case Op::RCeil:
    return done(unary("math.ceil", in_work(0)));
  case Op::Sqrt:
    return done(unary("math.sqrt", in_work(0)));
  case Op::Rsqrt:
    return done(op("arith.divf " + float_constant(work, 1) + ", " + unary("math.sqrt", in_work(0)) +
                   " : " + work));
  case Op::Frac: {
    const std::string x = in_work(0);
    return done(op("arith.subf " + x + ", " + unary("math.floor", x) + " : " + work));
  }
  case Op::Mod: {
    // fmod (exact), plus the divisor when the signs differ, in float64.
    const std::string x = widen(emit(a.args[0]), t, "f64"), y = widen(emit(a.args[1]), t, "f64");
    const std::string zero = float_constant("f64", 0);
    const std::string r = op("arith.remf " + x + ", " + y + " : f64");
    const std::string nonzero = op("arith.cmpf une, " + r + ", " + zero + " : f64");
    const std::string differ =
        op("arith.xori " + op("arith.cmpf olt, " + r + ", " + zero + " : f64") + ", " +
           op("arith.cmpf olt, " + y + ", " + zero + " : f64") + " : i1");
    const std::string fix = op("arith.andi " + nonzero + ", " + differ + " : i1");
    const std::string sum = op("arith.addf " + r + ", " + y + " : f64");
    return narrow(op("arith.select " + fix + ", " + sum + ", " + r + " : f64"), "f64", t);
  }
  case Op::Pow: {
    const std::string x = widen(emit(a.args[0]), t, "f64"), y = widen(emit(a.args[1]), t, "f64");
    return precise(op("math.powf " + x + ", " + y + " : f64"));
  }
  case Op::Atan2: {
    const std::string x = widen(emit(a.args[0]), t, "f64"), y = widen(emit(a.args[1]), t, "f64");
    return precise(op("math.atan2 " + x + ", " + y + " : f64"));
  }
  case Op::Erfc: // MLIR 19's math dialect has no erfc: the C library's
    return precise(op("func.call @erfc(" + widen(emit(a.args[0]), t, "f64") + ") : (f64) -> f64"));
  case Op::Sigmoid: {
    // 1 / (1 + exp(-x)), exp in float64 rounded to float32 (or float64's).
    const std::string neg = unary("arith.negf", in_work(0));
    std::string e =
        op("math.exp " + widen(neg, wide ? DType::Float64 : DType::Float32, "f64") + " : f64");
    if (!wide)
      e = narrow(e, "f64", DType::Float32);
    const std::string one = float_constant(work, 1);
    const std::string sum = op("arith.addf " + one + ", " + e + " : " + work);
    return done(op("arith.divf " + one + ", " + sum + " : " + work));
  }
  case Op::NormCdf: {
    // 0.5 * erfc(-x * sqrt(1/2)), erfc the C library's in float64.
    const std::string neg = unary("arith.negf", in_work(0));
    const std::string scaled =
        op("arith.mulf " + neg + ", " +
           float_constant(work, wide ? 0.70710678118654752440
                                     : static_cast<float>(0.70710678118654752440)) +
           " : " + work);
    std::string r =
        op("func.call @erfc(" + widen(scaled, wide ? DType::Float64 : DType::Float32, "f64") +
           ") : (f64) -> f64");
    if (!wide)
      r = narrow(r, "f64", DType::Float32);
    return done(op("arith.mulf " + float_constant(work, 0.5) + ", " + r + " : " + work));
  }
  default:
    break;
  }
  static const std::map<Op, const char*> functions = {
      {Op::Exp, "math.exp"},     {Op::Log, "math.log"},     {Op::Sin, "math.sin"},
      {Op::Cos, "math.cos"},     {Op::Tan, "math.tan"},     {Op::Asin, "math.asin"},
      {Op::Acos, "math.acos"},   {Op::Atan, "math.atan"},   {Op::Sinh, "math.sinh"},
      {Op::Cosh, "math.cosh"},   {Op::Tanh, "math.tanh"},   {Op::Erf, "math.erf"},
      {Op::Expm1, "math.expm1"}, {Op::Log1p, "math.log1p"}, {Op::Cbrt, "math.cbrt"},
      {Op::Asinh, "math.asinh"}, {Op::Acosh, "math.acosh"}, {Op::Atanh, "math.atanh"}};
  auto f = functions.find(a.op);
  if (f == functions.end())
    throw Inexpressible{"the function " + std::string(core::spelling(a.op))};
  return precise(op(std::string(f->second) + " " + widen(emit(a.args[0]), t, "f64") + " : f64"));
}

std::string Body::fold(const std::string& acc, const std::string& v, std::string& out) {
  out_ = &out;
  using core::Aggregation;
  const DType t = k_.tensors[s_.target].dtype;
  const std::string type = element_type(t);
  switch (s_.aggregation) {
  case Aggregation::Assign:
    return v;
  case Aggregation::All:
  case Aggregation::Any: {
    const std::string both =
        op(std::string(s_.aggregation == Aggregation::All ? "arith.andi " : "arith.ori ") +
           to_i1(acc, t) + ", " + to_i1(v, t) + " : i1");
    return from_i1(both, t);
  }
  default:
    break;
  }
  const bool is_float = core::is_float(t), sign = is_signed(t);
  const std::string work = t == DType::Float16 ? "f32" : type;
  const std::string x = is_float ? widen(acc, t, work) : acc, y = is_float ? widen(v, t, work) : v;
  const char* name = nullptr;
  switch (s_.aggregation) {
  case Aggregation::Sum:
    name = is_float ? "addf" : "addi";
    break;
  case Aggregation::Product:
    name = is_float ? "mulf" : "muli";
    break;
  case Aggregation::Max:
    name = is_float ? "maximumf" : sign ? "maxsi" : "maxui";
    break;
  default:
    name = is_float ? "minimumf" : sign ? "minsi" : "minui";
    break;
  }
  const std::string r = op(std::string("arith.") + name + " " + x + ", " + y + " : " + work);
  return is_float ? narrow(r, work, t) : r;
}

} // namespace teval::verify::mlir
