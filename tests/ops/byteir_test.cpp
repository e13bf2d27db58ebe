// ByteIR ops read from MLIR: each op's native reference against values
// PyTorch computed (tests/data/byteir/make_references.py), its einstein_v2
// decomposition on every engine against the native reference bit for bit,
// the graph elaboration makes, and every error class of the MLIR reader.
#include "core/error.h"
#include "core/format.h"
#include "core/lower.h"
#include "core/npy.h"
#include "interp/interpreter.h"
#include "interp/ireval.h"
#include "jit/jit.h"
#include "ops/decompose.h"
#include "ops/native.h"
#include "ops/philox.h"
#include "parser/mlir/mlir.h"
#include "tests/support/mlir.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace teval {
namespace {

using core::Tensor;

std::filesystem::path data(const std::string& name) {
  return test::source_dir() / "tests/data/byteir" / name;
}

std::string example(const std::string& name) {
  return test::read_file(test::source_dir() / "examples/byteir" / name);
}

/// |a - b| <= 8 float32 ulps of |b| plus 8 * 2^-24 * \p cancellation(i):
/// the magnitude of the terms a last addition cancels (gelu's 1 + erf(x /
/// sqrt 2) for x < -2, whose bound is |x| ulps of 1; layer_norm's
/// normalized value plus its bias), which PyTorch rounds in another order.
/// NaN matches NaN.
void expect_close(const Tensor& actual, const Tensor& expected, const std::string& what,
                  const std::function<double(int64_t)>& cancellation = nullptr) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    double a = actual.get(i).f, b = expected.get(i).f;
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(a)) << what << " element " << i;
      continue;
    }
    double bound = 8 * std::ldexp(1.0, std::ilogb(std::max(std::abs(b), 1e-38)) - 23);
    if (cancellation)
      bound += 8 * cancellation(i) * std::ldexp(1.0, -24);
    EXPECT_LE(std::abs(a - b), bound) << what << " element " << i << ": " << a << " vs " << b;
  }
}

TEST(ByteirReference, MatchesPyTorch) {
  struct Case {
    std::string file;
    std::vector<std::string> inputs;
    std::string reference;
    size_t output;
  };
  const std::vector<std::string> ln = {"ln_x", "ln_w", "ln_b"};
  for (const Case& c : std::vector<Case>{
           {"softmax.mlir", {"x"}, "softmax_axis1", 0},
           {"log_softmax.mlir", {"x"}, "log_softmax_axis0", 0},
           {"gelu.mlir", {"g"}, "gelu_erf", 0},
           {"gelu.mlir", {"g"}, "gelu_tanh", 1},
           {"erf.mlir", {"g"}, "erf", 0},
           {"layer_norm.mlir", ln, "layer_norm", 0},
           {"layer_norm.mlir", ln, "layer_norm_mean", 1},
           {"layer_norm.mlir", ln, "layer_norm_inv_std", 2},
           {"layer_norm_eps_outside.mlir", ln, "layer_norm_eps_outside", 0},
           {"l2_norm.mlir", {"l2_x"}, "l2_norm", 0},
           {"l2_norm.mlir", {"l2_x"}, "l2_norm_eps_outside", 1},
           {"addn.mlir", {"x", "x2", "x3"}, "addn", 0},
           {"resize.mlir", {"rx"}, "resize_nearest", 0},
           {"resize.mlir", {"rx"}, "resize_align_corners", 1},
           {"resize.mlir", {"rx"}, "resize_pytorch_half_pixel", 2},
       }) {
    std::vector<Tensor> inputs;
    for (const std::string& name : c.inputs)
      inputs.push_back(core::read_npy(data(name + ".npy").string()));
    std::vector<Tensor> out = test::run_mlir(example(c.file), inputs, "interp");
    Tensor expected = core::read_npy(data(c.reference + ".npy").string());
    std::function<double(int64_t)> cancellation;
    if (c.reference == "gelu_erf")
      cancellation = [&](int64_t i) { return std::abs(inputs[0].get(i).f); };
    if (c.file == "resize.mlir") // PyTorch maps coordinates by in / out, not by out / in
      cancellation = [](int64_t) { return 40.0; }; // twice the largest |value|, 20
    if (c.file.rfind("layer_norm", 0) == 0 && c.output == 0)
      cancellation = [&](int64_t i) {
        double bias = inputs[2].get(i % inputs[2].numel()).f;
        return std::abs(bias) + std::abs(expected.get(i).f - bias);
      };
    expect_close(out.at(c.output), expected, c.file + " " + c.reference, cancellation);
  }
}

