// The generator of random MLIR functions of ByteIR ops (see generators.h):
// a chain of 1 to 5 ops over values of every element type, each reading
// the function's arguments or earlier results (a new argument when none
// fits), every ByteIR op with each value of its attributes, mhlo and
// stablehlo spellings, and scalar tensor<f32> values broadcast into
// tensors as frontends emit them. Results no later op reads are returned.
#include "verify/mlir_builder.h"

namespace teval::verify {

namespace mlir_gen {

void MlirBuilder::op() {
  if (natives_ && chance(35))
    return native();
  switch (pick(0, 19)) {
  case 0:
  case 1: { // x op y, y an earlier value, an argument or a splat constant
    // (power of floats, remainder of integers); or an optimization_barrier
    const char* ops[] = {"add", "subtract", "multiply", "divide", "maximum", "minimum", ""};
    Val x = operand(number_dtype());
    ops[6] = core::is_float(x.dtype) ? "power" : "remainder";
    if (chance(5)) {
      Val y = operand(std::nullopt);
      define(chance(50) ? "stablehlo.optimization_barrier " + x.name + ", " + y.name + " : " +
                              type_of(x) + ", " + type_of(y)
                        : "\"" + dialect() + "optimization_barrier\"(" + x.name + ", " + y.name +
                              ") : (" + type_of(x) + ", " + type_of(y) + ") -> (" + type_of(x) +
                              ", " + type_of(y) + ")",
             {x, y});
      return;
    }
    std::string y;
    if (chance(30)) {
      std::string c = core::is_float(x.dtype)
                          ? (chance(50) ? "1.250000e-01" : "-2.0")
                          : (chance(50) || core::is_unsigned(x.dtype) ? "3" : "-1");
      y = define(dialect() + "constant dense<" + c + "> : " + type_of(x), {x})[0];
    } else {
      y = operand(x.dtype, &x.shape).name;
    }
    define(dialect() + ops[pick(0, 6)] + " " + x.name + ", " + y + " : " + type_of(x), {x});
    return;
  }
  case 2: { // unary math, or negate and abs of any type
    Val x = operand(float_dtype());
    const char* ops[] = {"negate", "abs", "exponential", "log", "tanh", "sqrt", "rsqrt"};
    define(dialect() + ops[pick(0, 6)] + " " + x.name + " : " + type_of(x), {x});
    return;
  }
  case 3: { // convert to any type
    Val x = operand(std::nullopt);
    Val to = x;
    to.dtype = one_of(kDTypes);
    define(dialect() + "convert " + x.name + " : (" + type_of(x) + ") -> " + type_of(to), {to});
    return;
  }
  case 4: { // broadcast: a scalar into a tensor, or a new leading axis
    Val x = operand(number_dtype(), chance(50) ? &kScalar : nullptr);
    Val to = x;
    to.shape.insert(to.shape.begin(), pick(1, 3));
    if (x.shape.empty() && chance(50))
      to.shape.push_back(pick(1, 4));
    std::string dims;
    for (size_t d = 0; d < x.shape.size(); ++d)
      dims += (d ? ", " : "") + std::to_string(d + 1);
    if (chance(25)) { // the dynamic form, its output shape a constant
      std::string shape = shape_constant(to.shape);
      std::vector<int64_t> along;
      for (size_t d = 0; d < x.shape.size(); ++d)
        along.push_back(static_cast<int64_t>(d) + 1);
      define("\"" + dialect() + "dynamic_broadcast_in_dim\"(" + x.name + ", " + shape +
                 ") {broadcast_dimensions = " + ints(along, false) + "} : (" + type_of(x) + ", " +
                 shape_type(to.shape) + ") -> " + type_of(to),
             {to});
      return;
    }
    define("stablehlo.broadcast_in_dim " + x.name + ", dims = [" + dims + "] : (" + type_of(x) +
               ") -> " + type_of(to),
           {to});
    return;
  }
  case 5: { // reshape to one dimension; or get_dimension_size
    Val x = operand(std::nullopt);
    Val to = x;
    if (chance(10) && !x.shape.empty()) {
      std::string d = std::to_string(pick(0, static_cast<int>(x.shape.size()) - 1));
      define(chance(50) ? "stablehlo.get_dimension_size " + x.name + ", dim = " + d + " : (" +
                              type_of(x) + ") -> tensor<i32>"
                        : "\"" + dialect() + "get_dimension_size\"(" + x.name + ") {dimension = " +
                              d + " : i64} : (" + type_of(x) + ") -> tensor<i32>",
             {Val{"", DType::Int32, {}}});
      return;
    }
    to.shape = {core::checked_numel(x.shape).value_or(0)};
    if (chance(25)) {
      std::string shape = shape_constant(to.shape);
      define(dialect() + "dynamic_reshape " + x.name + ", " + shape + " : (" + type_of(x) + ", " +
                 shape_type(to.shape) + ") -> " + type_of(to),
             {to});
      return;
    }
    define(dialect() + "reshape " + x.name + " : (" + type_of(x) + ") -> " + type_of(to), {to});
    return;
  }
  case 6: { // softmax, log_softmax, gelu, erf
    Val x = operand(float_dtype(), nullptr, 1);
    std::string ops[] = {"softmax", "log_softmax", "gelu", "erf"};
    std::string op = ops[pick(0, 3)], attrs;
    if (op == "gelu")
      attrs = std::string("approximate = \"") + (chance(50) ? "tanh" : "none") + "\"";
    else if (op != "erf")
      attrs = axis(x) + " : i64";
    define(custom_call(op, x.name, attrs, "(" + type_of(x) + ") -> " + type_of(x)), {x});
    return;
  }
  case 7:
    return norm();
  case 8: { // addn of 1 to 3 values of one type
    Val x = operand(float_dtype());
    std::string operands = x.name, types = type_of(x);
    for (int i = pick(1, 3); i > 1; --i) {
      operands += ", " + operand(x.dtype, &x.shape).name;
      types += ", " + type_of(x);
    }
    define(custom_call("addn", operands, "", "(" + types + ") -> " + type_of(x)), {x});
    return;
  }
  case 9:
    return arg_or_top_k();
  case 10:
    return quantization();
  case 11: { // one_hot of integer indices
    Val x = operand(chance(50) ? DType::Int32 : DType::Int64);
    int64_t depth = pick(0, 4);
    size_t at = static_cast<size_t>(pick(0, static_cast<int>(x.shape.size())));
    Val to = x;
    to.shape.insert(to.shape.begin() + static_cast<std::ptrdiff_t>(at), depth);
    to.dtype = chance(50) ? DType::Float32 : one_of(kDTypes);
    if (to.dtype == DType::Bool)
      to.dtype = DType::Int8;
    bool f = core::is_float(to.dtype);
    std::string attrs =
        "axis = " + std::to_string(at) + " : i64, depth = " + std::to_string(depth) +
        " : i64, on_value = " + (f ? "1.5" : "7") + " : " + element(to.dtype) + ", off_value = " +
        (f                             ? "-0.0"
         : core::is_unsigned(to.dtype) ? "0"
                                       : "-1") +
        " : " + element(to.dtype);
    define(custom_call("one_hot", x.name, attrs, "(" + type_of(x) + ") -> " + type_of(to)), {to});
    return;
  }
  case 12:
    return resize();
  case 13:
    return layout();
  case 14:
    return selection();
  case 15:
  case 18: // twice as often: StableHLO's and CHLO's many elementwise ops
    return elementwise();
  case 16:
    return contraction();
  case 17:
    return reduction();
  default: { // rng_uniform: low, high, seed, offset
    DType t = float_dtype();
    std::string scalar = type_of(t, {}), word = type_of(DType::Int64, {});
    std::string operands = operand(t, &kScalar).name + ", " + operand(t, &kScalar).name + ", " +
                           operand(DType::Int64, &kScalar).name + ", " +
                           operand(DType::Int64, &kScalar).name;
    Val to{"", t, shape()};
    define(custom_call("rng_uniform", operands, "",
                       "(" + scalar + ", " + scalar + ", " + word + ", " + word + ") -> " +
                           type_of(to)),
           {to});
    return;
  }
  }
}

// compare (without TOTALORDER, which only the interpreter runs), select,
// clamp and iota.
void MlirBuilder::selection() {
  const bool pretty = chance(50);
  switch (pick(0, 3)) {
  case 0: {
    Val x = operand(std::nullopt);
    Val y = operand(x.dtype, &x.shape);
    const char* directions[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
    std::string d = directions[pick(0, 5)];
    std::string type = core::is_float(x.dtype)                          ? "FLOAT"
                       : core::kind(x.dtype) == core::DTypeKind::Signed ? "SIGNED"
                                                                        : "UNSIGNED";
    bool written = chance(50);
    Val to{"", DType::Bool, x.shape};
    std::string types = " : (" + type_of(x) + ", " + type_of(x) + ") -> " + type_of(to);
    std::string generic = dialect(), name = generic.substr(0, generic.size() - 1);
    define(pretty ? "stablehlo.compare " + d + ", " + x.name + ", " + y.name +
                        (written ? ", " + type : "") + types
                  : "\"" + generic + "compare\"(" + x.name + ", " + y.name +
                        ") {comparison_direction = #" + name + "<comparison_direction " + d + ">" +
                        (written ? ", compare_type = #" + name + "<comparison_type " + type + ">"
                                 : "") +
                        "}" + types,
           {to});
    return;
  }
  case 1: {
    Val x = operand(std::nullopt);
    Val y = operand(x.dtype, &x.shape);
    Val p = operand(DType::Bool, chance(30) ? &kScalar : &x.shape);
    define((pretty ? std::string("stablehlo.select ") : "\"" + dialect() + "select\"(") + p.name +
               ", " + x.name + ", " + y.name + (pretty ? "" : ")") + " : (" + type_of(p) + ", " +
               type_of(x) + ", " + type_of(x) + ") -> " + type_of(x),
           {x});
    return;
  }
  case 2: {
    Val x = operand(chance(10) ? DType::Bool : number_dtype());
    Val lo = operand(x.dtype, chance(50) ? &kScalar : &x.shape);
    Val hi = operand(x.dtype, chance(50) ? &kScalar : &x.shape);
    define((pretty ? std::string("stablehlo.clamp ") : "\"" + dialect() + "clamp\"(") + lo.name +
               ", " + x.name + ", " + hi.name + (pretty ? "" : ")") + " : (" + type_of(lo) + ", " +
               type_of(x) + ", " + type_of(hi) + ") -> " + type_of(x),
           {x});
    return;
  }
  default: {
    if (chance(8)) { // one process: replica 0, partition 0
      const std::string op = chance(50) ? "replica_id" : "partition_id";
      define(pretty ? "stablehlo." + op + " : tensor<ui32>"
                    : "\"" + dialect() + op + "\"() : () -> tensor<ui32>",
             {Val{"", DType::UInt32, {}}});
      return;
    }
    Val to{"", number_dtype(), shape(1)};
    std::string d = std::to_string(pick(0, static_cast<int>(to.shape.size()) - 1));
    if (chance(25)) { // the dynamic form, its output shape a constant
      std::string shape = shape_constant(to.shape);
      define(pretty ? "stablehlo.dynamic_iota " + shape + ", dim = " + d + " : (" +
                          shape_type(to.shape) + ") -> " + type_of(to)
                    : "\"" + dialect() + "dynamic_iota\"(" + shape + ") {iota_dimension = " + d +
                          " : i64} : (" + shape_type(to.shape) + ") -> " + type_of(to),
             {to});
      return;
    }
    define(pretty ? "stablehlo.iota dim = " + d + " : " + type_of(to)
                  : "\"" + dialect() + "iota\"() {iota_dimension = " + d + " : i64} : () -> " +
                        type_of(to),
           {to});
    return;
  }
  }
}

// The other elementwise ops: float functions and roundings, sign,
// is_finite, CHLO's functions and infinity tests, not, the logical and, or, xor of i1 values and
// the bitwise ones of integers, the shifts, popcnt and count_leading_zeros.
void MlirBuilder::elementwise() {
  const bool pretty = chance(50);
  auto unary = [&](const std::string& op, const Val& x, const Val& to) {
    define(
        (pretty ? "stablehlo." + op + " " + x.name : "\"" + dialect() + op + "\"(" + x.name + ")") +
            " : (" + type_of(x) + ") -> " + type_of(to),
        {to});
  };
  auto binary = [&](const std::string& op, const Val& x, const Val& y) {
    define((pretty ? "stablehlo." + op + " " + x.name + ", " + y.name
                   : "\"" + dialect() + op + "\"(" + x.name + ", " + y.name + ")") +
               " : (" + type_of(x) + ", " + type_of(x) + ") -> " + type_of(x),
           {x});
  };
  switch (pick(0, 6)) {
  case 4: { // and, or, xor of integers: every bit pattern of the inputs
    const char* ops[] = {"and", "or", "xor"};
    Val x = operand(one_of(kIntegerDTypes));
    return binary(ops[pick(0, 2)], x, operand(x.dtype, &x.shape));
  }
  case 5: { // amounts in and out of [0, width), negative ones too
    const char* ops[] = {"shift_left", "shift_right_arithmetic", "shift_right_logical"};
    Val x = operand(one_of(kIntegerDTypes));
    return binary(ops[pick(0, 2)], x, operand(x.dtype, &x.shape));
  }
  case 6: {
    Val x = operand(one_of(kIntegerDTypes));
    return unary(chance(50) ? "popcnt" : "count_leading_zeros", x, x);
  }
  case 0: {
    const char* ops[] = {"sine",
                         "cosine",
                         "tan",
                         "logistic",
                         "floor",
                         "ceil",
                         "sign",
                         "round_nearest_even",
                         "round_nearest_afz",
                         "cbrt",
                         "exponential_minus_one",
                         "log_plus_one",
                         "atan2"};
    Val x = operand(float_dtype());
    const std::string op = ops[pick(0, 12)];
    if (op == "atan2")
      return binary(op, x, operand(x.dtype, &x.shape));
    return unary(op, x, x);
  }
  case 1: {
    Val x = operand(float_dtype());
    if (chance(40))
      return unary("is_finite", x, Val{"", DType::Bool, x.shape});
    // CHLO's ops with a decomposition, in its printed form `T -> U` or
    // the generic one.
    const char* ops[] = {"asin",       "acos",       "atan",  "sinh",  "cosh",  "is_inf",
                         "is_pos_inf", "is_neg_inf", "asinh", "acosh", "atanh", "erfc"};
    // The inverse hyperbolic functions and erfc as often as the others.
    const std::string op = ops[chance(30) ? pick(8, 11) : pick(0, 7)];
    Val to = op.starts_with("is_") ? Val{"", DType::Bool, x.shape} : x;
    define((pretty ? "chlo." + op + " " + x.name + " : " + type_of(x) + " -> "
                   : "\"chlo." + op + "\"(" + x.name + ") : (" + type_of(x) + ") -> ") +
               type_of(to),
           {to});
    return;
  }
  case 2: {
    Val x = operand(chance(50) ? DType::Bool : one_of(kIntegerDTypes));
    return unary(chance(50) ? "not" : (x.dtype == DType::Bool ? "not" : "sign"), x, x);
  }
  default: {
    // add and multiply of i1 are or and and, as maximum and minimum are.
    const char* ops[] = {"and", "or", "xor", "add", "multiply", "maximum", "minimum"};
    Val x = operand(DType::Bool);
    return binary(ops[pick(0, 6)], x, operand(DType::Bool, &x.shape));
  }
  }
}

} // namespace mlir_gen

rc::Gen<Program> mlir_program() {
  return rc::gen::exec([] {
    Program p;
    p.lang = "mlir";
    p.text = mlir_gen::MlirBuilder(p).function();
    return p;
  });
}

rc::Gen<Program> mlir_graph_program() {
  return rc::gen::exec([] {
    Program p;
    p.lang = "mlir";
    p.text = mlir_gen::MlirBuilder(p, true).function();
    return p;
  });
}

} // namespace teval::verify
