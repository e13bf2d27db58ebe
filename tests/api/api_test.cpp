// The public C++ API, used as a consumer uses it: only teval/teval.h.
// Expected values are computed here with plain loops.
#include "teval/teval.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <thread>

namespace {

using teval::DType;
using teval::Engine;
using teval::TensorRef;

TensorRef ref(const std::vector<float>& v, std::vector<int64_t> shape,
              std::vector<int64_t> strides = {}) {
  return {DType::Float32, std::move(shape), v.data(), std::move(strides)};
}

const float* floats(const teval::Tensor& t) {
  return static_cast<const float*>(t.data());
}

TEST(Api, InputsArePassedByNameNotByPosition) {
  std::vector<float> a{1, 2, 3}, b{10, 20, 30};
  // Given in either order, b - a is b - a.
  auto out = teval::run("output0[N] = input1[N] - input0[N]",
                        {{"input1", ref(b, {3})}, {"input0", ref(a, {3})}});
  ASSERT_EQ(out.size(), 1u);
  const teval::Tensor& o = out.at("output0");
  EXPECT_EQ(o.dtype(), DType::Float32);
  EXPECT_EQ(o.shape(), std::vector<int64_t>{3});
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(floats(o)[i], b[i] - a[i]);
}

TEST(Api, ProgramsListTheirInputsAndOutputsAndRunOnEveryEngine) {
  teval::LoadOptions options;
  options.inputs["input0"] = {DType::Float32, {2, 3}};
  options.inputs["input1"] = {DType::Float32, {3}};
  teval::Program p = teval::Program::load("output0[N] +=! input0[N, K] * input1[K]", options);
  ASSERT_EQ(p.inputs().size(), 2u);
  EXPECT_EQ(p.inputs()[0].name, "input0");
  EXPECT_EQ(p.inputs()[0].shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(p.outputs().size(), 1u);
  EXPECT_EQ(p.outputs()[0].name, "output0");
  EXPECT_EQ(p.outputs()[0].shape, std::vector<int64_t>{2});
  std::vector<float> x{1, 2, 3, 4, 5, 6}, y{0.5, -1, 2};
  for (Engine e : {Engine::Interpreter, Engine::IREval, Engine::Jit, Engine::Exact}) {
    auto out = p.run({{"input0", ref(x, {2, 3})}, {"input1", ref(y, {3})}}, e);
    for (int n = 0; n < 2; ++n) {
      float want = 0;
      for (int k = 0; k < 3; ++k)
        want += x[n * 3 + k] * y[k];
      EXPECT_EQ(floats(out.at("output0"))[n], want) << static_cast<int>(e);
    }
  }
  EXPECT_NE(p.lower().find("for"), std::string::npos);
}

TEST(Api, StridedInputsAreReadWhereTheyLie) {
  // A 2×3 matrix stored in Fortran order: element (i, j) at i + 2j.
  std::vector<float> fortran{1, 4, 2, 5, 3, 6};
  auto out =
      teval::run("output0[N, M] = input0[N, M] * 1.0", {{"input0", ref(fortran, {2, 3}, {1, 2})}});
  const float* o = floats(out.at("output0"));
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(o[i], static_cast<float>(i + 1));
}

TEST(Api, AnyLayoutIsReadCorrectly) {
  // One 2×3 matrix (values 1..6 in C order) in five layouts: C order with
  // explicit strides, a column view of a wider matrix, negative strides
  // (both axes reversed), a broadcast row (stride 0) and a pointer that is
  // not aligned for float.
  std::vector<float> wide{1, 2, 3, 0, 4, 5, 6, 0};
  std::vector<float> reversed{6, 5, 4, 3, 2, 1};
  std::vector<float> row{1, 2, 3};
  std::vector<unsigned char> unaligned(1 + 6 * sizeof(float));
  for (int i = 0; i < 6; ++i) {
    float v = static_cast<float>(i + 1);
    std::memcpy(unaligned.data() + 1 + i * sizeof(float), &v, sizeof v);
  }
  std::vector<float> c{1, 2, 3, 4, 5, 6};
  std::vector<TensorRef> layouts{
      ref(c, {2, 3}, {3, 1}),
      ref(wide, {2, 3}, {4, 1}),
      {DType::Float32, {2, 3}, reversed.data() + 5, {-3, -1}},
      {DType::Float32, {2, 3}, unaligned.data() + 1, {}},
  };
  for (size_t l = 0; l < layouts.size(); ++l) {
    auto out = teval::run("output0[N, M] = input0[N, M] + 0.0", {{"input0", layouts[l]}});
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(floats(out.at("output0"))[i], static_cast<float>(i + 1)) << "layout " << l;
  }
  auto out =
      teval::run("output0[N, M] = input0[N, M] + 0.0", {{"input0", ref(row, {2, 3}, {0, 1})}});
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(floats(out.at("output0"))[i], row[i % 3]);
  // The wrong number of strides.
  EXPECT_THROW(teval::run("output0[N, M] = input0[N, M] + 0.0", {{"input0", ref(c, {2, 3}, {1})}}),
               teval::Error);
}

TEST(Api, OutputsNeverShareTheCallersMemory) {
  // An output that is an input as it is comes back as its own copy, on
  // every engine, and the caller's memory is left as it was.
  std::vector<float> x{1, 2, 3};
  for (Engine e : {Engine::Interpreter, Engine::IREval, Engine::Jit, Engine::Exact}) {
    auto out = teval::run("output0[N] = input0[N]", {{"input0", ref(x, {3})}}, {}, e);
    teval::Tensor& o = out.at("output0");
    EXPECT_NE(o.data(), static_cast<const void*>(x.data()));
    static_cast<float*>(o.data())[0] = 42;
    EXPECT_EQ(x[0], 1.0f);
  }
}

TEST(Api, RandomInputsAreSeededAndValidAsIndices) {
  teval::LoadOptions options;
  options.inputs["input0"] = {DType::Float32, {5, 3}};
  options.inputs["input1"] = {DType::Int32, {4}};
  teval::Program p = teval::Program::load("output0[N, M] = input0[input1[N], M]", options);
  auto a = p.random_inputs(7), b = p.random_inputs(7), c = p.random_inputs(8);
  ASSERT_EQ(a.size(), 2u);
  const teval::Tensor& x = a.at("input0");
  EXPECT_EQ(x.shape(), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(std::memcmp(x.data(), b.at("input0").data(), x.size_bytes()), 0);
  EXPECT_NE(std::memcmp(x.data(), c.at("input0").data(), x.size_bytes()), 0);
  for (int i = 0; i < 15; ++i) {
    EXPECT_GE(floats(x)[i], -1.0f);
    EXPECT_LT(floats(x)[i], 1.0f);
  }
  // The gather's indices are drawn in [0, 5), so the program runs.
  const auto* index = static_cast<const int32_t*>(a.at("input1").data());
  for (int i = 0; i < 4; ++i) {
    EXPECT_GE(index[i], 0);
    EXPECT_LT(index[i], 5);
  }
  std::map<std::string, TensorRef> refs;
  for (const auto& [name, t] : a)
    refs.emplace(name, t.ref());
  EXPECT_EQ(p.run(refs).at("output0").shape(), (std::vector<int64_t>{4, 3}));
}

// A matrix product that runs for seconds on every engine.
teval::Program long_program(std::map<std::string, teval::Tensor>& inputs) {
  teval::LoadOptions options;
  options.inputs["input0"] = {DType::Float32, {2048, 2048}};
  options.inputs["input1"] = {DType::Float32, {2048, 2048}};
  teval::Program p = teval::Program::load("output0[N, M] +=! input0[N, K] * input1[K, M]", options);
  inputs = p.random_inputs(1);
  return p;
}

std::map<std::string, TensorRef> refs_of(const std::map<std::string, teval::Tensor>& tensors) {
  std::map<std::string, TensorRef> refs;
  for (const auto& [name, t] : tensors)
    refs.emplace(name, t.ref());
  return refs;
}

TEST(Api, ATimeoutStopsEveryEngineWithAnError) {
  std::map<std::string, teval::Tensor> inputs;
  teval::Program p = long_program(inputs);
  for (Engine e : {Engine::Interpreter, Engine::IREval, Engine::Jit, Engine::Exact}) {
    try {
      p.run(refs_of(inputs), {.engine = e, .timeout = 0.2});
      ADD_FAILURE() << "no error";
    } catch (const teval::Error& error) {
      EXPECT_EQ(error.error().message, "the evaluation did not finish within the timeout of 0.2 s");
    }
  }
  teval::CheckOptions check;
  check.timeout = 0.2;
  teval::Tensor candidate(DType::Float32, {2048, 2048});
  EXPECT_THROW(p.check(refs_of(inputs), {{"output0", candidate.ref()}}, check), teval::Error);
  // A limit that is not reached changes nothing; a negative one is an error.
  std::vector<float> x{1, 2};
  teval::RunOptions generous{.engine = Engine::Jit, .timeout = 60};
  EXPECT_EQ(floats(teval::Program::load("output0[N] = input0[N] * 2.0",
                                        {.inputs = {{"input0", {DType::Float32, {2}}}}})
                       .run({{"input0", ref(x, {2})}}, generous)
                       .at("output0"))[1],
            4.0f);
  EXPECT_THROW(p.run(refs_of(inputs), {.timeout = -1}), teval::Error);
}

TEST(Api, AStopTokenStopsARunFromAnotherThread) {
  std::map<std::string, teval::Tensor> inputs;
  teval::Program p = long_program(inputs);
  for (Engine e : {Engine::Interpreter, Engine::Jit}) {
    teval::StopToken stop;
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      stop.request();
    });
    try {
      p.run(refs_of(inputs), {.engine = e, .timeout = 120, .stop = &stop});
      ADD_FAILURE() << "no error";
    } catch (const teval::Error& error) {
      EXPECT_EQ(error.error().message, "evaluation interrupted");
    }
    stopper.join();
    // The request stays until reset.
    EXPECT_TRUE(stop.requested());
    std::vector<float> x{1, 2};
    teval::Program small = teval::Program::load("output0[N] = input0[N] * 2.0",
                                                {.inputs = {{"input0", {DType::Float32, {2}}}}});
    EXPECT_THROW(small.run({{"input0", ref(x, {2})}}, {.engine = e, .stop = &stop}), teval::Error);
    stop.reset();
    EXPECT_EQ(
        floats(small.run({{"input0", ref(x, {2})}}, {.engine = e, .stop = &stop}).at("output0"))[0],
        2.0f);
  }
}

TEST(Api, TheJitShowsItsCode) {
  teval::LoadOptions options;
  options.inputs["input0"] = {DType::Int32, {16}};
  teval::Program p = teval::Program::load("output0[N] = input0[N] + 1", options);
  EXPECT_NE(p.jit_llvm().find("define"), std::string::npos);
  EXPECT_NE(p.jit_asm().find("ret"), std::string::npos);
}

TEST(Api, TileFunctionsTakeEntryAndParameters) {
  teval::LoadOptions options;
  options.entry = "scale";
  options.ints["k"] = 3;
  std::vector<float> x{1, 2, 3, 4};
  auto out = teval::run("Tensor scale(const Tensor& A, int64_t k) {\n"
                        "  return A * k;\n}\n",
                        {{"A", ref(x, {4})}}, options);
  ASSERT_EQ(out.size(), 1u);
  const teval::Tensor& o = out.begin()->second;
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(floats(o)[i], 3 * x[i]);
}

TEST(Api, DiagnosticsAreValues) {
  try {
    teval::Program::load("output0[N] = input0[N] +* 2", {.name = "kernel.antares"});
    FAIL() << "no error";
  } catch (const teval::Error& e) {
    EXPECT_EQ(e.error().file, "kernel.antares");
    EXPECT_EQ(e.error().line, 1);
    EXPECT_GT(e.error().column, 0);
    EXPECT_FALSE(e.error().message.empty());
    EXPECT_NE(std::string(e.what()).find("kernel.antares:1:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("^"), std::string::npos) << e.what();
  }
  // An out-of-range read, at run time, with the index point.
  std::vector<float> x{1, 2};
  try {
    teval::run("output0[N] = input0[N + 1] where N in 2", {{"input0", ref(x, {2})}});
    FAIL() << "no error";
  } catch (const teval::Error& e) {
    EXPECT_NE(e.error().message.find("out of range"), std::string::npos) << e.what();
    EXPECT_EQ(e.error().line, 1);
  }
}

TEST(Api, NamesThatDoNotMatchAreErrors) {
  teval::LoadOptions options;
  options.inputs["input0"] = {DType::Float32, {2}};
  teval::Program p = teval::Program::load("output0[N] = input0[N] * 2.0", options);
  std::vector<float> x{1, 2};
  EXPECT_THROW(p.run({}), teval::Error);                                                // missing
  EXPECT_THROW(p.run({{"input0", ref(x, {2})}, {"extra", ref(x, {2})}}), teval::Error); // unknown
  EXPECT_THROW(p.run({{"input0", ref(x, {1})}}), teval::Error); // wrong shape
  try {
    p.run({{"x", ref(x, {2})}});
  } catch (const teval::Error& e) {
    EXPECT_EQ(e.error().message, "the program has no input `x`; it reads: input0");
  }
  // An input whose type nobody gives.
  EXPECT_THROW(teval::Program::load("output0[N] = input0[N]"), teval::Error);
}

// A float16 sum whose partial sums may overflow has no finite bound: a
// value other than the exact 60000 and the sequential +inf gets no
// verdict, and does not pass.
TEST(Api, AnUnboundedCandidateIsInconclusiveAndDoesNotPass) {
  teval::LoadOptions options;
  options.inputs["x"] = {DType::Float16, {3}};
  teval::Program p = teval::Program::load("o[] +=! x[N]", options);
  // 60000, 60000, -60000; 60000, +inf and 65504 as float16 bits.
  std::vector<uint16_t> x{0x7b53, 0x7b53, 0xfb53}, exact{0x7b53}, inf{0x7c00}, other{0x7bff};
  auto half = [](std::vector<uint16_t>& v, std::vector<int64_t> shape) {
    return TensorRef{DType::Float16, std::move(shape), v.data()};
  };
  std::map<std::string, TensorRef> in{{"x", half(x, {3})}};
  for (std::vector<uint16_t>* legal : {&exact, &inf}) {
    std::vector<teval::Verdict> v = p.check(in, {{"o", half(*legal, {})}});
    EXPECT_EQ(v[0].status, teval::Verdict::Status::Exact);
    EXPECT_TRUE(v[0].passed());
  }
  std::vector<teval::Verdict> v = p.check(in, {{"o", half(other, {})}});
  EXPECT_EQ(v[0].status, teval::Verdict::Status::Inconclusive);
  EXPECT_EQ(v[0].inconclusive, 1);
  EXPECT_FALSE(v[0].passed());
}

// CheckOptions::math_ulp and function_ulp set the allowance of math
// functions: exp(0.7f) three ulps above its rounded value passes by the
// measured table, not with 0 ulps; an unknown function is an error.
TEST(Api, CheckTakesTheMathFunctionsAllowance) {
  teval::LoadOptions options;
  options.inputs["x"] = {DType::Float32, {1}};
  teval::Program p = teval::Program::load("o[N] = x[N].call(`exp`)", options);
  std::vector<float> x{0.7f}, c{2.0137526988983154f};
  for (int i = 0; i < 3; ++i)
    c[0] = std::nextafter(c[0], 3.f);
  std::map<std::string, TensorRef> in{{"x", ref(x, {1})}}, cand{{"o", ref(c, {1})}};
  EXPECT_TRUE(p.check(in, cand)[0].passed());
  teval::CheckOptions strict;
  strict.math_ulp = 0;
  EXPECT_FALSE(p.check(in, cand, strict)[0].passed());
  strict.function_ulp["exp"] = 3;
  EXPECT_TRUE(p.check(in, cand, strict)[0].passed());
  strict.function_ulp["abs"] = 3;
  EXPECT_THROW(p.check(in, cand, strict), teval::Error);
}

// No candidate is an error, as `teval check` without --candidate is.
TEST(Api, CheckWithoutACandidateIsAnError) {
  teval::LoadOptions options;
  options.inputs["x"] = {DType::Float32, {2}};
  teval::Program p = teval::Program::load("o[N] = x[N] + 1.0", options);
  std::vector<float> x{1, 2};
  try {
    p.check({{"x", ref(x, {2})}}, {});
    ADD_FAILURE() << "no error";
  } catch (const teval::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no candidate"), std::string::npos) << e.what();
  }
}

TEST(Api, CheckGivesTheOraclesVerdict) {
  teval::LoadOptions options;
  options.inputs["input0"] = {DType::Float32, {2, 3}};
  options.inputs["input1"] = {DType::Float32, {3}};
  teval::Program p = teval::Program::load("output0[N] +=! input0[N, K] * input1[K]", options);
  std::vector<float> x{1, 2, 3, 4, 5, 6}, y{1, 1, 1};
  std::map<std::string, TensorRef> in{{"input0", ref(x, {2, 3})}, {"input1", ref(y, {3})}};
  std::vector<float> right{6, 15}, wrong{6, 16};
  std::vector<teval::Verdict> v = p.check(in, {{"output0", ref(right, {2})}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, teval::Verdict::Status::Exact);
  EXPECT_TRUE(v[0].passed());
  v = p.check(in, {{"output0", ref(wrong, {2})}});
  EXPECT_EQ(v[0].status, teval::Verdict::Status::Mismatch);
  EXPECT_EQ(v[0].kind, "value");
  EXPECT_EQ(v[0].mismatches, 1);
  EXPECT_EQ(v[0].worst_index, std::vector<int64_t>{1});
  EXPECT_EQ(v[0].text.substr(0, v[0].text.find('\n')),
            "output0: mismatch (value): element [1] is 16.0; the exact result is 15.0 and every "
            "legal result is in [15.0, 15.0]");
  teval::CheckOptions loose;
  loose.rule = teval::CheckOptions::Rule::Tolerance;
  loose.rtol = 0.1;
  EXPECT_TRUE(p.check(in, {{"output0", ref(wrong, {2})}}, loose)[0].passed());
  EXPECT_THROW(p.check(in, {{"result", ref(right, {2})}}), teval::Error);
}

TEST(Api, EveryDtypeRoundTrips) {
  for (DType t : {DType::Bool, DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8,
                  DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
    teval::Tensor in(t, {4});
    auto* bytes = static_cast<unsigned char*>(in.data());
    for (size_t i = 0; i < in.size_bytes(); ++i)
      bytes[i] = static_cast<unsigned char>(
          i % teval::size_of(t) == 0 ? (t == DType::Bool ? 1 : 0x3c) : 0);
    auto out = teval::run("output0[N] = input0[N]", {{"input0", in.ref()}});
    const teval::Tensor& o = out.at("output0");
    EXPECT_EQ(o.dtype(), t) << teval::name(t);
    ASSERT_EQ(o.size_bytes(), in.size_bytes());
    EXPECT_EQ(std::memcmp(o.data(), in.data(), in.size_bytes()), 0) << teval::name(t);
  }
}

// Integer values narrowed, converted to float and compared, at every
// width from one element (scalar code) through straight-line code a few
// elements wide (which LLVM's SLP vectorizer packs: LLVM 19 narrowed the
// uint32 subtraction below to 16 bits and gave 65535.0) to vector loops.
TEST(Api, IntegerValuesKeepTheirWidthsOnEveryEngineAtEveryExtent) {
  const std::string d = "(input0[N].cast(`uint32`) - const(5).cast(`uint32`))";
  // Each program and the value of its output at element i, as a double.
  using Want = std::function<double(uint8_t, uint16_t, int16_t)>;
  auto minus5 = [](uint8_t x) { return static_cast<uint32_t>(x) - 5u; };
  const std::vector<std::pair<std::string, Want>> cases = {
      {"output0[N] = " + d + ".cast(`float32`)",
       [&](uint8_t x, uint16_t, int16_t) { return static_cast<float>(minus5(x)); }},
      {"output0[N] = " + d + ".cast(`float64`)",
       [&](uint8_t x, uint16_t, int16_t) { return static_cast<double>(minus5(x)); }},
      {"output0[N] = (input0[N].cast(`uint16`) * const(300).cast(`uint16`)).cast(`float32`)",
       [](uint8_t x, uint16_t, int16_t) { return static_cast<uint16_t>(x * 300u); }},
      {"output0[N] = (input1[N] >= input2[N]).cast(`int32`)",
       [](uint8_t, uint16_t a, int16_t b) { return static_cast<int32_t>(a) >= b ? 1 : 0; }},
      {"output0[N] = (" + d + " < const(7).cast(`uint32`)).cast(`int32`)",
       [&](uint8_t x, uint16_t, int16_t) { return minus5(x) < 7u ? 1 : 0; }},
  };
  for (int64_t n = 1; n <= 20; ++n) {
    std::vector<uint8_t> small(static_cast<size_t>(n));
    std::vector<uint16_t> wide(small.size());
    std::vector<int16_t> narrow(small.size());
    for (size_t i = 0; i < small.size(); ++i) {
      small[i] = static_cast<uint8_t>(i * 37 % 11);
      wide[i] = static_cast<uint16_t>(61035 - 997 * i);
      narrow[i] = static_cast<int16_t>(14288 - 3001 * static_cast<int>(i));
    }
    std::map<std::string, TensorRef> inputs{{"input0", {DType::UInt8, {n}, small.data()}},
                                            {"input1", {DType::UInt16, {n}, wide.data()}},
                                            {"input2", {DType::Int16, {n}, narrow.data()}}};
    for (const auto& [text, want] : cases) {
      // Each program is given the inputs it reads.
      teval::LoadOptions options;
      std::map<std::string, TensorRef> read;
      for (const auto& [name, ref] : inputs)
        if (text.find(name) != std::string::npos) {
          options.inputs[name] = {ref.dtype, ref.shape};
          read[name] = ref;
        }
      teval::Program p = teval::Program::load(text, options);
      for (Engine e : {Engine::Interpreter, Engine::IREval, Engine::Jit}) {
        teval::Tensor out = p.run(read, e).at("output0");
        for (size_t i = 0; i < small.size(); ++i) {
          double got = out.dtype() == DType::Float32   ? floats(out)[i]
                       : out.dtype() == DType::Float64 ? static_cast<const double*>(out.data())[i]
                                                       : static_cast<const int32_t*>(out.data())[i];
          EXPECT_EQ(got, want(small[i], wide[i], narrow[i]))
              << text << "\nn " << n << ", element " << i << ", engine " << static_cast<int>(e);
        }
      }
    }
  }
}

TEST(Api, ProgramsRunFromSeveralThreads) {
  teval::LoadOptions options;
  options.inputs["input0"] = {DType::Float32, {64}};
  teval::Program p = teval::Program::load("output0[N] = input0[N] * 2.0", options);
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i)
    x[i] = static_cast<float>(i);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < 20; ++r) {
        auto out = p.run({{"input0", ref(x, {64})}}, t % 2 ? Engine::Jit : Engine::Interpreter);
        ok[t] += floats(out.at("output0"))[63] == 126.0f;
      }
    });
  for (std::thread& th : threads)
    th.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(ok[t], 20);
}

} // namespace

