// Rigorous bounds of floating sums (oracle/sum_bound.h): the forward bound
// for every order and every n, sums no order rounds, long float16 and
// bfloat16 sums against every order a plain loop computes, infinities.
#include "oracle/bounds.h"
#include "oracle/exact_eval.h"

#include "interp/interpreter.h"
#include "tests/support/programs.h"
#include "tests/support/sum_orders.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace teval::oracle {
namespace {

using core::DType;

const char* const kDot = "output0[N] +=! input0[N, K] * input1[K]";

// The bound of a sum of n terms: (n - 1)·u·Σ|x| around the exact sum,
// computed here by hand for a small case.
TEST(Bounds, SumBoundIsTheForwardBoundForAnyOrder) {
  core::Tensor x = test::tensor(DType::Float32, {1, 4}, {0.1f, 0.2f, 0.3f, 0.4f});
  core::Tensor y = test::tensor(DType::Float32, {4}, {1, 1, 1, 1});
  core::Kernel k = test::elaborate(kDot, {{"input0", x}, {"input1", y}});
  std::vector<core::Tensor> in{x, y};
  Interval b = bounds(k, in)[0].elements[0];
  double s = double(0.1f) + double(0.2f) + double(0.3f) + double(0.4f); // exact in double
  double err = 3 * std::ldexp(1.0, -24) * s;
  // Every legal result lies within err of s, rounded inward to float32.
  EXPECT_LE(b.lo.f, s);
  EXPECT_GE(b.hi.f, s);
  EXPECT_GE(b.lo.f, s - err);
  EXPECT_LE(b.hi.f, s + err);
  // Inward rounding: the next float32 outside is beyond s ± err.
  EXPECT_LT(std::nextafter(float(b.lo.f), -INFINITY), s - err);
  EXPECT_GT(std::nextafter(float(b.hi.f), INFINITY), s + err);
  EXPECT_FALSE(b.nan);
  EXPECT_FALSE(b.any);
}

// Terms that are all multiples of q, with Σ|x| at most 2^p·q, are added
// without rounding in every order: the exact sum is the one legal result
// (1, 2, 3, 4 in float32; 2048 float16 ones). One more float16 one, and
// rounding is possible again.
TEST(Bounds, SumsThatNoOrderRoundsHaveOneLegalResult) {
  core::Tensor x = test::tensor(DType::Float32, {1, 4}, {1, 2, 3, 4});
  core::Kernel k = test::elaborate("output0[N] +=! input0[N, K]", {{"input0", x}});
  std::vector<core::Tensor> in{x};
  EXPECT_TRUE(bounds(k, in)[0].elements[0].singleton());
  EXPECT_EQ(bounds(k, in)[0].elements[0].lo.f, 10);
  for (int n : {2048, 2049}) {
    core::Tensor h(DType::Float16, {1, n});
    h.fill(core::Scalar::of_float(DType::Float16, 1));
    core::Kernel kh = test::elaborate("output0[N] +=! input0[N, K]", {{"input0", h}});
    std::vector<core::Tensor> hin{h};
    Interval b = bounds(kh, hin)[0].elements[0];
    EXPECT_EQ(b.singleton(), n == 2048) << n;
    EXPECT_EQ(b.lo.f, n == 2048 ? 2048 : 1) << n; // terms of one sign: at least the largest
  }
}

// On random dot products: every ordering of the sum we try, the sequential
// result and the exact one are inside the bound.
TEST(Bounds, EveryOrderWeTryIsInside) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  const int n = 200;
  core::Tensor x(DType::Float32, {3, n}), y(DType::Float32, {n});
  for (int i = 0; i < 3 * n; ++i)
    x.set(i, core::Scalar::of_float(DType::Float32, u(rng) * (i % 7 == 0 ? 1e4f : 1.0f)));
  for (int i = 0; i < n; ++i)
    y.set(i, core::Scalar::of_float(DType::Float32, u(rng)));
  core::Kernel k = test::elaborate(kDot, {{"input0", x}, {"input1", y}});
  std::vector<core::Tensor> in{x, y};
  BoundTensor b = bounds(k, in)[0];
  BoundTensor fused = bounds(k, in, {.fma = true})[0];
  core::Tensor exact = run_exact(k, in)[0];
  for (int row = 0; row < 3; ++row) {
    const Interval& iv = b.elements[row];
    // Fused multiply-adds in order, as a compiler that contracts computes.
    float f = 0;
    for (int i = 0; i < n; ++i)
      f = std::fma(static_cast<float>(x.get(row * n + i).f), static_cast<float>(y.get(i).f), f);
    EXPECT_TRUE(fused.elements[row].contains(core::Scalar::of_float(DType::Float32, f)));
    EXPECT_TRUE(iv.contains(exact.get(row)));
    std::vector<float> terms;
    for (int i = 0; i < n; ++i)
      terms.push_back(static_cast<float>(x.get(row * n + i).f * y.get(i).f));
    for (int trial = 0; trial < 50; ++trial) {
      std::shuffle(terms.begin(), terms.end(), rng);
      float s = 0;
      for (float t : terms)
        s += t;
      double pairwise = 0; // a wider accumulator, rounded once
      for (float t : terms)
        pairwise += t;
      EXPECT_TRUE(iv.contains(core::Scalar::of_float(DType::Float32, s)));
      EXPECT_TRUE(iv.contains(core::Scalar::of_float(DType::Float32, pairwise)));
    }
  }
}