TEST(ByteirReference, SelectionAndQuantizationMatchNumpyExactly) {
  // arg_max, arg_min, top_k, one_hot, quantize and dequantize: every engine
  // gives numpy's values exactly (tests/data/byteir/make_references.py).
  struct Case {
    std::string file;
    std::vector<std::string> inputs;
    std::string reference;
    size_t output;
  };
  const std::vector<std::string> q = {"qx", "q_scale", "q_zero", "qc_scale", "qc_zero"};
  for (const Case& c : std::vector<Case>{
           {"arg_max.mlir", {"am"}, "arg_max_values", 0},
           {"arg_max.mlir", {"am"}, "arg_max_indices", 1},
           {"arg_min.mlir", {"am"}, "arg_min_last_indices", 0},
           {"top_k.mlir", {"tk"}, "top_k_values", 0},
           {"top_k.mlir", {"tk"}, "top_k_indices", 1},
           {"one_hot.mlir", {"oh"}, "one_hot_last", 0},
           {"one_hot.mlir", {"oh"}, "one_hot_first", 1},
           {"quantize.mlir", q, "quantize", 0},
           {"quantize.mlir", q, "quantize_channel", 1},
           {"quantize.mlir", q, "dequantize_channel", 2},
       }) {
    std::vector<Tensor> inputs;
    for (const std::string& name : c.inputs)
      inputs.push_back(core::read_npy(data(name + ".npy").string()));
    Tensor expected = core::read_npy(data(c.reference + ".npy").string());
    for (const std::string& engine : test::kMlirEngines)
      EXPECT_EQ(test::first_difference(test::run_mlir(example(c.file), inputs, engine).at(c.output),
                                       expected),
                "")
          << c.file << " " << c.reference << " on " << engine;
  }
}

TEST(ByteirReference, SoftmaxAlongEitherAxisAndLogSoftmaxAlongAxis1) {
  // The other axis of each, through a one-line function.
  Tensor x = core::read_npy(data("x.npy").string());
  for (auto [op, axis, reference] : {std::tuple{"softmax", 0, "softmax_axis0"},
                                     std::tuple{"log_softmax", 1, "log_softmax_axis1"}}) {
    std::string text = std::string("func.func @main(%a: tensor<3x5xf32>) -> tensor<3x5xf32> {\n") +
                       "  %0 = stablehlo.custom_call @byteir." + op +
                       "(%a) {byteir_attrs = {axis = " + std::to_string(axis) +
                       " : i64}} : (tensor<3x5xf32>) -> tensor<3x5xf32>\n" +
                       "  return %0 : tensor<3x5xf32>\n}\n";
    expect_close(test::run_mlir(text, {x}, "interp").at(0),
                 core::read_npy(data(std::string(reference) + ".npy").string()), reference);
  }
}

TEST(ByteirEngines, EveryExampleGivesTheSameBitsOnEveryEngine) {
  for (const auto& path :
       test::files_with_extension(test::source_dir() / "examples/byteir", ".mlir")) {
    std::string text = test::read_file(path);
    std::vector<Tensor> inputs = test::mlir_random_inputs(text, 7);
    std::vector<Tensor> native = test::run_mlir(text, inputs, "interp");
    for (const std::string& engine : test::kMlirEngines) {
      std::vector<Tensor> other = test::run_mlir(text, inputs, engine);
      ASSERT_EQ(other.size(), native.size()) << path << " " << engine;
      for (size_t i = 0; i < native.size(); ++i)
        EXPECT_EQ(test::first_difference(native[i], other[i]), "")
            << path.filename() << " result" << i << " on " << engine;
    }
  }
}