// A tensor's size is checked before anything is allocated: a negative
// extent, extents whose product overflows and a size past teval's limit are
// errors, as are adopted bytes of the wrong count.
TEST(Api, TensorSizesAreCheckedBeforeAllocation) {
  auto message = [](auto make) {
    try {
      make();
    } catch (const teval::Error& e) {
      return e.rendered();
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] {
              teval::Tensor(DType::Float32, {2, -1});
            }).find("extent is negative"),
            std::string::npos);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{int64_t{1} << 40, int64_t{1} << 40},
                                     std::vector<int64_t>{int64_t{1} << 40}})
    EXPECT_NE(
        message([&] { teval::Tensor(DType::Float32, shape); }).find("larger than teval's limit"),
        std::string::npos);
  EXPECT_NE(message([] {
              teval::Tensor(DType::Float32, {3}, std::vector<std::byte>(8));
            }).find("a float32 tensor of 3 elements needs 12 bytes, not 8"),
            std::string::npos);
  teval::Tensor adopted(DType::Int16, {2, 2}, std::vector<std::byte>(8, std::byte{1}));
  EXPECT_EQ(adopted.size_bytes(), 8u);
  EXPECT_EQ(static_cast<const unsigned char*>(adopted.data())[7], 1);
}

// Order::Any and fma free the JIT from the interpreter's bits, within the
// oracle's bound: 1e8 followed by 4095 twos sums to 1e8 in order and to
// more in vector partial sums. The other engines refuse them.
TEST(Api, OrderAnyIsWithinTheBoundAndOnlyForTheJit) {
  teval::LoadOptions options;
  options.inputs["input0"] = {DType::Float32, {4096}};
  teval::Program p = teval::Program::load("output0[] +=! input0[K]", options);
  std::vector<float> x(4096, 2.0f);
  x[0] = 1e8f;
  std::map<std::string, teval::TensorRef> in{{"input0", ref(x, {4096})}};
  teval::RunOptions sequential{Engine::Jit}, any{Engine::Jit};
  any.order = teval::RunOptions::Order::Any;
  any.fma = true;
  EXPECT_EQ(floats(p.run(in, sequential).at("output0"))[0], 1e8f);
  std::map<std::string, teval::Tensor> relaxed = p.run(in, any);
  EXPECT_NE(floats(relaxed.at("output0"))[0], 1e8f);
  teval::CheckOptions fma;
  fma.fma = true;
  EXPECT_TRUE(p.check(in, {{"output0", relaxed.at("output0").ref()}}, fma)[0].passed());
  // The sequential program is compiled once and kept apart from the relaxed one.
  EXPECT_EQ(floats(p.run(in, sequential).at("output0"))[0], 1e8f);
  teval::RunOptions interp{Engine::Interpreter};
  interp.order = teval::RunOptions::Order::Any;
  EXPECT_THROW(p.run(in, interp), teval::Error);
}
