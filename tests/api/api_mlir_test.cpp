// MLIR functions through the public C++ API, used as a consumer uses it:
// only teval/teval.h. Expected values are computed here with plain loops.
#include "teval/teval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace {

using teval::DType;
using teval::Engine;
using teval::TensorRef;

TensorRef ref(const std::vector<float>& v, std::vector<int64_t> shape) {
  return {DType::Float32, std::move(shape), v.data(), {}};
}

const float* floats(const teval::Tensor& t) {
  return static_cast<const float*>(t.data());
}

const Engine kEngines[] = {Engine::Interpreter, Engine::IREval, Engine::Jit, Engine::Exact};

// A matrix-vector product, a non-splat constant (an input of the
// decomposition) and a reduce with its region, returning two results.
const char* const kGraph = R"(module {
func.func @main(%a: tensor<2x3xf32>, %x: tensor<3xf32>) -> (tensor<2xf32>, tensor<f32>) {
  %0 = stablehlo.dot_general %a, %x, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %c = stablehlo.constant dense<[0.5, -4.0]> : tensor<2xf32>
  %1 = stablehlo.add %0, %c : tensor<2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  return %1, %2 : tensor<2xf32>, tensor<f32>
}
})";

TEST(ApiMlir, FunctionsAreDetectedAndRunOnEveryEngine) {
  teval::Program p = teval::Program::load(kGraph);
  ASSERT_EQ(p.inputs().size(), 2u);
  EXPECT_EQ(p.inputs()[0].name, "arg0");
  EXPECT_EQ(p.inputs()[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(p.inputs()[1].name, "arg1");
  ASSERT_EQ(p.outputs().size(), 2u);
  EXPECT_EQ(p.outputs()[0].name, "result0");
  EXPECT_EQ(p.outputs()[1].name, "result1");
  EXPECT_EQ(p.outputs()[1].shape, std::vector<int64_t>{});
  std::vector<float> a{1, 2, 3, -1, 0.25f, 8}, x{0.5f, -2, 3};
  float want[2];
  for (int i = 0; i < 2; ++i) {
    float s = 0;
    for (int k = 0; k < 3; ++k)
      s += a[i * 3 + k] * x[k];
    want[i] = s + (i == 0 ? 0.5f : -4.0f);
  }
  for (Engine e : kEngines) {
    auto out = p.run({{"arg0", ref(a, {2, 3})}, {"arg1", ref(x, {3})}}, e);
    EXPECT_EQ(floats(out.at("result0"))[0], want[0]) << static_cast<int>(e);
    EXPECT_EQ(floats(out.at("result0"))[1], want[1]) << static_cast<int>(e);
    EXPECT_EQ(floats(out.at("result1"))[0], std::max(want[0], want[1])) << static_cast<int>(e);
  }
}

TEST(ApiMlir, CandidatesForTheResultsAreJudged) {
  teval::Program p = teval::Program::load(kGraph, {.notation = teval::Notation::Mlir});
  std::vector<float> a{1, 2, 3, 4, 5, 6}, x{1, 1, 1};
  std::vector<float> right{6.5f, 11.0f}, wrong{6.5f, 12.0f}, max{11.0f};
  std::map<std::string, TensorRef> inputs{{"arg0", ref(a, {2, 3})}, {"arg1", ref(x, {3})}};
  auto v = p.check(inputs, {{"result0", ref(right, {2})}, {"result1", ref(max, {})}});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_TRUE(v[0].passed()) << v[0].text;
  EXPECT_TRUE(v[1].passed()) << v[1].text;
  v = p.check(inputs, {{"result0", ref(wrong, {2})}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, teval::Verdict::Status::Mismatch);
  EXPECT_EQ(v[0].worst_index, std::vector<int64_t>{1});
  EXPECT_THROW(p.check(inputs, {{"result2", ref(max, {})}}), teval::Error);
}

// A compiler's per-layer dumps: values made outputs are judged; a given
// value is an input, what follows it computed from the array given.
TEST(ApiMlir, ValuesBecomeOutputsAndGivenValuesInputs) {
  teval::LoadOptions o;
  o.values = {"%0"};
  o.given = {"%1"};
  teval::Program p = teval::Program::load(kGraph, o);
  ASSERT_EQ(p.outputs().size(), 3u);
  EXPECT_EQ(p.outputs()[2].name, "%0");
  EXPECT_EQ(p.outputs()[2].shape, std::vector<int64_t>{2});
  ASSERT_EQ(p.inputs().size(), 3u);
  EXPECT_EQ(p.inputs()[2].name, "%1");
  std::vector<float> a{1, 2, 3, 4, 5, 6}, x{1, 1, 1}, layer{-3, 2.5f};
  std::map<std::string, TensorRef> inputs{
      {"arg0", ref(a, {2, 3})}, {"arg1", ref(x, {3})}, {"%1", ref(layer, {2})}};
  for (Engine e : kEngines) {
    auto out = p.run(inputs, e);
    EXPECT_EQ(floats(out.at("%0"))[0], 6.0f) << static_cast<int>(e);
    EXPECT_EQ(floats(out.at("%0"))[1], 15.0f) << static_cast<int>(e);
    // %1 is the array given, not %0 + [0.5, -4]
    EXPECT_EQ(floats(out.at("result0"))[1], 2.5f) << static_cast<int>(e);
    EXPECT_EQ(floats(out.at("result1"))[0], 2.5f) << static_cast<int>(e);
  }
  std::vector<float> dot{6, 15}, wrong{6, 16}, max{2.5f};
  auto v = p.check(inputs, {{"%0", ref(dot, {2})}, {"result1", ref(max, {})}});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].name, "%0");
  EXPECT_TRUE(v[0].passed()) << v[0].text;
  EXPECT_TRUE(v[1].passed()) << v[1].text;
  v = p.check(inputs, {{"%0", ref(wrong, {2})}});
  EXPECT_EQ(v[0].status, teval::Verdict::Status::Mismatch);
  EXPECT_EQ(v[0].worst_index, std::vector<int64_t>{1});
  // the given value is an input like the arguments: required, typed
  EXPECT_THROW(p.run({{"arg0", ref(a, {2, 3})}, {"arg1", ref(x, {3})}}), teval::Error);
  EXPECT_THROW(p.run({{"arg0", ref(a, {2, 3})}, {"arg1", ref(x, {3})}, {"%1", ref(x, {3})}}),
               teval::Error);
  // names that are no value, an argument, and a notation without values
  auto error = [](const std::string& text, const teval::LoadOptions& options) {
    try {
      teval::Program::load(text, options);
    } catch (const teval::Error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  EXPECT_NE(error(kGraph, {.values = {"%9"}}).find("no value `%9`"), std::string::npos);
  EXPECT_NE(error(kGraph, {.given = {"%9"}}).find("no value `%9`"), std::string::npos);
  EXPECT_NE(error(kGraph, {.given = {"%a"}}).find("`%a` is an argument"), std::string::npos);
  EXPECT_NE(error(kGraph, {.values = {"%0", "%0"}}).find("`%0` is named twice"), std::string::npos);
  EXPECT_NE(error(kGraph, {.given = {"%1", "%1"}}).find("`%1` is named twice"), std::string::npos);
  EXPECT_NE(error("output0[N] = input0[N] * 2.0", {.values = {"%0"}})
                .find("values and given apply to MLIR functions"),
            std::string::npos);
}

TEST(ApiMlir, TheEntryAndDynamicExtentsComeFromTheLoadOptions) {
  const char* text = R"(
func.func private @twice(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %x, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @negated(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.negate %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
)";
  teval::LoadOptions o;
  o.entry = "twice";
  o.inputs["arg0"] = {DType::Float32, {3}};
  teval::Program p = teval::Program::load(text, o);
  EXPECT_EQ(p.outputs()[0].shape, std::vector<int64_t>{3});
  std::vector<float> x{1.5f, -2, 7};
  for (Engine e : kEngines) {
    auto out = p.run({{"arg0", ref(x, {3})}}, e);
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(floats(out.at("result0"))[i], 2 * x[i]);
  }
  // Two functions and no @main: the entry must be named.
  EXPECT_THROW(teval::Program::load(text, {.inputs = o.inputs}), teval::Error);
  // A `?` extent nobody gives is an error, at load.
  o.inputs.clear();
  EXPECT_THROW(teval::Program::load(text, o), teval::Error);
}

TEST(ApiMlir, SeededInputsFollowTheSeed) {
  teval::Program p = teval::Program::load(kGraph);
  auto drawn = p.random_inputs(7);
  ASSERT_EQ(drawn.size(), 2u);
  EXPECT_EQ(drawn.at("arg0").shape(), (std::vector<int64_t>{2, 3}));
  // The same seed draws the same tensors; another seed others.
  auto again = p.random_inputs(7), other = p.random_inputs(8);
  EXPECT_EQ(std::memcmp(drawn.at("arg0").data(), again.at("arg0").data(), 24), 0);
  EXPECT_NE(std::memcmp(drawn.at("arg0").data(), other.at("arg0").data(), 24), 0);
}

TEST(ApiMlir, AFunctionWithoutADecompositionRunsItsOpsNativelyOnEveryEngine) {
  // compare TOTALORDER has no einstein_v2 decomposition (docs/BYTEIR.md):
  // IREval and the JIT run it natively, between the segments before and
  // after it (docs/SEMANTICS.md, "Engines on graphs"); --exact declines.
  const char* text =
      R"(func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xi1>, tensor<2xf32>) {
  %0 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %1 = stablehlo.multiply %a, %b : tensor<2xf32>
  %2 = stablehlo.convert %0 : (tensor<2xi1>) -> tensor<2xf32>
  %3 = stablehlo.add %1, %2 : tensor<2xf32>
  return %0, %3 : tensor<2xi1>, tensor<2xf32>
})";
  teval::Program p = teval::Program::load(text);
  std::vector<float> a{-0.0f, 1.5f}, b{0.0f, 1.5f};
  std::map<std::string, TensorRef> in{{"arg0", ref(a, {2})}, {"arg1", ref(b, {2})}};
  for (Engine e : {Engine::Interpreter, Engine::IREval, Engine::Jit}) {
    auto out = p.run(in, e);
    const auto* bits = static_cast<const uint8_t*>(out.at("result0").data());
    EXPECT_EQ(bits[0], 1) << static_cast<int>(e); // -0 < +0 in the total order
    EXPECT_EQ(bits[1], 0) << static_cast<int>(e);
    const auto* sum = static_cast<const float*>(out.at("result1").data());
    EXPECT_EQ(sum[0], 1.0f) << static_cast<int>(e); // -0 * 0 + 1
    EXPECT_EQ(sum[1], 2.25f) << static_cast<int>(e);
  }
  try {
    p.run(in, Engine::Exact);
    ADD_FAILURE() << "the exact engine ran a graph without decomposition";
  } catch (const teval::Error& error) {
    EXPECT_NE(error.error().message.find("no einstein_v2 decomposition"), std::string::npos)
        << error.what();
    EXPECT_EQ(error.error().line, 2);
  }
  EXPECT_THROW(p.lower(), teval::Error);
  // check() judges candidates against the native references' values.
  bool want[] = {true, false}, other[] = {false, false};
  auto v = p.check(in, {{"result0", {DType::Bool, {2}, want}}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, teval::Verdict::Status::Exact) << v[0].text;
  v = p.check(in, {{"result0", {DType::Bool, {2}, other}}});
  EXPECT_EQ(v[0].status, teval::Verdict::Status::Mismatch) << v[0].text;
  EXPECT_EQ(v[0].worst_index, std::vector<int64_t>{0});
}

TEST(ApiMlir, ErrorsPointIntoTheText) {
  try {
    teval::Program::load("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                         "  %0 = stablehlo.frobnicate %a : tensor<2xf32>\n"
                         "  return %0 : tensor<2xf32>\n}\n",
                         {.name = "model.mlir"});
    FAIL() << "an unknown op loaded";
  } catch (const teval::Error& e) {
    EXPECT_EQ(e.error().file, "model.mlir");
    EXPECT_EQ(e.error().line, 2);
    EXPECT_NE(std::string(e.what()).find("frobnicate"), std::string::npos) << e.what();
  }
  // Integer parameters are Tile's.
  EXPECT_THROW(teval::Program::load(kGraph, {.ints = {{"s", 2}}}), teval::Error);
  // Inputs are checked by name, dtype and shape, as for every notation.
  teval::Program p = teval::Program::load(kGraph);
  std::vector<float> a(6), x(4);
  EXPECT_THROW(p.run({{"arg0", ref(a, {2, 3})}, {"arg1", ref(x, {4})}}), teval::Error);
  EXPECT_THROW(p.run({{"arg0", ref(a, {2, 3})}}), teval::Error);
}

} // namespace
