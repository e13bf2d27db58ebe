// The property behind every ByteIR op's two meanings: on random ops,
// attributes, dtypes, shapes and inputs (NaN, infinities, signed zeros,
// ties, large magnitudes), the native reference and the einstein_v2
// decomposition give the same bits, or both report an error.
#include "core/error.h"
#include "core/format.h"
#include "core/graph.h"
#include "tests/support/mlir.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

namespace teval {
namespace {

using core::DType;

struct Case {
  std::string op;
  std::string text;
  std::vector<core::Tensor> inputs;
};

std::string type_of(DType t, const core::Shape& shape) {
  return core::to_mlir({t, shape});
}

// Element values that find the corners: specials, ties, large and tiny
// magnitudes.
core::Tensor values(DType t, const core::Shape& shape) {
  core::Tensor out(t, shape);
  double scale = *rc::gen::element(1.0, 3.0, 100.0, 1e4);
  for (int64_t i = 0; i < out.numel(); ++i) {
    int kind = *rc::gen::inRange(0, 20);
    double v = 0;
    if (core::is_float(t)) {
      if (kind == 0)
        v = NAN;
      else if (kind == 1)
        v = INFINITY;
      else if (kind == 2)
        v = -INFINITY;
      else if (kind == 3)
        v = -0.0;
      else if (kind < 7 && i > 0)
        v = out.get(i - 1).f; // a tie
      else
        v = scale * (*rc::gen::inRange(-1000, 1000)) / 1000.0;
      out.set(i, core::Scalar::of_float(t, v));
    } else {
      int64_t lo = t == DType::UInt8 ? 0 : -20, hi = 20;
      out.set(i, core::Scalar::of_int(t, *rc::gen::inRange(lo, hi + 1)));
    }
  }
  return out;
}

Case one_op_case() {
  // clang-format off
  static const std::vector<std::string> float_ops = {
      "softmax", "log_softmax", "gelu", "erf", "layer_norm", "l2_norm", "addn", "arg_max",
      "arg_min", "top_k", "quantize", "dequantize", "resize", "rng_uniform", "exponential", "log", "tanh",
      "sqrt", "rsqrt",
      "add", "subtract", "multiply", "divide", "maximum", "minimum", "negate", "abs", "convert",
      "reshape", "broadcast_in_dim"};
  static const std::vector<std::string> int_ops = {
      "add", "subtract", "multiply", "divide", "maximum", "minimum", "negate", "abs", "convert",
      "reshape", "broadcast_in_dim", "addn", "arg_max", "arg_min", "top_k", "one_hot", "resize"};
  // clang-format on
  bool floats = *rc::gen::inRange(0, 4) != 0;
  DType t = floats
                ? *rc::gen::element(DType::Float16, DType::BFloat16, DType::Float32, DType::Float64)
                : *rc::gen::element(DType::Int8, DType::Int32, DType::Int64, DType::UInt8);
  std::string op = *rc::gen::elementOf(floats ? float_ops : int_ops);
  core::Shape shape(static_cast<size_t>(*rc::gen::inRange(1, 4)));
  for (int64_t& d : shape)
    d = *rc::gen::inRange(0, 5);
  std::string in = type_of(t, shape);
  Case c;
  c.op = op;
  c.inputs.push_back(values(t, shape));
  std::string result = in, call, results = "%0";
  size_t result_count = 1;
  if (op == "layer_norm" || op == "l2_norm") {
    // layer_norm: trailing axes (as PyTorch gives) or any increasing set.
    std::vector<size_t> axes;
    size_t first = *rc::gen::inRange<size_t>(0, shape.size());
    for (size_t d = first; d < shape.size(); ++d)
      if (op == "l2_norm" ? d == first : (d == first || *rc::gen::inRange(0, 3) != 0))
        axes.push_back(d);
    std::string list;
    core::Shape affine;
    for (size_t a : axes) {
      list += (list.empty() ? "" : ", ") + std::to_string(a);
      affine.push_back(shape[a]);
    }
    std::string attrs = "{axis = [" + list + "], epsilon = " +
                        *rc::gen::element<std::string>("1.0e-05", "9.9999999999999998E-13", "0.5") +
                        " : f64" +
                        *rc::gen::element<std::string>("", ", eps_outside_sqrt = true",
                                                       ", eps_outside_sqrt = false") +
                        "}";
    std::string operands = "%arg0", types = in;
    if (op == "layer_norm") {
      for (int i = 1; i <= 2; ++i) {
        c.inputs.push_back(values(t, affine));
        operands += ", %arg" + std::to_string(i);
        types += ", " + type_of(t, affine);
      }
      if (*rc::gen::inRange(0, 2)) {
        core::Shape kept = shape;
        for (size_t a : axes)
          kept[a] = 1;
        result = "(" + in + ", " + type_of(t, kept) + ", " + type_of(t, kept) + ")";
        result_count = 3;
        results = "%0:3";
      }
    }
    call = "\"mhlo.custom_call\"(" + operands + ") {byteir_attrs = " + attrs +
           ", call_target_name = \"byteir." + op + "\"} : (" + types + ") -> " + result;
  } else if (op == "arg_max" || op == "arg_min" || op == "top_k") {
    size_t axis = *rc::gen::inRange<size_t>(0, shape.size());
    if (shape[axis] == 0) { // no index to give: draw a longer axis
      shape[axis] = *rc::gen::inRange(1, 5);
      in = type_of(t, shape);
      c.inputs[0] = values(t, shape);
    }
    DType index = *rc::gen::element(DType::Int32, DType::Int64);
    core::Shape out = shape;
    std::string attrs;
    bool both = true;
    if (op == "top_k") {
      int64_t k = *rc::gen::inRange<int64_t>(1, shape[axis] + 1);
      out[axis] = k;
      attrs = "axis = [" + std::to_string(axis) + "], k = " + std::to_string(k) +
              " : i64, sorted = " + *rc::gen::element<std::string>("true", "false");
    } else {
      bool keep = *rc::gen::inRange(0, 2);
      keep ? void(out[axis] = 1) : void(out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis)));
      attrs = "axis = " + std::to_string(axis) +
              " : i64, keep_dims = " + (keep ? "true" : "false") +
              ", select_last_index = " + *rc::gen::element<std::string>("true", "false");
      both = *rc::gen::inRange(0, 2);
    }
    result = both ? "(" + type_of(t, out) + ", " + type_of(index, out) + ")" : type_of(index, out);
    if (both) {
      result_count = 2;
      results = "%0:2";
    }
    call = "\"mhlo.custom_call\"(%arg0) {byteir_attrs = {" + attrs +
           "}, call_target_name = \"byteir." + op + "\"} : (" + in + ") -> " + result;
  } else if (op == "quantize" || op == "dequantize") {
    // Scales that put many quotients on a tie (x = k / 4 over 0.5).
    DType real = op == "quantize" ? t
                                  : *rc::gen::element(DType::Float32, DType::Float16,
                                                      DType::BFloat16, DType::Float64);
    DType integer = *rc::gen::element(DType::Int8, DType::UInt8, DType::Int16);
    bool per_channel = *rc::gen::inRange(0, 2);
    size_t axis = *rc::gen::inRange<size_t>(0, shape.size());
    core::Shape channels = per_channel ? core::Shape{shape[axis]} : core::Shape{};
    core::Tensor scale(real, channels), zero(integer, channels);
    for (int64_t i = 0; i < scale.numel(); ++i) {
      scale.set(i, core::Scalar::of_float(real, *rc::gen::element(0.5, 0.1, 3.0, 1e-3)));
      zero.set(i, core::Scalar::of_int(integer, *rc::gen::inRange(-3, 4)));
    }
    if (op == "quantize") {
      for (int64_t i = 0; i < c.inputs[0].numel(); ++i)
        if (*rc::gen::inRange(0, 2))
          c.inputs[0].set(i, core::Scalar::of_float(t, *rc::gen::inRange(-600, 600) / 4.0));
    } else {
      c.inputs[0] = values(integer, shape);
      in = type_of(integer, shape);
    }
    c.inputs.push_back(scale);
    c.inputs.push_back(zero);
    result = type_of(op == "quantize" ? integer : real, shape);
    std::string attrs =
        per_channel ? " {byteir_attrs = {axis = " + std::to_string(axis) + " : i64}}" : "";
    call = "stablehlo.custom_call @byteir." + op + "(%arg0, %arg1, %arg2)" + attrs + " : (" + in +
           ", " + type_of(real, channels) + ", " + type_of(integer, channels) + ") -> " + result;
  } else if (op == "resize") {
    bool linear = core::is_float(t) && *rc::gen::inRange(0, 2);
    std::string map = *rc::gen::element<std::string>("asymmetric", "half_pixel",
                                                     "pytorch_half_pixel", "align_corners");
    bool sizes = *rc::gen::inRange(0, 2);
    core::Shape out = shape;
    std::string target;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (sizes) {
        out[d] = shape[d] == 0 ? 0 : *rc::gen::inRange<int64_t>(1, 7);
        target += (d ? ", " : "") + std::to_string(out[d]);
      } else {
        double scale = *rc::gen::element(0.5, 1.0, 1.5, 2.0, 3.0);
        out[d] = static_cast<int64_t>(std::floor(double(shape[d]) * scale));
        target +=
            (d ? ", " : "") + core::format_scalar(core::Scalar::of_float(DType::Float64, scale));
      }
    }
    result = type_of(t, out);
    std::string target_type =
        type_of(sizes ? DType::Int64 : DType::Float32, {static_cast<int64_t>(shape.size())});
    call = "stablehlo.constant dense<[" + target + "]> : " + target_type + "\n  %0 = " +
           "stablehlo.custom_call @byteir.resize(%arg0, %t) {byteir_attrs = "
           "{coordinate_transformation_mode = \"" +
           map + "\", mode = \"" + (linear ? "linear" : "nearest") + "\", target_mode = \"" +
           (sizes ? "size" : "scale") + "\"}} : (" + in + ", " + target_type + ") -> " + result;
    results = "%t";
  } else if (op == "rng_uniform") {
    // low, high, seed and offset as arguments: seeds past 32 bits and
    // negative ones are truncated to 32 bits.
    core::Tensor low(t, {}), high(t, {}), seed(DType::Int64, {}), offset(DType::Int64, {});
    low.set(0, core::Scalar::of_float(t, *rc::gen::inRange(-4, 4)));
    high.set(0, core::Scalar::of_float(t, *rc::gen::inRange(-4, 8) / 2.0));
    seed.set(0, core::Scalar::of_int(DType::Int64, *rc::gen::arbitrary<int64_t>()));
    offset.set(0, core::Scalar::of_int(DType::Int64, *rc::gen::inRange<int64_t>(-5, 1 << 20)));
    c.inputs = {low, high, seed, offset};
    std::string scalar = type_of(t, {}), word = type_of(DType::Int64, {});
    call = "\"mhlo.custom_call\"(%arg0, %arg1, %arg2, %arg3) {call_target_name = "
           "\"byteir.rng_uniform\"} : (" +
           scalar + ", " + scalar + ", " + word + ", " + word + ") -> " + in;
  } else if (op == "one_hot") {
    int64_t depth = *rc::gen::inRange(0, 5);
    for (int64_t i = 0; i < c.inputs[0].numel(); ++i)
      c.inputs[0].set(i, core::Scalar::of_int(t, *rc::gen::inRange<int64_t>(-1, depth + 2)));
    size_t axis = *rc::gen::inRange<size_t>(0, shape.size() + 1);
    core::Shape out = shape;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(axis), depth);
    DType to = *rc::gen::element(DType::Float32, DType::Float16, DType::Int64, DType::Int8);
    std::string on = core::is_float(to) ? "1.5" : "7", off = core::is_float(to) ? "-0.0" : "-1";
    std::string element = type_of(to, {}).substr(7);
    element.pop_back();
    result = type_of(to, out);
    call = "\"mhlo.custom_call\"(%arg0) {byteir_attrs = {axis = " + std::to_string(axis) +
           " : i64, depth = " + std::to_string(depth) + " : i64, on_value = " + on + " : " +
           element + ", off_value = " + off + " : " + element +
           "}, call_target_name = \"byteir.one_hot\"} : (" + in + ") -> " + result;
  } else if (op == "addn") {
    std::string operands = "%arg0", types = in;
    int n = *rc::gen::inRange(1, 4);
    for (int i = 1; i < n; ++i) {
      c.inputs.push_back(values(t, shape));
      operands += ", %arg" + std::to_string(i);
      types += ", " + in;
    }
    call = "stablehlo.custom_call @byteir.addn(" + operands + ") : (" + types + ") -> " + in;
  } else if (op == "softmax" || op == "log_softmax" || op == "gelu" || op == "erf") {
    std::string attrs;
    if (op == "gelu")
      attrs = std::string(" {byteir_attrs = {approximate = \"") +
              *rc::gen::element("none", "erf", "tanh") + "\"}}";
    else if (op != "erf")
      attrs =
          " {byteir_attrs = {axis = " + std::to_string(*rc::gen::inRange<size_t>(0, shape.size())) +
          " : i64}}";
    call = "stablehlo.custom_call @byteir." + op + "(%arg0)" + attrs + " : (" + in + ") -> " + in;
  } else if (op == "add" || op == "subtract" || op == "multiply" || op == "divide" ||
             op == "maximum" || op == "minimum") {
    c.inputs.push_back(values(t, shape));
    call = "stablehlo." + op + " %arg0, %arg1 : " + in;
  } else if (op == "convert") {
    DType to = *rc::gen::element(DType::Bool, DType::Int8, DType::Int32, DType::UInt8,
                                 DType::Float16, DType::BFloat16, DType::Float32, DType::Float64);
    result = type_of(to, shape);
    call = "stablehlo.convert %arg0 : (" + in + ") -> " + result;
  } else if (op == "reshape") {
    result = type_of(t, {core::checked_numel(shape).value_or(0)});
    call = "stablehlo.reshape %arg0 : (" + in + ") -> " + result;
  } else if (op == "broadcast_in_dim") {
    core::Shape to = shape;
    to.insert(to.begin(), 2);
    std::string dims;
    for (size_t d = 0; d < shape.size(); ++d)
      dims += (d ? ", " : "") + std::to_string(d + 1);
    result = type_of(t, to);
    call = "stablehlo.broadcast_in_dim %arg0, dims = [" + dims + "] : (" + in + ") -> " + result;
  } else {
    call = "stablehlo." + op + " %arg0 : " + in;
  }
  std::string args;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    args += (i ? ", %arg" : "%arg") + std::to_string(i) + ": " +
            type_of(c.inputs[i].dtype(), c.inputs[i].shape());
  std::string returned = "%0", returned_types = result;
  if (result_count > 1) {
    returned = "%0#0, %0#1" + std::string(result_count == 3 ? ", %0#2" : "");
    returned_types = result.substr(1, result.size() - 2);
  }
  c.text = "func.func @main(" + args + ") -> " + result + " {\n  " + results + " = " + call +
           "\n  return " + returned + " : " + returned_types + "\n}\n";
  return c;
}

