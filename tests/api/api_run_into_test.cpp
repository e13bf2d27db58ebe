// Program::run_into: outputs written into the caller's memory, used as a
// consumer uses it (only teval/teval.h). Expected values are computed here
// with plain loops. Destinations start full of NaN or a byte pattern, so
// that an element the run leaves unwritten shows.
#include "teval/teval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

using teval::DType;
using teval::Engine;
using teval::TensorOut;
using teval::TensorRef;

constexpr Engine kEngines[] = {Engine::Interpreter, Engine::IREval, Engine::Jit, Engine::Exact};
const float kNaN = std::numeric_limits<float>::quiet_NaN();

TensorRef ref(const std::vector<float>& v, std::vector<int64_t> shape,
              std::vector<int64_t> strides = {}) {
  return {DType::Float32, std::move(shape), v.data(), std::move(strides)};
}

TensorOut out(std::vector<float>& v, std::vector<int64_t> shape,
              std::vector<int64_t> strides = {}) {
  return {DType::Float32, std::move(shape), v.data(), std::move(strides)};
}

teval::Program load(const std::string& text, std::map<std::string, teval::TensorType> inputs) {
  teval::LoadOptions options;
  options.inputs = std::move(inputs);
  return teval::Program::load(text, options);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const teval::Error& e) {
    return e.error().message;
  }
  return "no error";
}

TEST(RunInto, ElementwiseReductionAndUnwrittenEntriesOnEveryEngine) {
  std::vector<float> x(4 * 6);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.25f * static_cast<float>(i) - 2;
  // An elementwise output (every element stored once), a sum (its fill
  // read by the first addition) and a transpose.
  teval::Program p = load("- einstein_v2(\"output0[N, M] = input0[N, M] * 2.0 + 1.0; "
                          "output1[N] +=! input0[N, M]; output2[M, N] = input0[N, M]\", "
                          "input_dict={}, extra_outputs=[\"output0\", \"output1\"])",
                          {{"input0", {DType::Float32, {4, 6}}}});
  for (teval::RunOptions o :
       {teval::RunOptions{}, teval::RunOptions{Engine::IREval}, teval::RunOptions{Engine::Jit},
        teval::RunOptions{Engine::Exact}, teval::RunOptions{.engine = Engine::Jit, .threads = 2}}) {
    std::vector<float> elementwise(24, kNaN), sums(4, kNaN), transposed(24, kNaN);
    auto rest = p.run_into({{"input0", ref(x, {4, 6})}},
                           {{"output0", out(elementwise, {4, 6})}, {"output1", out(sums, {4})}}, o);
    ASSERT_EQ(rest.size(), 1u) << "output2 is returned";
    const auto* t = static_cast<const float*>(rest.at("output2").data());
    for (int n = 0; n < 4; ++n) {
      float sum = 0;
      for (int m = 0; m < 6; ++m) {
        EXPECT_EQ(elementwise[n * 6 + m], x[n * 6 + m] * 2 + 1);
        EXPECT_EQ(t[m * 4 + n], x[n * 6 + m]);
        sum += x[n * 6 + m];
      }
      EXPECT_EQ(sums[n], sum) << static_cast<int>(o.engine);
    }
  }
}

TEST(RunInto, ATileContractionsUnwrittenEntriesAreZero) {
  // O(i) += I(i + 1): the last entry has no valid point and is 0, whatever
  // the destination held.
  std::vector<float> x{1, 2, 3, 4, 5};
  teval::Program p = teval::Program::load("Tensor shift(const Tensor& I) {\n"
                                          "  TensorDim N;\n  TensorIndex i;\n"
                                          "  I.bind_dims(N);\n  auto O = TensorOutput(N);\n"
                                          "  O(i) += I(i + 1);\n  return O;\n}\n",
                                          {.inputs = {{"I", {DType::Float32, {5}}}}});
  const std::string name = p.outputs().at(0).name;
  for (Engine e : kEngines) {
    std::vector<float> o(5, kNaN);
    EXPECT_TRUE(p.run_into({{"I", ref(x, {5})}}, {{name, out(o, {5})}}, {e}).empty());
    EXPECT_EQ(o, (std::vector<float>{2, 3, 4, 5, 0})) << static_cast<int>(e);
  }
}