// Long float16 and bfloat16 sums, from where gamma(n) had no finite value
// (n·u >= 1/2) to a million terms: the bound is finite unless a partial
// sum may overflow, and holds every order we can run and the exact result.
TEST(Bounds, LongFloat16AndBfloat16SumsHaveFiniteBounds) {
  std::mt19937 rng(7);
  for (DType t : {DType::Float16, DType::BFloat16})
    for (int n : {128, 512, 2048, 4096, 65536, 1000000}) {
      // Terms in [-1, 1], then in [0, 1]: a sum of one sign.
      for (bool one_sign : {false, true}) {
        std::uniform_real_distribution<double> dist(one_sign ? 0 : -1, 1);
        core::Tensor x(t, {1, n});
        std::vector<double> terms;
        for (int i = 0; i < n; ++i) {
          x.set(i, core::Scalar::of_float(t, dist(rng)));
          terms.push_back(x.get(i).f);
        }
        core::Kernel k = test::elaborate("output0[N] +=! input0[N, K]", {{"input0", x}});
        std::vector<core::Tensor> in{x};
        Interval b = bounds(k, in)[0].elements[0];
        std::string what = core::to_string(t) + " n=" + std::to_string(n);
        // float16's partial sums may overflow past 65504 / (1 + (n - 1)·u):
        // then +inf, and with terms of both signs -inf and NaN, are legal.
        bool may_overflow = t == DType::Float16 && n >= 65536;
        EXPECT_FALSE(b.any) << what;
        EXPECT_EQ(b.nan, may_overflow && !one_sign) << what;
        EXPECT_EQ(std::isfinite(b.hi.f), !may_overflow) << what;
        EXPECT_TRUE(std::isfinite(b.lo.f) || !one_sign) << what;
        if (one_sign) {
          EXPECT_GE(b.lo.f, 0) << what;
        }
        EXPECT_TRUE(b.contains(run_exact(k, in)[0].get(0))) << what;
        EXPECT_TRUE(b.contains(interp::run(k, in)[0].get(0))) << what;
        for (double v : test::sum_orders(t, terms))
          EXPECT_TRUE(b.contains(core::Scalar::of_float(t, v))) << what << ": " << v;
      }
    }
}

// A sum of one term that may be anything (x % [0, 0] after a product,
// whose bound is an interval) may be anything: it had been taken for an
// empty sum and given its start value, 0.
TEST(Bounds, ASumOfATermWithoutABoundHasNone) {
  core::Kernel k = test::elaborate(
      "- einstein_v2(\"p[N] *=! 1.0 where N in 1; o[] +=! p[0] % 0\", input_dict={})", {});
  Interval b = bounds(k, {})[0].elements[0];
  EXPECT_TRUE(b.any);
}

// A float16 sum of a million ones: 2048 in order (each later one is lost),
// +inf pairwise; both legal, NaN and a negative value not.
TEST(Bounds, AMillionFloat16OnesMayBeAnythingFrom1ToInfinity) {
  const int n = 1000000;
  core::Tensor h(DType::Float16, {1, n});
  h.fill(core::Scalar::of_float(DType::Float16, 1));
  core::Kernel k = test::elaborate("output0[N] +=! input0[N, K]", {{"input0", h}});
  std::vector<core::Tensor> in{h};
  Interval b = bounds(k, in)[0].elements[0];
  EXPECT_EQ(interp::run(k, in)[0].get(0).f, 2048);
  EXPECT_EQ(b.lo.f, 1);
  EXPECT_EQ(b.hi.f, INFINITY);
  EXPECT_FALSE(b.nan);
  for (double v : test::sum_orders(DType::Float16, std::vector<double>(n, 1.0)))
    EXPECT_TRUE(b.contains(core::Scalar::of_float(DType::Float16, v))) << v;
}

// Sums with infinite terms: an infinity of one sign is the result in every
// order (finite terms beside it cannot pull it back, unless they overflow
// to the other infinity first), both signs give NaN. The bound had been
// [NaN, inf]: the error term gamma × inf was computed as NaN, and every
// value failed it (a random program summing input × the -inf of a max
// over an empty range found it).
TEST(Bounds, SumsWithInfiniteTerms) {
  const double inf = INFINITY;
  struct Case {
    std::vector<double> terms;
    double value; // the sequential result
    bool nan;     // NaN legal
  } cases[] = {
      {{inf, inf, inf}, inf, false},    {{1, inf, 2}, inf, false}, {{-inf, 3}, -inf, false},
      {{inf, -3e38, -3e38}, inf, true}, // the finite pair overflows to -inf first
      {{inf, -inf}, NAN, true},
  };
  for (const Case& c : cases) {
    const int64_t n = static_cast<int64_t>(c.terms.size());
    core::Tensor x(DType::Float32, {1, n});
    for (int64_t i = 0; i < n; ++i)
      x.set(i, core::Scalar::of_float(DType::Float32, c.terms[static_cast<size_t>(i)]));
    core::Kernel k = test::elaborate("output0[N] +=! input0[N, K]", {{"input0", x}});
    std::vector<core::Tensor> in{x};
    Interval b = bounds(k, in)[0].elements[0];
    core::Scalar got = interp::run(k, in)[0].get(0);
    EXPECT_TRUE(std::isnan(c.value) ? std::isnan(got.f) : got.f == c.value) << c.terms[0];
    EXPECT_TRUE(b.contains(got)) << c.terms[0] << ", " << c.terms[1];
    EXPECT_FALSE(std::isnan(b.lo.f) || std::isnan(b.hi.f)) << c.terms[0];
    EXPECT_EQ(b.nan, c.nan) << c.terms[0] << ", " << c.terms[1];
    if (!c.nan) { // the infinity's end is infinite, the other is not
      EXPECT_EQ(std::isinf(b.lo.f) && b.lo.f < 0, c.value < 0) << c.terms[0];
      EXPECT_EQ(std::isinf(b.hi.f) && b.hi.f > 0, c.value > 0) << c.terms[0];
    }
  }
}

} // namespace
} // namespace teval::oracle