TEST(ByteirSemantics, SoftmaxSubtractsTheMaximum) {
  // exp(100) overflows float32; the max-subtracted form gives exact values:
  // a row [100, 100] is [0.5, 0.5]; a row of -inf and a value is [0, 1].
  Tensor x = core::Tensor(core::DType::Float32, {2, 2});
  x.set(0, core::Scalar::of_float(core::DType::Float32, 100));
  x.set(1, core::Scalar::of_float(core::DType::Float32, 100));
  x.set(2, core::Scalar::of_float(core::DType::Float32, -INFINITY));
  x.set(3, core::Scalar::of_float(core::DType::Float32, 3));
  std::string text = "func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
                     "  %0 = stablehlo.custom_call @byteir.softmax(%a) {byteir_attrs = {axis = 1 : "
                     "i64}} : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
                     "  return %0 : tensor<2x2xf32>\n}\n";
  for (const std::string& engine : test::kMlirEngines) {
    Tensor y = test::run_mlir(text, {x}, engine).at(0);
    EXPECT_EQ(core::format_element(y, 0) + " " + core::format_element(y, 1) + " " +
                  core::format_element(y, 2) + " " + core::format_element(y, 3),
              "0.5 0.5 0.0 1.0")
        << engine;
  }
}

TEST(ByteirSemantics, GeluNoneIsErfAndMinusInfinityIsNaN) {
  // "none" is "erf"; at -inf the formula is -inf * 0: NaN, as in PyTorch.
  Tensor x = core::Tensor(core::DType::Float32, {3});
  x.set(0, core::Scalar::of_float(core::DType::Float32, -INFINITY));
  x.set(1, core::Scalar::of_float(core::DType::Float32, INFINITY));
  x.set(2, core::Scalar::of_float(core::DType::Float32, 0));
  for (const char* approximate : {"none", "erf"}) {
    std::string text =
        std::string("func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n") +
        "  %0 = stablehlo.custom_call @byteir.gelu(%a) {byteir_attrs = {approximate = \"" +
        approximate + "\"}} : (tensor<3xf32>) -> tensor<3xf32>\n" +
        "  return %0 : tensor<3xf32>\n}\n";
    Tensor y = test::run_mlir(text, {x}, "interp").at(0);
    EXPECT_EQ(core::format_element(y, 0) + " " + core::format_element(y, 1) + " " +
                  core::format_element(y, 2),
              "nan inf 0.0")
        << approximate;
  }
}

TEST(ByteirSemantics, QuantizeSaturatesInfinitiesAndRejectsNaN) {
  // +-inf saturate to the type's range; NaN has no integer value: an error
  // naming the op and the element, on every engine.
  std::string text = "func.func @main(%a: tensor<3xf32>) -> tensor<3xi8> {\n"
                     "  %s = stablehlo.constant dense<0.5> : tensor<f32>\n"
                     "  %z = stablehlo.constant dense<1> : tensor<i8>\n"
                     "  %0 = \"mhlo.custom_call\"(%a, %s, %z) {call_target_name = "
                     "\"byteir.quantize\"} : (tensor<3xf32>, tensor<f32>, tensor<i8>) -> "
                     "tensor<3xi8>\n"
                     "  return %0 : tensor<3xi8>\n}\n";
  Tensor x(core::DType::Float32, {3});
  for (int64_t i = 0; i < 3; ++i)
    x.set(i, core::Scalar::of_float(core::DType::Float32, i == 0   ? INFINITY
                                                          : i == 1 ? -INFINITY
                                                                   : 1.25));
  for (const std::string& engine : test::kMlirEngines) {
    Tensor q = test::run_mlir(text, {x}, engine).at(0);
    EXPECT_EQ(core::format_element(q, 0) + " " + core::format_element(q, 1) + " " +
                  core::format_element(q, 2),
              "127 -128 3")
        << engine; // 1.25 / 0.5 = 2.5 rounds to 2, plus 1
  }
  x.set(2, core::Scalar::of_float(core::DType::Float32, NAN));
  for (const char* engine : {"interp", "decomposition"})
    EXPECT_THROW(test::run_mlir(text, {x}, engine), core::Error) << engine;
}