// The outcome of one engine: the results, or nothing for an error.
std::optional<std::vector<core::Tensor>> outcome(const Case& c, const std::string& engine) {
  try {
    return test::run_mlir(c.text, c.inputs, engine);
  } catch (const core::Error&) {
    return std::nullopt;
  }
}

void check_one(const std::string& engine) {
  Case c = one_op_case();
  RC_LOG() << c.text;
  for (const core::Tensor& t : c.inputs) {
    std::string v;
    for (int64_t i = 0; i < t.numel(); ++i)
      v += core::format_element(t, i) + " ";
    RC_LOG() << "input: " << v << "\n";
  }
  auto native = outcome(c, "interp");
  auto other = outcome(c, engine);
  RC_CLASSIFY(true, c.op + (native ? "" : " (an error)"));
  RC_ASSERT(native.has_value() == other.has_value());
  if (!native)
    return;
  RC_ASSERT(native->size() == other->size());
  for (size_t i = 0; i < native->size(); ++i)
    RC_ASSERT(test::first_difference((*native)[i], (*other)[i]) == "");
}

// Each case draws several ops: one is quick to check.
void check(const std::string& engine) {
  for (int i = 0; i < 10; ++i)
    check_one(engine);
}

RC_GTEST_PROP(ByteirProperties, NativeEqualsTheDecomposition, ()) {
  check("decomposition");
}

RC_GTEST_PROP(ByteirProperties, NativeEqualsTheJit, ()) {
  check("jit");
}

} // namespace
} // namespace teval
