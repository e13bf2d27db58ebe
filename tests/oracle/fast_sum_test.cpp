// The fast check (oracle/fast_sum.h) is the walk, and so is the
// interpreter's contraction loop (interp/contraction.h): on random
// contractions of every floating dtype — matmuls, reductions, padded
// windows, casts, constant factors, rows longer and shorter than a block of
// lanes — with ordinary, integral, huge, tiny and special values, with and
// without fused multiply-adds, oracle::evaluate() gives the same sequential
// and exact results, bit for bit, and the same bounds as the walks
// (EvaluateOptions::fast = false), on one thread and on two; interp::run
// gives its definitional walk's bits.
#include "core/error.h"
#include "core/scalar_ops.h"
#include "interp/interpreter.h"
#include "oracle/evaluate.h"
#include "oracle/fast_sum.h"

#include "tests/oracle/fast_check.h"
#include "tests/support/programs.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <random>

namespace teval::oracle {
namespace {

using core::DType;

std::string text(const Interval& v) {
  return "[" + std::to_string(v.lo.as_double()) + ", " + std::to_string(v.hi.as_double()) + "]" +
         (v.nan ? " nan" : "") + (v.any ? " any" : "");
}

// Whether some statement of \p k is computed by the fast check.
bool fast_applies(const core::Kernel& k, const std::vector<core::Tensor>& inputs,
                  const BoundOptions& options) {
  std::optional<std::map<int, SumValues>> fast = fast_statements(k, inputs, options);
  return fast && !fast->empty();
}

} // namespace

void expect_fast_is_walk(const core::Kernel& k, const std::vector<core::Tensor>& inputs,
                         const BoundOptions& options) {
  Evaluation walk;
  try {
    walk = evaluate(k, inputs, options, {.fast = false});
  } catch (const core::Error& e) {
    // The same error, the same words.
    std::string message;
    try {
      evaluate(k, inputs, options);
    } catch (const core::Error& f) {
      message = f.render();
    }
    RC_ASSERT(message == e.render());
    return;
  }
  for (int threads : {1, 2}) {
    Evaluation fast = evaluate(k, inputs, options, {.fast = true, .threads = threads});
    for (size_t o = 0; o < walk.exact.size(); ++o)
      for (int64_t i = 0; i < walk.exact[o].numel(); ++i) {
        std::string where = "output " + std::to_string(o) + " element " + std::to_string(i);
        // Bit for bit, every NaN alike (a NaN's sign and payload are not
        // part of any result).
        core::Scalar ws = walk.sequential[o].get(i), fs = fast.sequential[o].get(i);
        if (!core::identical(ws, fs))
          RC_FAIL(where + ": sequential " + std::to_string(fs.as_double()) + ", walk " +
                  std::to_string(ws.as_double()));
        core::Scalar we = walk.exact[o].get(i), fe = fast.exact[o].get(i);
        if (!core::identical(we, fe))
          RC_FAIL(where + ": exact " + std::to_string(fe.as_double()) + ", walk " +
                  std::to_string(we.as_double()));
        const Interval& wb = walk.bounds[o].elements[static_cast<size_t>(i)];
        const Interval& fb = fast.bounds[o].elements[static_cast<size_t>(i)];
        if (!core::identical(wb.lo, fb.lo) || !core::identical(wb.hi, fb.hi) || wb.nan != fb.nan ||
            wb.any != fb.any)
          RC_FAIL(where + ": bound " + text(fb) + ", walk " + text(wb));
      }
  }
}

namespace {

// How a random input's values are drawn.
enum class Values { Ordinary, Integral, Extreme, Huge, Tiny };

core::Tensor random_tensor(DType t, const core::Shape& shape, Values kind, uint32_t seed) {
  core::Tensor x(t, shape);
  static const double specials[] = {0.0,   -0.0,  INFINITY, -INFINITY, NAN,    1e30,
                                    -1e30, 1e-30, 65504,    -65504,    3e38,   -3e38,
                                    1e300, 100,   0x1p-149, -0x1p-24,  1e-300, 0x1p-1074};
  std::mt19937 random(seed);
  auto in = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  double largest = core::highest(t).f;
  for (int64_t i = 0; i < x.numel(); ++i) {
    double v = 0;
    switch (kind) {
    case Values::Ordinary:
      v = in(-2000, 2000) / 1000.0 + in(0, 999) * 1e-7;
      break;
    case Values::Integral:
      v = in(-3, 3);
      if (v == 0 && in(0, 1))
        v = -0.0;
      break;
    case Values::Extreme:
      v = in(0, 2) == 0 ? specials[in(0, std::size(specials) - 1)] : in(-2000, 2000) / 1000.0;
      break;
    case Values::Huge: // sums, and products, that reach the overflow threshold
      v = std::sqrt(largest) * in(-1500, 1500) / 1000.0 *
          (in(0, 3) == 0 ? std::sqrt(largest) / 4 : 1);
      break;
    case Values::Tiny: // subnormal products and sums
      v = std::ldexp(in(-64, 64), t == DType::Float64 ? -1070 : -140);
      break;
    }
    x.set(i, core::Scalar::of_float(t, v));
  }
  return x;
}

std::string dtype_name(DType t) {
  return core::to_string(t);
}

// A random contraction over random inputs, checked both ways.
void check_random_contraction() {
  const DType dtypes[] = {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};
  DType t = *rc::gen::elementOf(std::vector<DType>(std::begin(dtypes), std::end(dtypes)));
  int form = *rc::gen::inRange(0, 6);
  int64_t n = *rc::gen::inRange(1, 4);
  // A row sometimes longer than a block of lanes, with a partial block.
  int64_t m = *rc::gen::elementOf(std::vector<int64_t>{1, 3, 7, 31, 32, 33, 45});
  // A reduction sometimes longer than the fast check takes at a time.
  int64_t r = *rc::gen::elementOf(std::vector<int64_t>{1, 2, 5, 17, 60, 1100});
  std::string program;
  std::map<std::string, core::Shape> shapes;
  std::map<std::string, DType> types{{"input0", t}, {"input1", t}};
  switch (form) {
  case 0: // a matmul: one factor along the row, one across it
    program = "output0[N, M] +=! input0[N, K] * input1[K, M]";
    shapes = {{"input0", {n, r}}, {"input1", {r, m}}};
    break;
  case 1: // a reduction: one factor
    program = "output0[N, M] +=! input0[N, M, K]";
    shapes = {{"input0", {n, m, r}}};
    break;
  case 2: { // a padded window, guarded by .when
    int64_t k = *rc::gen::inRange<int64_t>(1, 6), pad = *rc::gen::inRange<int64_t>(0, k);
    int64_t w = m + k - 1 - 2 * pad > 0 ? m + k - 1 - 2 * pad : 1;
    int64_t out = w + 2 * pad - k + 1;
    std::string i = "W + KW - " + std::to_string(pad);
    std::string zero = t == DType::Float32 ? "0.0" : "const(0.0).cast(`" + dtype_name(t) + "`)";
    program = "output0[N, F, W] +=! input0[N, C, " + i + "].when([" + i + " >= 0, " + i + " < " +
              std::to_string(w) + "], " + zero + ") * input1[F, C, KW] where W in " +
              std::to_string(out);
    shapes = {{"input0", {n, r, w}}, {"input1", {2, r, k}}};
    break;
  }
  case 3: // a narrower input cast to the sum's dtype
    program = "output0[N, M] +=! input0[N, K].cast(`" + dtype_name(t) + "`) * input1[K, M]";
    types["input0"] = t == DType::Float64 ? DType::Float32 : DType::Float16;
    shapes = {{"input0", {n, r}}, {"input1", {r, m}}};
    break;
  case 4: // a constant factor
    program = "output0[N, M] +=! input0[N, M, K] * 3.0";
    shapes = {{"input0", {n, m, r}}};
    break;
  default: // the row's variable reads one factor across and one along
    program = "output0[M, N] +=! input0[K, N] * input1[M, K]";
    shapes = {{"input0", {r, m}}, {"input1", {n, r}}};
    break;
  }
  const Values kinds[] = {Values::Ordinary, Values::Integral, Values::Extreme, Values::Huge,
                          Values::Tiny};
  std::map<std::string, core::Tensor> inputs;
  for (const auto& [name, shape] : shapes) {
    Values kind = *rc::gen::elementOf(std::vector<Values>(std::begin(kinds), std::end(kinds)));
    inputs.emplace(name, random_tensor(types[name], shape, kind, *rc::gen::arbitrary<uint32_t>()));
  }
  BoundOptions options;
  options.fma = *rc::gen::arbitrary<bool>();
  options.excess_precision = *rc::gen::inRange(0, 4) == 0;
  RC_LOG() << program << " (" << dtype_name(t) << (options.fma ? ", fma" : "")
           << (options.excess_precision ? ", excess precision" : "") << ")\n";
  core::Kernel k = test::elaborate(program, inputs);
  std::vector<core::Tensor> in;
  for (int id : interp::input_ids(k))
    in.push_back(inputs.at(k.tensors[static_cast<size_t>(id)].name));
  // Every form is one the fast check computes (else this tests nothing),
  // but for a float16 or bfloat16 sum with excess precision.
  DType sum = k.tensors[static_cast<size_t>(k.outputs[0])].dtype;
  bool narrow = sum == DType::Float16 || sum == DType::BFloat16;
  RC_ASSERT(fast_applies(k, in, options) == !(options.excess_precision && narrow));
  expect_fast_is_walk(k, in, options);
  // The interpreter adds a contraction's terms many outputs at a time
  // (Contraction::sum_in_order): what its definitional walk gives.
  std::vector<core::Tensor> blocks = interp::run(k, in);
  std::vector<core::Tensor> walk = interp::run(k, in, {.blocks = false});
  for (size_t o = 0; o < walk.size(); ++o)
    for (int64_t i = 0; i < walk[o].numel(); ++i)
      if (!core::identical(blocks[o].get(i), walk[o].get(i)))
        RC_FAIL("the interpreter: element " + std::to_string(i) + " is " +
                std::to_string(blocks[o].get(i).as_double()) + ", its walk " +
                std::to_string(walk[o].get(i).as_double()));
}

RC_GTEST_PROP(FastCheckProperty, TheFastCheckIsTheWalk, ()) {
  check_random_contraction();
}

// A read out of range in a contraction is the interpreter's error, though
// the fast check meets it first.
TEST(FastCheck, AnOutOfRangeReadIsTheInterpretersError) {
  core::Tensor a = test::tensor(DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6});
  core::Tensor b = test::tensor(DType::Float32, {3}, {1, 1, 1});
  core::Kernel k = test::elaborate("output0[N] +=! input0[N, K + 1] * input1[K] where K in 3",
                                   {{"input0", a}, {"input1", b}});
  std::vector<core::Tensor> in{a, b};
  std::string walk, fast;
  try {
    interp::run(k, in);
  } catch (const core::Error& e) {
    walk = e.render();
  }
  try {
    evaluate(k, in, {});
  } catch (const core::Error& e) {
    fast = e.render();
  }
  EXPECT_NE(walk, "");
  EXPECT_EQ(fast, walk);
}

// Hand values: 1 + 2^-24 sixteen times in float32 is 1 in sequence and
// 1 + 2^-20 exactly; both ends of the bound come from the fast check.
TEST(FastCheck, HandValuesOfAFloat32Dot) {
  std::vector<double> a{1.0};
  for (int i = 0; i < 16; ++i)
    a.push_back(std::ldexp(1.0, -24));
  core::Tensor x(DType::Float32, {1, 17});
  for (int i = 0; i < 17; ++i)
    x.set(i, core::Scalar::of_float(DType::Float32, a[i]));
  core::Tensor ones(DType::Float32, {17});
  ones.fill(core::Scalar::of_float(DType::Float32, 1));
  core::Kernel k =
      test::elaborate("output0[N] +=! input0[N, K] * input1[K]", {{"input0", x}, {"input1", ones}});
  Evaluation e = evaluate(k, std::vector<core::Tensor>{x, ones}, {});
  EXPECT_EQ(e.sequential[0].get(0).f, 1.0);
  EXPECT_EQ(e.exact[0].get(0).f, 1.0 + std::ldexp(1.0, -20));
  // Every order lies within (17 - 1) · 2^-24 · (1 + 2^-20) of the exact
  // sum, and at or above the largest term, 1: [1, 1 + 2^-19 + 2^-40],
  // rounded inward to float32's values.
  const Interval& b = e.bounds[0].elements[0];
  EXPECT_EQ(b.lo.f, 1.0);
  EXPECT_EQ(b.hi.f, 1.0 + std::ldexp(1.0, -19));
  EXPECT_FALSE(b.nan);
}

// An exact zero sum is +0 unless every term is -0, in both results.
TEST(FastCheck, SignedZerosOfAnExactZeroSum) {
  core::Tensor x = test::tensor(DType::Float32, {1, 2}, {-0.0, -0.0});
  core::Tensor y = test::tensor(DType::Float32, {1, 2}, {1.0, -1.0});
  core::Kernel k = test::elaborate("output0[N] +=! input0[N, K]", {{"input0", x}});
  Evaluation zero = evaluate(k, std::vector<core::Tensor>{x}, {});
  // The sum starts at +0: +0 + -0 + -0 is +0.
  EXPECT_FALSE(std::signbit(zero.exact[0].get(0).f));
  EXPECT_FALSE(std::signbit(zero.sequential[0].get(0).f));
  Evaluation cancel = evaluate(k, std::vector<core::Tensor>{y}, {});
  EXPECT_EQ(cancel.exact[0].get(0).f, 0.0);
  EXPECT_FALSE(std::signbit(cancel.exact[0].get(0).f));
}

} // namespace
} // namespace teval::oracle