TEST(ByteirSemantics, PhiloxGivesTheKnownAnswers) {
  // Random123's known-answer vectors for Philox4x32-10 (kat_vectors).
  using W = std::array<uint32_t, 4>;
  EXPECT_EQ(ops::philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (W{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(ops::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                               {0xffffffff, 0xffffffff}),
            (W{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(ops::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                               {0xa4093822, 0x299f31d0}),
            (W{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(ByteirSemantics, RngUniformHashesTheIndexIntoPhilox) {
  // Element (i, j) of a 2x3 draw with seed 42 and offset 7: the counter's
  // first word is h = ((j + ((i + 49) * 1103515245 + 12345)) * 1103515245 +
  // 12345) mod 2^32, the keys 42 and 7, and the value low + u * (high -
  // low) for u = word * 2^-32 rounded to float32.
  std::string text = test::read_file(test::source_dir() / "examples/byteir/rng_uniform.mlir");
  for (const std::string& engine : test::kMlirEngines) {
    Tensor r = test::run_mlir(text, {}, engine).at(0);
    for (uint32_t i = 0; i < 2; ++i)
      for (uint32_t j = 0; j < 3; ++j) {
        uint32_t h = (j + ((i + 49u) * 1103515245u + 12345u)) * 1103515245u + 12345u;
        float u = static_cast<float>(
            std::ldexp(double(ops::philox4x32_10({h, 0, 0, 0}, {42, 7})[0]), -32));
        EXPECT_EQ(r.get(i * 3 + j).f, double(-2.0f + u * 4.0f)) << engine << " " << i << " " << j;
      }
  }
}

TEST(ByteirSemantics, RngUniformIsUniform) {
  // The distributional contract: 10^5 draws in [-2, 2) have mean 0 and
  // variance 4/3 within 5 standard errors, and none reaches 2.
  std::string text = "func.func @main(%l: tensor<f32>, %h: tensor<f32>, %s: tensor<i64>, %o: "
                     "tensor<i64>) -> tensor<100000xf32> {\n"
                     "  %0 = \"mhlo.custom_call\"(%l, %h, %s, %o) {call_target_name = "
                     "\"byteir.rng_uniform\"} : (tensor<f32>, tensor<f32>, tensor<i64>, "
                     "tensor<i64>) -> tensor<100000xf32>\n"
                     "  return %0 : tensor<100000xf32>\n}\n";
  auto scalar = [](core::DType t, double v) {
    Tensor x(t, {});
    x.set(0,
          core::is_float(t) ? core::Scalar::of_float(t, v) : core::Scalar::of_int(t, int64_t(v)));
    return x;
  };
  Tensor r = test::run_mlir(text,
                            {scalar(core::DType::Float32, -2), scalar(core::DType::Float32, 2),
                             scalar(core::DType::Int64, 1234), scalar(core::DType::Int64, 0)},
                            "interp")
                 .at(0);
  double sum = 0, squares = 0, top = -2;
  for (int64_t i = 0; i < r.numel(); ++i) {
    double v = r.get(i).f;
    sum += v;
    squares += v * v;
    top = std::max(top, v);
  }
  double n = double(r.numel()), mean = sum / n, variance = squares / n - mean * mean;
  EXPECT_LT(std::abs(mean), 5 * std::sqrt(4.0 / 3 / n));
  EXPECT_LT(std::abs(variance - 4.0 / 3), 5 * 1.2 / std::sqrt(n)); // sd of a uniform's s^2
  EXPECT_LT(top, 2.0);
}

TEST(MlirElaboration, TheGraphOfAFunction) {
  EXPECT_EQ(test::mlir_graph(example("graph.mlir")),
            "input arg0 %arg0:float32[4, 64]\n"
            "input arg1 %arg1:float32[64]\n"
            "%0:float32[4, 64] = broadcast_in_dim(%arg1) {dims = [1]}\n"
            "%1:float32[4, 64] = add(%arg0, %0)\n"
            "%scale:float32[4, 64] = constant() {value = dense<2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, "
            "2.0, ...>}\n"
            "%2:float32[4, 64] = multiply(%1, %scale)\n"
            "%3:float16[4, 64] = convert(%2)\n"
            "%4:float16[4, 64] = byteir.gelu(%3) {approximate = \"tanh\"}\n"
            "%5:float16[4, 64] = byteir.softmax(%4) {axis = 1}\n"
            "%6:float16[4, 64] = byteir.log_softmax(%4) {axis = 1}\n"
            "output result0 %5\n"
            "output result1 %6\n");
}

TEST(MlirElaboration, ADynamicDimensionTakesTheInputsExtent) {
  std::map<std::string, parser::InputType> inputs{{"arg0", {core::DType::Float32, {2, 7}, {}}}};
  EXPECT_EQ(test::mlir_graph(example("erf.mlir"), inputs), "input arg0 %arg0:float32[2, 7]\n"
                                                           "%0:float32[2, 7] = byteir.erf(%arg0)\n"
                                                           "output result0 %0\n");
}

std::string error_of(const std::string& body, const std::string& args = "%a: tensor<4x8xf32>",
                     const std::map<std::string, parser::InputType>& inputs = {}) {
  std::string text = "func.func @main(" + args + ") -> tensor<4x8xf32> {\n" + body + "}\n";
  try {
    test::mlir_graph(text, inputs);
  } catch (const core::Error& e) {
    return e.render();
  }
  return "no error";
}

TEST(MlirElaboration, Errors) {
  EXPECT_EQ(
      error_of("  %0 = stablehlo.custom_call @byteir.softmax(%b) {byteir_attrs = {axis = 1 : "
               "i64}} : (tensor<4x8xf32>) -> tensor<4x8xf32>\n  return %0 : tensor<4x8xf32>\n"),
      "m.mlir:2:46: error: use of undefined value %b\n"
      "  %0 = stablehlo.custom_call @byteir.softmax(%b) {byteir_attrs = {axis = 1 : i64}} : "
      "(tensor<4x8xf32>) -> tensor<4x8xf32>\n"
      "                                             ^~\n");
  EXPECT_EQ(error_of("  %0 = stablehlo.custom_call @byteir.softmaxx(%a) : (tensor<4x8xf32>) -> "
                     "tensor<4x8xf32>\n  return %0 : tensor<4x8xf32>\n"),
            "m.mlir:2:30: error: unknown custom call target \"byteir.softmaxx\"; teval gives "
            "meaning to byteir.softmax, byteir.log_softmax, byteir.gelu, byteir.erf, "
            "byteir.layer_norm, byteir.l2_norm, byteir.addn, byteir.arg_max, byteir.arg_min, "
            "byteir.top_k, byteir.one_hot, byteir.quantize, byteir.dequantize, byteir.resize, "
            "byteir.rng_uniform, byteir.repeat, byteir.non_zero\n"
            "  %0 = stablehlo.custom_call @byteir.softmaxx(%a) : (tensor<4x8xf32>) -> "
            "tensor<4x8xf32>\n"
            "                             ^~~~~~~~~~~~~~~~\n");
  EXPECT_EQ(error_of("  %0 = stablehlo.custom_call @byteir.softmax(%a) {byteir_attrs = {}} : "
                     "(tensor<4x8xf32>) -> tensor<4x8xf32>\n  return %0 : tensor<4x8xf32>\n"),
            "m.mlir:2:66: error: stablehlo.custom_call byteir.softmax needs the attribute `axis`\n"
            "  %0 = stablehlo.custom_call @byteir.softmax(%a) {byteir_attrs = {}} : "
            "(tensor<4x8xf32>) -> tensor<4x8xf32>\n"
            "                                                                 ^~\n");
  EXPECT_EQ(error_of("  %0 = stablehlo.custom_call @byteir.softmax(%a) {byteir_attrs = {axis = -1 "
                     ": i64}} : (tensor<4x8xf32>) -> tensor<4x8xf32>\n  return %0 : "
                     "tensor<4x8xf32>\n"),
            "m.mlir:2:74: error: `axis` is -1; the operand has rank 2 and ByteIR's axes are in "
            "[0, rank) (frontends normalize negative axes)\n"
            "  %0 = stablehlo.custom_call @byteir.softmax(%a) {byteir_attrs = {axis = -1 : i64}} "
            ": (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
            "                                                                         ^~~~~~~~\n");
  EXPECT_EQ(
      error_of("  %0 = stablehlo.custom_call @byteir.gelu(%a) {byteir_attrs = {approximate = "
               "\"fast\", extra = 1}} : (tensor<4x8xf32>) -> tensor<4x8xf32>\n  return %0 : "
               "tensor<4x8xf32>\n"),
      "m.mlir:2:86: error: `extra` is not an attribute of byteir.gelu; it takes approximate\n"
      "  %0 = stablehlo.custom_call @byteir.gelu(%a) {byteir_attrs = {approximate = \"fast\", "
      "extra = 1}} : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
      "                                                                                     "
      "^~~~~\n");
  EXPECT_EQ(error_of("  %0 = stablehlo.custom_call @byteir.erf(%a) : (tensor<4x8xf32>) -> "
                     "tensor<4x9xf32>\n  return %0 : tensor<4x8xf32>\n"),
            "m.mlir:2:30: error: result 0 of stablehlo.custom_call is tensor<4x8xf32>, but its "
            "type says tensor<4x9xf32>\n"
            "  %0 = stablehlo.custom_call @byteir.erf(%a) : (tensor<4x8xf32>) -> tensor<4x9xf32>\n"
            "                             ^~~~~~~~~~~\n");
  EXPECT_EQ(error_of("  %0 = stablehlo.custom_call @byteir.erf(%a) : (tensor<4x8xi32>) -> "
                     "tensor<4x8xi32>\n  return %0 : tensor<4x8xi32>\n",
                     "%a: tensor<4x8xi32>"),
            "m.mlir:2:30: error: byteir.erf takes a float tensor, not tensor<4x8xi32>\n"
            "  %0 = stablehlo.custom_call @byteir.erf(%a) : (tensor<4x8xi32>) -> tensor<4x8xi32>\n"
            "                             ^~~~~~~~~~~\n");
  EXPECT_EQ(
      error_of("  %0 = stablehlo.erf %a : tensor<4x8xf32>\n  return %0 : tensor<4x8xf32>\n"),
      "m.mlir:2:8: error: `stablehlo.erf` is not an op teval reads; between custom calls it "
      "reads constant, add, subtract, multiply, divide, maximum, minimum, negate, abs, "
      "exponential, log, tanh, sqrt, rsqrt, convert, reshape, broadcast_in_dim, compare, select, "
      "clamp, transpose, slice, concatenate, iota, reverse, sine, cosine, tan, logistic, floor, "
      "ceil, round_nearest_even, round_nearest_afz, sign, is_finite, not, and, or, xor, "
      "shift_left, shift_right_arithmetic, shift_right_logical, popcnt, count_leading_zeros, "
      "dot_general, dot, reduce, pad, power, remainder, optimization_barrier, triangular_solve, "
      "cholesky, "
      "dynamic_slice, dynamic_update_slice, convolution, gather, reduce_window, if, case, while, "
      "sort, map, scatter, "
      "bitcast_convert, reduce_precision, atan2, cbrt, exponential_minus_one, log_plus_one, "
      "select_and_scatter, real, imag, complex, fft, rng_bit_generator, replica_id, partition_id, "
      "uniform_quantize, uniform_dequantize, "
      "get_dimension_size, after_all, create_token, infeed, outfeed, "
      "dynamic_iota, dynamic_reshape, dynamic_broadcast_in_dim, dynamic_pad, dynamic_gather, "
      "dynamic_conv\n"
      "  %0 = stablehlo.erf %a : tensor<4x8xf32>\n"
      "       ^~~~~~~~~~~~~\n");
  EXPECT_EQ(error_of("  return %a : tensor<4x8xf32>\n", "%a: tensor<?x8xf32>"),
            "m.mlir:1:17: error: argument %a of type tensor<?x8xf32> has a dynamic dimension: give "
            "input arg0 (-i arg0=FILE.npy or -i arg0=DTYPE[d0,...])\n"
            "func.func @main(%a: tensor<?x8xf32>) -> tensor<4x8xf32> {\n"
            "                ^~\n");
  EXPECT_EQ(error_of("  return %a : tensor<4x8xf32>\n", "%a: tensor<4x8xf32>",
                     {{"arg0", {core::DType::Float32, {4, 9}, {}}}}),
            "m.mlir:1:17: error: argument %a (input arg0) is declared tensor<4x8xf32>, but the "
            "input given is tensor<4x9xf32>\n"
            "func.func @main(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
            "                ^~\n");
  EXPECT_EQ(error_of("  %0 = stablehlo.add %a, %a : tensor<4x8xf32>\n  %0 = stablehlo.add %a, %a : "
                     "tensor<4x8xf32>\n  return %0 : tensor<4x8xf32>\n"),
            "m.mlir:3:3: error: value %0 is defined twice\n"
            "  %0 = stablehlo.add %a, %a : tensor<4x8xf32>\n"
            "  ^~\n");
}

} // namespace
} // namespace teval
