// The ops of random MLIR functions that have no einstein_v2 decomposition
// (see mlir_builder.h and generators.h, mlir_graph_program): control flow
// whose regions read values of the function, sort, map, scatter, reduce
// with a region of several ops, compare TOTALORDER, fmod, the bit views,
// and values of types kernels lack (ui64). IREval and the JIT run them natively between the
// segments they compile (ops/split.h).
#include "verify/mlir_builder.h"

namespace teval::verify::mlir_gen {

namespace {

// `%name = OP %a, %b : T` inside a region.
std::string line(const std::string& name, const std::string& op, const std::string& operands,
                 const std::string& type) {
  return "    " + name + " = stablehlo." + op + " " + operands + " : " + type + "\n";
}

} // namespace

void MlirBuilder::native() {
  switch (pick(0, 10)) {
  case 0: { // sort of one or two inputs along a dimension, stable or not
    Val keys = operand(number_dtype(), nullptr, 1);
    std::vector<Val> in = {keys};
    if (chance(50))
      in.push_back(operand(std::nullopt, &keys.shape));
    const bool floats = core::is_float(keys.dtype);
    const std::string type = floats                          ? (chance(50) ? "TOTALORDER" : "FLOAT")
                             : core::is_unsigned(keys.dtype) ? "UNSIGNED"
                                                             : "SIGNED";
    std::string operands, types, params, scalar = type_of(keys.dtype, {});
    for (size_t i = 0; i < in.size(); ++i) {
      operands += (i ? ", " : "") + in[i].name;
      types += (i ? ", " : "") + type_of(in[i]);
    }
    for (size_t i = 0; i < in.size(); ++i) // lhs and rhs, input by input
      for (const char* side : {"l", "r"})
        params += std::string(params.empty() ? "" : ", ") + "%" + side + std::to_string(i) + ": " +
                  type_of(in[i].dtype, {});
    define("\"stablehlo.sort\"(" + operands + ") ({\n  ^bb0(" + params + "):\n" +
               line("%p", "compare", std::string(chance(50) ? "LT" : "GT") + ", %l0, %r0, " + type,
                    "(" + scalar + ", " + scalar + ") -> tensor<i1>") +
               "    stablehlo.return %p : tensor<i1>\n  }) {dimension = " +
               std::to_string(pick(0, static_cast<int>(keys.shape.size()) - 1)) +
               " : i64, is_stable = " + (chance(50) ? "true" : "false") + "} : (" + types +
               ") -> (" + types + ")",
           in);
    return;
  }
  case 1: { // while: n steps of v := v * c + x, x a value of the function
    Val x = operand(float_dtype());
    const std::string t = type_of(x), steps = std::to_string(pick(0, 3));
    Val count{"", DType::Int64, {}};
    const std::string zero = define("stablehlo.constant dense<0> : tensor<i64>", {count})[0];
    values_.back().read = true;
    define(
        "\"stablehlo.while\"(" + zero + ", " + x.name + ") ({\n  ^bb0(%i: tensor<i64>, %v: " + t +
            "):\n" + line("%n", "constant", "dense<" + steps + ">", "tensor<i64>") +
            line("%c", "compare", "LT, %i, %n", "(tensor<i64>, tensor<i64>) -> tensor<i1>") +
            "    stablehlo.return %c : tensor<i1>\n  }, {\n  ^bb0(%i: tensor<i64>, %v: " + t +
            "):\n" + line("%one", "constant", "dense<1>", "tensor<i64>") +
            line("%j", "add", "%i, %one", "tensor<i64>") + line("%h", "constant", "dense<0.5>", t) +
            line("%s", "multiply", "%v, %h", t) + line("%w", "add", "%s, " + x.name, t) +
            "    stablehlo.return %j, %w : tensor<i64>, " + t + "\n  }) : (tensor<i64>, " + t +
            ") -> (tensor<i64>, " + t + ")",
        {count, x});
    return;
  }
  case 2: { // if on a scalar i1: a value of the function negated, or its abs
    Val p = operand(DType::Bool, &kScalar);
    Val x = operand(number_dtype());
    const std::string t = type_of(x);
    define("\"stablehlo.if\"(" + p.name + ") ({\n" + line("%a", "negate", x.name, t) +
               "    stablehlo.return %a : " + t + "\n  }, {\n" + line("%b", "abs", x.name, t) +
               "    stablehlo.return %b : " + t + "\n  }) : (tensor<i1>) -> " + t,
           {x});
    return;
  }
  case 3: { // reduce whose body is two ops: acc * 0.5 + x, not associative
    Val x = operand(float_dtype(), nullptr, 1);
    const std::string s = type_of(x.dtype, {});
    Val init{"", x.dtype, {}};
    init.name = define("stablehlo.constant dense<1.0> : " + s, {init})[0];
    values_.back().read = true;
    Val to{"", x.dtype, x.shape};
    const int64_t d = pick(0, static_cast<int>(x.shape.size()) - 1);
    to.shape.erase(to.shape.begin() + d);
    define("\"stablehlo.reduce\"(" + x.name + ", " + init.name + ") ({\n  ^bb0(%a: " + s +
               ", %b: " + s + "):\n" + line("%h", "constant", "dense<0.5>", s) +
               line("%m", "multiply", "%a, %h", s) + line("%r", "add", "%m, %b", s) +
               "    stablehlo.return %r : " + s + "\n  }) {dimensions = array<i64: " +
               std::to_string(d) + ">} : (" + type_of(x) + ", " + s + ") -> " + type_of(to),
           {to});
    return;
  }
  case 4: { // map: x * x + x at each index
    Val x = operand(number_dtype());
    std::vector<int64_t> dims(x.shape.size());
    std::iota(dims.begin(), dims.end(), 0);
    const std::string s = type_of(x.dtype, {});
    define("\"stablehlo.map\"(" + x.name + ") ({\n  ^bb0(%e: " + s + "):\n" +
               line("%q", "multiply", "%e, %e", s) + line("%r", "add", "%q, %e", s) +
               "    stablehlo.return %r : " + s + "\n  }) {dimensions = " + ints(dims, false) +
               "} : (" + type_of(x) + ") -> " + type_of(x),
           {x});
    return;
  }
  case 5: { // scatter-add of rows into a rank >= 1 value; indices out of range skip
    Val x = operand(number_dtype(), nullptr, 1);
    const core::Shape rows{pick(0, 3), 1};
    Val index = operand(DType::Int32, &rows);
    Val updates{"", x.dtype, x.shape};
    updates.shape[0] = index.shape[0];
    updates = operand(x.dtype, &updates.shape);
    std::vector<int64_t> window(x.shape.size() - 1);
    std::iota(window.begin(), window.end(), 1);
    const std::string s = type_of(x.dtype, {});
    define("\"stablehlo.scatter\"(" + x.name + ", " + index.name + ", " + updates.name +
               ") ({\n  ^bb0(%a: " + s + ", %b: " + s + "):\n" + line("%r", "add", "%a, %b", s) +
               "    stablehlo.return %r : " + s +
               "\n  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = " +
               ints(window, true) +
               ", inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
               "index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (" +
               type_of(x) + ", " + type_of(index) + ", " + type_of(updates) + ") -> " + type_of(x),
           {x});
    return;
  }
  case 6: { // remainder of floats (C's fmod), CHLO's next_after or erf_inv
    Val x = operand(float_dtype());
    if (chance(30)) {
      define("chlo.erf_inv " + x.name + " : " + type_of(x) + " -> " + type_of(x), {x});
      return;
    }
    Val y = operand(x.dtype, &x.shape);
    define(chance(50) ? "stablehlo.remainder " + x.name + ", " + y.name + " : " + type_of(x)
                      : "chlo.next_after " + x.name + ", " + y.name + " : " + type_of(x) + ", " +
                            type_of(x) + " -> " + type_of(x),
           {x});
    return;
  }
  case 7: { // compare TOTALORDER, or power of integers
    Val x = operand(number_dtype());
    Val y = operand(x.dtype, &x.shape);
    if (core::is_float(x.dtype)) {
      const char* directions[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
      define("stablehlo.compare " + std::string(directions[pick(0, 5)]) + ", " + x.name + ", " +
                 y.name + ", TOTALORDER : (" + type_of(x) + ", " + type_of(y) + ") -> " +
                 type_of(DType::Bool, x.shape),
             {Val{"", DType::Bool, x.shape}});
      return;
    }
    define("stablehlo.power " + x.name + ", " + y.name + " : " + type_of(x), {x});
    return;
  }
  case 8: { // the bit views: reduce_precision, bitcast_convert to the same width
    Val x = operand(float_dtype());
    if (chance(50)) {
      define("stablehlo.reduce_precision " + x.name + ", format = e" + std::to_string(pick(1, 5)) +
                 "m" + std::to_string(pick(0, 10)) + " : " + type_of(x),
             {x});
      return;
    }
    Val to = x;
    to.dtype = x.dtype == DType::Float64   ? DType::Int64
               : x.dtype == DType::Float32 ? DType::Int32
                                           : DType::Int16;
    define("stablehlo.bitcast_convert " + x.name + " : (" + type_of(x) + ") -> " + type_of(to),
           {to});
    return;
  }
  case 9: { // dot_general of a matrix and a vector with a one-component algorithm
    const DType t = float_dtype();
    const core::Shape matrix{pick(1, 3), pick(0, 3)}, vector{matrix[1]};
    Val lhs = operand(t, &matrix);
    Val rhs = operand(t, &vector);
    const char* precisions[] = {"tf32", "bf16", "f16", "f32"};
    const std::string p = precisions[pick(0, 3)];
    const std::string acc = chance(50) ? "f32" : element(t);
    define("stablehlo.dot_general " + lhs.name + ", " + rhs.name +
               ", contracting_dims = [1] x [0], algorithm = <lhs_precision_type = " + p +
               ", rhs_precision_type = " + p + ", accumulation_type = " + acc +
               ", lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = "
               "1, allow_imprecise_accumulation = false> : (" +
               type_of(lhs) + ", " + type_of(rhs) + ") -> " + type_of(t, {matrix[0]}),
           {Val{"", t, {matrix[0]}}});
    return;
  }
  default: { // a value of a type kernels lack: through ui64 and back
    Val x = operand(DType::Int32);
    Val wide{"", DType::UInt64, x.shape};
    std::string w = define(
        "stablehlo.convert " + x.name + " : (" + type_of(x) + ") -> " + type_of(wide), {wide})[0];
    values_.back().read = true;
    std::string sum = define("stablehlo.add " + w + ", " + w + " : " + type_of(wide), {wide})[0];
    values_.back().read = true;
    define("stablehlo.convert " + sum + " : (" + type_of(wide) + ") -> " + type_of(x), {x});
    return;
  }
  }
}

} // namespace teval::verify::mlir_gen