TEST(RunInto, StridedDestinationsAreWrittenWhereTheirStridesSay) {
  std::vector<float> x{1, 2, 3, 4, 5, 6};
  teval::Program p =
      load("output0[N, M] = input0[N, M] - 0.5", {{"input0", {DType::Float32, {2, 3}}}});
  for (Engine e : kEngines) {
    // Fortran order, then rows reversed (a negative stride), then every
    // other element of a larger buffer.
    std::vector<float> fortran(6, kNaN), reversed(6, kNaN), sparse(12, kNaN);
    p.run_into({{"input0", ref(x, {2, 3})}}, {{"output0", out(fortran, {2, 3}, {1, 2})}}, {e});
    TensorOut back{DType::Float32, {2, 3}, reversed.data() + 3, {-3, 1}};
    p.run_into({{"input0", ref(x, {2, 3})}}, {{"output0", back}}, {e});
    p.run_into({{"input0", ref(x, {2, 3})}}, {{"output0", out(sparse, {2, 3}, {6, 2})}}, {e});
    for (int n = 0; n < 2; ++n)
      for (int m = 0; m < 3; ++m) {
        const float want = x[n * 3 + m] - 0.5f;
        EXPECT_EQ(fortran[m * 2 + n], want);
        EXPECT_EQ(reversed[(1 - n) * 3 + m], want);
        EXPECT_EQ(sparse[n * 6 + m * 2], want);
        EXPECT_TRUE(std::isnan(sparse[n * 6 + m * 2 + 1])) << "a gap was written";
      }
  }
}

TEST(RunInto, ADestinationThatIsAnInputIsReadFirst) {
  // Reversing a vector into its own memory: every read sees the input.
  teval::Program p =
      load("output0[N] = input0[4 - N] where N in 5", {{"input0", {DType::Float32, {5}}}});
  for (Engine e : kEngines) {
    std::vector<float> v{1, 2, 3, 4, 5};
    p.run_into({{"input0", ref(v, {5})}}, {{"output0", out(v, {5})}}, {e});
    EXPECT_EQ(v, (std::vector<float>{5, 4, 3, 2, 1})) << static_cast<int>(e);
  }
}

TEST(RunInto, AFailedRunLeavesTheDestinationsUnchanged) {
  // An integer division by zero at N = 3, after N = 0..2 are computed.
  teval::Program p = load("output0[N] = 12 / input0[N]", {{"input0", {DType::Int32, {5}}}});
  std::vector<int32_t> x{1, 2, 3, 0, 4};
  for (Engine e : kEngines) {
    std::vector<int32_t> o(5, -7);
    std::string error = error_of([&] {
      p.run_into({{"input0", {DType::Int32, {5}, x.data(), {}}}},
                 {{"output0", {DType::Int32, {5}, o.data(), {}}}}, {e});
    });
    EXPECT_NE(error.find("division by zero"), std::string::npos) << error;
    EXPECT_EQ(o, std::vector<int32_t>(5, -7)) << static_cast<int>(e);
  }
}

TEST(RunInto, WrongDestinationsAreErrors) {
  std::vector<float> x{1, 2, 3, 4};
  teval::Program p = load("- einstein_v2(\"output0[N] = input0[N]; output1[N] = input0[N] * 2.0\", "
                          "input_dict={}, extra_outputs=[\"output0\"])",
                          {{"input0", {DType::Float32, {4}}}});
  std::map<std::string, TensorRef> in{{"input0", ref(x, {4})}};
  std::vector<float> a(4), b(8);
  EXPECT_EQ(error_of([&] {
              p.run_into(in, {{"output9", out(a, {4})}});
            }),
            "the program has no output `output9`; its outputs are: output0, output1");
  EXPECT_EQ(error_of([&] {
              p.run_into(in, {{"output0", out(a, {2, 2})}});
            }),
            "output `output0` is float32[4], not float32[2, 2]");
  EXPECT_EQ(error_of([&] {
              p.run_into(in, {{"output0", {DType::Float64, {4}, a.data(), {}}}});
            }),
            "output `output0` is float32[4], not float64[4]");
  EXPECT_EQ(error_of([&] {
              p.run_into(in, {{"output0", {DType::Float32, {4}, nullptr, {}}}});
            }),
            "the memory for output `output0` has no data");
  EXPECT_EQ(error_of([&] {
              p.run_into(in, {{"output0", out(a, {4}, {0})}});
            }),
            "the memory for output `output0` has strides under which elements may overlap");
  EXPECT_EQ(error_of([&] {
              p.run_into(in, {{"output0", out(a, {4}, {1, 1})}});
            }),
            "a tensor has 2 strides for 1 dimensions");
  // Two outputs in one buffer: interleaved is fine, sharing an element is not.
  EXPECT_EQ(error_of([&] {
              p.run_into(in, {{"output0", out(b, {4})},
                              {"output1", TensorOut{DType::Float32, {4}, b.data() + 3, {}}}});
            }),
            "outputs `output0` and `output1` are given overlapping memory");
  EXPECT_EQ(error_of([&] {
              p.run_into(in, {{"output0", out(b, {4}, {2})},
                              {"output1", TensorOut{DType::Float32, {4}, b.data() + 6, {}}}});
            }),
            "outputs `output0` and `output1` are given overlapping memory");
  EXPECT_EQ(error_of([&] {
              p.run_into(in, {{"output0", out(b, {4}, {2})},
                              {"output1", TensorOut{DType::Float32, {4}, b.data() + 1, {2}}}});
            }),
            "no error");
  EXPECT_EQ(b, (std::vector<float>{1, 2, 2, 4, 3, 6, 4, 8}));
}

} // namespace
