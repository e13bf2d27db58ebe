// Exact evaluation and rigorous bounds of whole programs (sums apart:
// sum_bound_test.cpp), against values computed here by hand or with exact
// rational sums.
#include "core/error.h"
#include "oracle/bounds.h"
#include "oracle/exact_eval.h"
#include "oracle/interval_ops.h"
#include "oracle/verdict.h"

#include "interp/interpreter.h"
#include "tests/support/programs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace teval::oracle {
namespace {

using core::DType;

const char* const kDot = "output0[N] +=! input0[N, K] * input1[K]";

// A sum whose sequential float32 evaluation loses the small terms: 1 then
// 2^-24 sixteen times. Sequentially 1; exactly 1 + 2^-20.
TEST(ExactEval, SumIsRoundedOnceNotPerTerm) {
  std::vector<double> a{1.0};
  for (int i = 0; i < 16; ++i)
    a.push_back(std::ldexp(1.0, -24));
  core::Tensor x(DType::Float32, {1, 17});
  for (int i = 0; i < 17; ++i)
    x.set(i, core::Scalar::of_float(DType::Float32, a[i]));
  core::Tensor ones(DType::Float32, {17});
  ones.fill(core::Scalar::of_float(DType::Float32, 1));
  core::Kernel k = test::elaborate(kDot, {{"input0", x}, {"input1", ones}});
  std::vector<core::Tensor> in{x, ones};
  EXPECT_EQ(interp::run(k, in)[0].get(0).f, 1.0);
  EXPECT_EQ(run_exact(k, in)[0].get(0).f, 1.0 + std::ldexp(1.0, -20));
  // Both are legal: the bound holds the sequential and the exact result.
  BoundTensor b = bounds(k, in)[0];
  EXPECT_TRUE(b.elements[0].contains(interp::run(k, in)[0].get(0)));
  EXPECT_TRUE(b.elements[0].contains(run_exact(k, in)[0].get(0)));
}

TEST(ExactEval, MathFunctionsAreCorrectlyRounded) {
  // exp(1) in float32: 2.71828174591064453125 (e = 2.718281828...).
  core::Tensor x = test::tensor(DType::Float32, {1}, {1.0});
  core::Kernel k = test::elaborate("output0[N] = input0[N].call(`exp`)", {{"input0", x}});
  std::vector<core::Tensor> in{x};
  EXPECT_EQ(run_exact(k, in)[0].get(0).f, 2.71828174591064453125);
}

// An interval that holds 0 holds -0 too: rsqrt over it reaches -inf. The
// bound of rsqrt((0 * x) % 1) had been [1, inf] where its interval's low end
// was +0, and the interpreter's -0 gave -inf (a random Tile program found it).
TEST(Bounds, RsqrtOfAnIntervalHoldingZeroReachesMinusInfinity) {
  // [+0, 4] holds -0, whose rsqrt is -inf; 1/sqrt(4) = 0.5 is inside too.
  Interval x{core::Scalar::of_float(DType::Float32, 0.0),
             core::Scalar::of_float(DType::Float32, 4)};
  Interval r = math_bound(core::Op::Rsqrt, DType::Float32, x, {});
  EXPECT_TRUE(r.contains(core::Scalar::of_float(DType::Float32, -INFINITY)));
  EXPECT_TRUE(r.contains(core::Scalar::of_float(DType::Float32, INFINITY)));
  EXPECT_TRUE(r.contains(core::Scalar::of_float(DType::Float32, 0.5)));
}

TEST(Bounds, DivisionByAnIntervalHoldingZeroHasNoBound) {
  // 1 / (a - b) where a - b is a rounded sum that may be zero.
  core::Tensor x = test::tensor(DType::Float32, {1, 2}, {1e8, -1e8});
  core::Tensor y = test::tensor(DType::Float32, {2}, {1, 1});
  core::Kernel k =
      test::elaborate("temp0[N] +=! input0[N, K] * input1[K]; output0[N] = 1.0 / temp0[N]",
                      {{"input0", x}, {"input1", y}});
  std::vector<core::Tensor> in{x, y};
  EXPECT_TRUE(bounds(k, in)[0].elements[0].any);
}

// a·b + c with a = b = 1 + 2^-12, c = -1: rounded, a·b is 1 + 2^-11 and
// the result 2^-11; fused, the result is 2^-11 + 2^-24.
TEST(Bounds, FusedMultiplyAddIsLegalOnlyWithFma) {
  double a = 1 + std::ldexp(1.0, -12);
  core::Tensor x = test::tensor(DType::Float32, {1}, {a});
  core::Tensor c = test::tensor(DType::Float32, {1}, {-1});
  core::Kernel k = test::elaborate("output0[N] = input0[N] * input0[N] + input1[N]",
                                   {{"input0", x}, {"input1", c}});
  std::vector<core::Tensor> in{x, c};
  core::Scalar rounded = core::Scalar::of_float(DType::Float32, std::ldexp(1.0, -11));
  core::Scalar fused =
      core::Scalar::of_float(DType::Float32, std::ldexp(1.0, -11) + std::ldexp(1.0, -24));
  Interval plain = bounds(k, in)[0].elements[0];
  EXPECT_TRUE(plain.contains(rounded));
  EXPECT_FALSE(plain.contains(fused));
  Interval fma = bounds(k, in, {.fma = true})[0].elements[0];
  EXPECT_TRUE(fma.contains(rounded));
  EXPECT_TRUE(fma.contains(fused));
}

// -(a·b) + c, the product negated on its way to the addition: with --fma
// a compiler may compute fma(-a, b, c) (LLVM contracts fneg(fmul) into
// fadd), one rounding. c = 1: rounded, -(a·b) is -(1 + 2^-11) and the
// result -2^-11; fused, -2^-11 - 2^-24. The property suite found the
// bound without the fused value (a random --order any --fma JIT run).
TEST(Bounds, ANegatedProductMayBeFusedToo) {
  double a = 1 + std::ldexp(1.0, -12);
  core::Tensor x = test::tensor(DType::Float32, {1}, {a});
  core::Tensor c = test::tensor(DType::Float32, {1}, {1});
  core::Kernel k = test::elaborate("output0[N] = -(input0[N] * input0[N]) + input1[N]",
                                   {{"input0", x}, {"input1", c}});
  std::vector<core::Tensor> in{x, c};
  core::Scalar rounded = core::Scalar::of_float(DType::Float32, -std::ldexp(1.0, -11));
  core::Scalar fused =
      core::Scalar::of_float(DType::Float32, -std::ldexp(1.0, -11) - std::ldexp(1.0, -24));
  Interval plain = bounds(k, in)[0].elements[0];
  EXPECT_TRUE(plain.contains(rounded));
  EXPECT_FALSE(plain.contains(fused));
  Interval fma = bounds(k, in, {.fma = true})[0].elements[0];
  EXPECT_TRUE(fma.contains(rounded));
  EXPECT_TRUE(fma.contains(fused));
}

// The product in a statement of its own, added by the next (an MLIR graph's
// multiply then add, as its decomposition writes them): a compiler fusing
// the two ops adds it unrounded, so with --fma the fused value is legal
// (XLA's contracted results of JAX's bessel_i0e polynomial were rejected).
// A product that is an output is stored rounded: no wider than without.
TEST(Bounds, AProductAddedByAnotherStatementMayBeFused) {
  double a = 1 + std::ldexp(1.0, -12);
  core::Tensor x = test::tensor(DType::Float32, {1}, {a});
  core::Tensor c = test::tensor(DType::Float32, {1}, {-1});
  std::vector<core::Tensor> in{x, c};
  core::Scalar rounded = core::Scalar::of_float(DType::Float32, std::ldexp(1.0, -11));
  core::Scalar fused =
      core::Scalar::of_float(DType::Float32, std::ldexp(1.0, -11) + std::ldexp(1.0, -24));
  core::Kernel k = test::elaborate("p[N] = input0[N] * input0[N]; output0[N] = p[N] + input1[N]",
                                   {{"input0", x}, {"input1", c}});
  Interval plain = bounds(k, in)[0].elements[0];
  EXPECT_TRUE(plain.contains(rounded));
  EXPECT_FALSE(plain.contains(fused));
  Interval fma = bounds(k, in, {.fma = true})[0].elements[0];
  EXPECT_TRUE(fma.contains(rounded));
  EXPECT_TRUE(fma.contains(fused));
  // p an output too: p itself is the rounded product, with or without fma.
  core::Kernel both = test::elaborate("- einstein_v2(\"p[N] = input0[N] * input0[N]; output0[N] = "
                                      "p[N] + input1[N]\", extra_outputs=[\"p\"])",
                                      {{"input0", x}, {"input1", c}});
  for (const Interval& product :
       {bounds(both, in)[0].elements[0], bounds(both, in, {.fma = true})[0].elements[0]}) {
    EXPECT_TRUE(product.contains(core::Scalar::of_float(DType::Float32, 1 + std::ldexp(1.0, -11))));
    EXPECT_EQ(product.lo.f, product.hi.f);
  }
}

// A math function may be off by its allowance in ulps of the result, no more.
TEST(Bounds, MathFunctionsMayErrByTheirAllowance) {
  core::Tensor x = test::tensor(DType::Float32, {1}, {0.7});
  core::Kernel k = test::elaborate("output0[N] = input0[N].call(`exp`)", {{"input0", x}});
  std::vector<core::Tensor> in{x};
  Interval b = bounds(k, in)[0].elements[0];
  float glibc = std::exp(static_cast<float>(x.get(0).f));
  EXPECT_TRUE(b.contains(core::Scalar::of_float(DType::Float32, glibc)));
  float near = glibc, far = glibc;
  for (int i = 0; i < 4; ++i)
    near = std::nextafter(near, INFINITY);
  for (int i = 0; i < 20; ++i)
    far = std::nextafter(far, INFINITY);
  EXPECT_TRUE(b.contains(core::Scalar::of_float(DType::Float32, near)));
  EXPECT_FALSE(b.contains(core::Scalar::of_float(DType::Float32, far)));
  EXPECT_EQ(math_allowance(core::Op::Exp).ulps, 4);
}

// torch's GELU computes erf with an absolute error (8.5·2^-24 near 0,
// hundreds of ulps of erf's small values; bench/math_ulps.py): at x =
// -0.05845943 it gives -0.027867092, 7 ulps from the exact -0.027867105.
// With an allowance in ulps of erf's result only, 1 + erf(...) rounded to
// one float32 value and the bound collapsed to the exact point; erf's
// absolute part keeps a bound there, for every expression f(x) + c.
TEST(Bounds, AMathFunctionsAbsoluteErrorSurvivesAnAddition) {
  core::Tensor x = test::tensor(DType::Float32, {1}, {-0.05845943f});
  const char* gelu = "output0[N] = input0[N] * 0.5 * (1.0 + (input0[N] * 0.70710677).call(`erf`))";
  core::Kernel k = test::elaborate(gelu, {{"input0", x}});
  std::vector<core::Tensor> in{x};
  core::Scalar torch = core::Scalar::of_float(DType::Float32, -0.027867092f);
  EXPECT_TRUE(bounds(k, in)[0].elements[0].contains(torch));
  Interval ulps_only = bounds(k, in, {.math_ulps = 4})[0].elements[0];
  EXPECT_TRUE(ulps_only.singleton());
  EXPECT_FALSE(ulps_only.contains(torch));
  // 1 + erf(x) at a small x, in every float dtype but float64: at least
  // erf's absolute part on either side.
  for (DType t : {DType::Float32, DType::Float16, DType::BFloat16}) {
    core::Tensor small(t, {1});
    small.set(0, core::Scalar::of_float(t, 0.03));
    core::Kernel one_plus = test::elaborate("output0[N] = const(1.0).cast(`" + core::to_string(t) +
                                                "`) + input0[N].call(`erf`)",
                                            {{"input0", small}});
    std::vector<core::Tensor> sin{small};
    Interval b = bounds(one_plus, sin)[0].elements[0];
    double e = 1 + std::erf(small.get(0).f), slack = 12 * std::ldexp(1.0, -24);
    EXPECT_LE(b.lo.f, core::round_float(t, e - slack)) << core::to_string(t);
    EXPECT_GE(b.hi.f, core::round_float(t, e + slack)) << core::to_string(t);
  }
}

// --math-ulp: every function's allowance, or one function's, in ulps with
// no absolute part; 0 leaves the two values around the exact one (the
// result is faithfully rounded).
TEST(Bounds, MathUlpOverridesTheMeasuredTable) {
  core::Tensor x = test::tensor(DType::Float32, {1}, {0.7});
  core::Kernel k = test::elaborate("output0[N] = input0[N].call(`exp`)", {{"input0", x}});
  std::vector<core::Tensor> in{x};
  // exp(0.7f) = 2.01375268346467... (mpmath): RU is the nearest float, RD the one below.
  float above = 2.0137526988983154f, below = std::nextafter(above, 0.f);
  Interval faithful = bounds(k, in, {.math_ulps = 0})[0].elements[0];
  EXPECT_EQ(faithful.lo.f, below);
  EXPECT_EQ(faithful.hi.f, above);
  BoundOptions one;
  one.function_ulps[core::Op::Exp] = 1;
  one.math_ulps = 0; // the function's own wins
  Interval b = bounds(k, in, one)[0].elements[0];
  EXPECT_EQ(b.lo.f, std::nextafter(below, 0.f));
  EXPECT_EQ(b.hi.f, std::nextafter(above, 3.f));
  EXPECT_EQ(math_function("erf"), core::Op::Erf);
  EXPECT_THROW(math_function("abs"), core::Error);
  EXPECT_EQ(math_allowance(core::Op::Erf).absolute, 12);
  EXPECT_EQ(math_allowance(core::Op::Erf, {.math_ulps = 3}).absolute, 0);
}

// x * x is never negative, though x's interval holds both signs: the
// corners lo·hi pair two different values of one x. A bfloat16 sum of
// terms of both signs has a bound across 0; a variance built on it had
// reached below 0, and its square root NaN.
// An integer power of an interval holding negative values (the x³ of
// GPT's tanh GELU) is bounded: monotone on each side of 0, so its ends are
// at the interval's ends and, for a positive power, at 0. It had been
// unbounded for any x that may be negative.
TEST(Bounds, IntegerPowersOfNegativeValuesAreBounded) {
  auto f = [](double v) { return core::Scalar::of_float(DType::Float32, v); };
  auto pow = [&](double lo, double hi, double n) {
    return pow_bound(DType::Float32, Interval{f(lo), f(hi)}, Interval::point(f(n)), {});
  };
  Interval cube = pow(-2, 1.5, 3); // [-8, 3.375]
  EXPECT_TRUE(std::isfinite(cube.lo.f) && std::isfinite(cube.hi.f));
  EXPECT_LE(cube.lo.f, -8.0);
  EXPECT_GT(cube.lo.f, -8.0001);
  EXPECT_GE(cube.hi.f, 3.375);
  EXPECT_LT(cube.hi.f, 3.3751);
  EXPECT_FALSE(cube.nan);
  Interval square = pow(-2, 1.5, 2); // [0, 4]: the least value at 0
  EXPECT_LE(square.lo.f, 0.0);
  EXPECT_GT(square.lo.f, -1e-30);
  EXPECT_GE(square.hi.f, 4.0);
  EXPECT_LT(square.hi.f, 4.0001);
  Interval inverse = pow(-4, -2, -1); // [-0.5, -0.25]
  EXPECT_LE(inverse.lo.f, -0.5);
  EXPECT_GE(inverse.hi.f, -0.25);
  EXPECT_LT(inverse.hi.f, -0.2499);
  Interval pole = pow(-1, 1, -2); // 1/x² has a pole at 0
  EXPECT_TRUE(std::isinf(pole.hi.f));
  // A non-integer power of a negative value is NaN: no finite bound.
  Interval root = pow_bound(DType::Float32, Interval{f(-1), f(1)}, Interval::point(f(0.5)), {});
  EXPECT_TRUE(std::isinf(root.lo.f) || root.nan);
}

TEST(Bounds, ASquareIsNeverNegative) {
  core::Tensor x(DType::BFloat16, {1, 512});
  for (int i = 0; i < 512; ++i)
    x.set(i, core::Scalar::of_float(DType::BFloat16, (i % 2 ? -1 : 1) * (1 + i % 5) / 7.0));
  core::Kernel k = test::elaborate("temp0[N] +=! input0[N, K]; output0[N] = temp0[N] * temp0[N]",
                                   {{"input0", x}});
  std::vector<core::Tensor> in{x};
  core::Kernel sum = test::elaborate("output0[N] +=! input0[N, K]", {{"input0", x}});
  Interval s = bounds(sum, in)[0].elements[0];
  ASSERT_LT(s.lo.f, 0);
  ASSERT_GT(s.hi.f, 0);
  Interval sq = bounds(k, in)[0].elements[0];
  EXPECT_EQ(sq.lo.f, 0);
  EXPECT_GE(sq.hi.f, std::max(s.lo.f * s.lo.f, s.hi.f * s.hi.f) * (1 - 1.0 / 128));
}

// --excess-precision: a float16 product past 65504 is +inf in float16 but
// 90000 in float32, and 90000 / 4 is 22500 (22496 once rounded to
// float16). Both are legal with excess precision; only +inf without.
TEST(Bounds, ExcessPrecisionKeepsFloat16InFloat32) {
  core::Tensor x = test::tensor(DType::Float16, {1}, {300});
  core::Tensor z = test::tensor(DType::Float16, {1}, {4});
  core::Kernel k = test::elaborate("output0[N] = input0[N] * input0[N] / input1[N]",
                                   {{"input0", x}, {"input1", z}});
  std::vector<core::Tensor> in{x, z};
  auto half = [](double v) { return core::Scalar::of_float(DType::Float16, v); };
  Interval strict = bounds(k, in)[0].elements[0];
  EXPECT_TRUE(strict.contains(half(INFINITY)));
  EXPECT_FALSE(strict.contains(half(22496)));
  Interval excess = bounds(k, in, {.excess_precision = true})[0].elements[0];
  EXPECT_TRUE(excess.contains(half(INFINITY)));
  EXPECT_TRUE(excess.contains(half(22496)));
  EXPECT_FALSE(excess.contains(half(16000))); // below 65504 / 4: the interval keeps t's values
  // float32 programs are not touched.
  core::Tensor x32 = test::tensor(DType::Float32, {1}, {0.1});
  core::Kernel k32 = test::elaborate("output0[N] = input0[N] * input0[N]", {{"input0", x32}});
  std::vector<core::Tensor> in32{x32};
  EXPECT_TRUE(bounds(k32, in32, {.excess_precision = true})[0].elements[0].singleton());
}

// normcdf(-10) through erfc in double, as real implementations compute it,
// is about 190 ulps from the exact value: still legal.
TEST(Bounds, NormCdfAllowsForItsScaledArgument) {
  core::Tensor x = test::tensor(DType::Float64, {1}, {-10});
  core::Kernel k = test::elaborate("output0[N] = input0[N].call(`normcdf`)", {{"input0", x}});
  std::vector<core::Tensor> in{x};
  Interval b = bounds(k, in)[0].elements[0];
  double libm = 0.5 * std::erfc(10 * 0.70710678118654752440);
  EXPECT_TRUE(b.contains(core::Scalar::of_float(DType::Float64, libm)));
  EXPECT_TRUE(b.contains(run_exact(k, in)[0].get(0)));
  EXPECT_FALSE(b.contains(core::Scalar::of_float(DType::Float64, libm * (1 + 1e-12))));
}

// Every math function on every float dtype, at arguments where
// implementations overflow, underflow, lose their argument's precision or
// meet special values: the interpreter's result (the C library's) and the
// exact one are inside the bound.
TEST(Bounds, MathFunctionsAtExtremeArguments) {
  std::vector<double> args{0.0,  -0.0, 0x1p-149, -0x1p-149, 1e-30,   -1e-30,   0.5,       -0.5, 1,
                           -1,   2,    -2,       10,        -10,     50,       -50,       88,   -88,
                           89,   -89,  100,      -100,      700,     -700,     710,       -710, 1e4,
                           -1e4, 1e30, -1e30,    3.0e38,    -3.0e38, INFINITY, -INFINITY, NAN};
  for (core::Op op : core::named_functions()) {
    if (core::rule(op) != core::OpRule::Float)
      continue;
    for (DType t : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
      core::Tensor x(t, {static_cast<int64_t>(args.size())});
      for (size_t i = 0; i < args.size(); ++i)
        x.set(static_cast<int64_t>(i), core::Scalar::of_float(t, args[i]));
      std::string name(core::spelling(op));
      std::string text = core::arity(op) == 2
                             ? "output0[N] = input0[N].call(`" + name + "`, [input0[N]])"
                             : "output0[N] = input0[N].call(`" + name + "`)";
      core::Kernel k = test::elaborate(text, {{"input0", x}});
      std::vector<core::Tensor> in{x};
      core::Tensor seq = interp::run(k, in)[0], exact = run_exact(k, in)[0];
      BoundTensor b = bounds(k, in)[0];
      for (size_t i = 0; i < args.size(); ++i) {
        const Interval& iv = b.elements[i];
        EXPECT_TRUE(iv.contains(seq.get(static_cast<int64_t>(i))))
            << name << "(" << x.get(static_cast<int64_t>(i)).f << ") in " << core::name(t)
            << ": the interpreter's " << seq.get(static_cast<int64_t>(i)).f << " is outside ["
            << iv.lo.f << ", " << iv.hi.f << "]";
        EXPECT_TRUE(iv.contains(exact.get(static_cast<int64_t>(i))))
            << name << "(" << x.get(static_cast<int64_t>(i)).f << ") in " << core::name(t)
            << ": the exact " << exact.get(static_cast<int64_t>(i)).f << " is outside";
      }
    }
  }
}

// remainder(x) = x - floor(x) is NaN at ±inf: over a value one order of
// summation makes infinite (3e38 + 3e38 overflows before - 3e38), NaN is
// legal.
TEST(Bounds, RemainderOfAValueThatMayBeInfiniteMayBeNaN) {
  core::Tensor x = test::tensor(DType::Float32, {3}, {3e38, 3e38, -3e38});
  core::Kernel k = test::elaborate(
      "mediate0[] +=! input0[K]; output0[] = mediate0[].call(`remainder`)", {{"input0", x}});
  std::vector<core::Tensor> in{x};
  Interval b = bounds(k, in)[0].elements[0];
  EXPECT_TRUE(b.contains(core::Scalar::of_float(DType::Float32, NAN)));
  EXPECT_TRUE(b.contains(interp::run(k, in)[0].get(0)));
  EXPECT_TRUE(b.contains(core::Scalar::of_float(DType::Float32, 0.0)));
}

// Subnormals are kept: a sum of subnormal terms is not legally zero.
TEST(Bounds, NoFlushToZero) {
  double tiny = std::ldexp(1.0, -140);
  core::Tensor x = test::tensor(DType::Float32, {1, 2}, {tiny, tiny});
  core::Tensor y = test::tensor(DType::Float32, {2}, {1, 1});
  core::Kernel k = test::elaborate(kDot, {{"input0", x}, {"input1", y}});
  std::vector<core::Tensor> in{x, y};
  Interval b = bounds(k, in)[0].elements[0];
  EXPECT_TRUE(b.contains(core::Scalar::of_float(DType::Float32, 2 * tiny)));
  EXPECT_FALSE(b.contains(core::Scalar::of_float(DType::Float32, 0)));
}

// A branch whose condition depends on how a sum is rounded: both are legal.
// 1e8 + 1 - 1e8 is 0 in sequential float32 and 1 exactly.
TEST(Bounds, AnUndecidedConditionAllowsBothBranches) {
  core::Tensor x = test::tensor(DType::Float32, {1, 3}, {1e8, 1, -1e8});
  core::Tensor y = test::tensor(DType::Float32, {3}, {1, 1, 1});
  core::Kernel k = test::elaborate("temp0[N] +=! input0[N, K] * input1[K]; "
                                   "output0[N] = (1.0).when([temp0[N] > 0.5], -1.0)",
                                   {{"input0", x}, {"input1", y}});
  std::vector<core::Tensor> in{x, y};
  Interval b = bounds(k, in)[0].elements[0];
  EXPECT_TRUE(b.contains(core::Scalar::of_float(DType::Float32, 1)));
  EXPECT_TRUE(b.contains(core::Scalar::of_float(DType::Float32, -1)));
  // The bound is the hull of the branches' values, not their union.
  EXPECT_EQ(b.lo.f, -1);
  EXPECT_EQ(b.hi.f, 1);
}

TEST(Bounds, ProductsOfAnyOrderAreInside) {
  std::vector<double> v{1.1, 0.3, 2.7, -1.9, 0.77};
  core::Tensor x(DType::Float32, {1, 5});
  for (int i = 0; i < 5; ++i)
    x.set(i, core::Scalar::of_float(DType::Float32, v[i]));
  core::Kernel k = test::elaborate("output0[N] *=! input0[N, K]", {{"input0", x}});
  std::vector<core::Tensor> in{x};
  Interval b = bounds(k, in)[0].elements[0];
  std::vector<float> f;
  for (int i = 0; i < 5; ++i)
    f.push_back(static_cast<float>(x.get(i).f));
  std::sort(f.begin(), f.end());
  do {
    float p = 1;
    for (float t : f)
      p *= t;
    EXPECT_TRUE(b.contains(core::Scalar::of_float(DType::Float32, p)));
  } while (std::next_permutation(f.begin(), f.end()));
  EXPECT_TRUE(b.contains(run_exact(k, in)[0].get(0)));
  // A factor of 2^-100 four times may underflow float32 in some order.
  core::Tensor tiny = test::tensor(DType::Float32, {1, 4}, {0x1p-100, 0x1p-100, 0x1p100, 0x1p100});
  core::Kernel kt = test::elaborate("output0[N] *=! input0[N, K]", {{"input0", tiny}});
  std::vector<core::Tensor> tin{tiny};
  EXPECT_TRUE(bounds(kt, tin)[0].elements[0].any);
}

TEST(Verdict, ReportsTheWorstElementOutsideTheBound) {
  core::Tensor x = test::tensor(DType::Float32, {2, 2}, {1, 2, 3, 4});
  core::Tensor y = test::tensor(DType::Float32, {2}, {1, 1});
  core::Kernel k = test::elaborate(kDot, {{"input0", x}, {"input1", y}});
  std::vector<core::Tensor> in{x, y};
  core::Tensor seq = interp::run(k, in)[0], exact = run_exact(k, in)[0];
  BoundTensor b = bounds(k, in)[0];
  core::Tensor candidate = test::tensor(DType::Float32, {2}, {3, 7.5});
  OutputVerdict v = judge("output0", candidate, seq, exact, b, {});
  EXPECT_EQ(v.status, Status::Mismatch);
  EXPECT_EQ(v.kind, "value");
  EXPECT_EQ(v.mismatches, 1);
  ASSERT_TRUE(v.worst);
  EXPECT_EQ(v.worst->index, std::vector<int64_t>{1});
  EXPECT_EQ(judge("output0", seq, seq, exact, b, {}).status, Status::Exact);
  core::Tensor nan = test::tensor(DType::Float32, {2}, {3, NAN});
  EXPECT_EQ(judge("output0", nan, seq, exact, b, {}).kind, "nan");
  core::Tensor wide = test::tensor(DType::Float64, {2}, {3, 7});
  EXPECT_EQ(judge("output0", wide, seq, exact, b, {}).kind, "dtype");
  // numpy's allclose rule against the exact result.
  CheckOptions loose{Rule::Tolerance, 0, 0.1, 0};
  EXPECT_EQ(judge("output0", candidate, seq, exact, b, loose).status, Status::WithinBound);
}

// Where the bound of a finite exact value is not finite (it admits an
// infinity, NaN or anything), only the exact and the sequential values pass
// there; another value inside it gets no verdict (Inconclusive, never a
// pass), one outside what bound there is stays a mismatch. Elements whose
// exact value is itself infinite are judged by their bound as before.
TEST(Verdict, AnUnboundedElementPassesOnlyAtTheExactOrSequentialValue) {
  auto f32 = [](double v) { return core::Scalar::of_float(DType::Float32, v); };
  core::Tensor exact = test::tensor(DType::Float32, {3}, {1, 10, INFINITY});
  core::Tensor seq = test::tensor(DType::Float32, {3}, {1, 11, INFINITY});
  BoundTensor b{DType::Float32, {3}, {}};
  b.elements = {Interval::point(f32(1)), Interval{f32(5), f32(INFINITY)},
                Interval{f32(7), f32(INFINITY)}};
  auto verdict = [&](double second, double third = INFINITY) {
    return judge("o", test::tensor(DType::Float32, {3}, {1, second, third}), seq, exact, b, {});
  };
  EXPECT_EQ(verdict(10).status, Status::Exact); // the exact result
  EXPECT_EQ(verdict(11).status, Status::Exact); // the sequential one
  OutputVerdict v = verdict(12);                // inside [5, inf]: undecided
  EXPECT_EQ(v.status, Status::Inconclusive);
  EXPECT_EQ(v.inconclusive, 1);
  EXPECT_EQ(v.unbounded, 2);
  ASSERT_TRUE(v.worst);
  EXPECT_EQ(v.worst->index, std::vector<int64_t>{1});
  EXPECT_EQ(verdict(INFINITY).status, Status::Inconclusive);
  EXPECT_EQ(verdict(3).status, Status::Mismatch);   // below what bound there is
  EXPECT_EQ(verdict(NAN).status, Status::Mismatch); // NaN is not in [5, inf]
  // The third element's exact value is infinite: its bound decides.
  EXPECT_EQ(verdict(10, 8).status, Status::WithinBound);
  // With anything legal, every other value is undecided.
  b.elements[1] = Interval::everything(DType::Float32);
  EXPECT_EQ(verdict(NAN).status, Status::Inconclusive);
  EXPECT_EQ(verdict(-7).status, Status::Inconclusive);
  // The ulp and tolerance rules do not use the bound.
  EXPECT_EQ(judge("o", test::tensor(DType::Float32, {3}, {1, 12, INFINITY}), seq, exact, b,
                  {Rule::Ulp, 1 << 21, 0, 0})
                .status,
            Status::WithinBound);
}

TEST(Verdict, DependenciesAreTheValuesAnElementReads) {
  core::Tensor x = test::tensor(DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6});
  core::Tensor y = test::tensor(DType::Float32, {3}, {7, 8, 9});
  core::Kernel k = test::elaborate(kDot, {{"input0", x}, {"input1", y}});
  std::vector<core::Tensor> in{x, y};
  auto [deps, count] = dependencies(k, in, 0, 1, 4);
  EXPECT_EQ(count, 6); // input0[1, 0..2] and input1[0..2]
  ASSERT_EQ(deps.size(), 4u);
  EXPECT_EQ(deps[0].tensor, "input0");
  EXPECT_EQ(deps[0].index, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(deps[0].value.f, 4);
  EXPECT_EQ(deps[1].tensor, "input1");
  EXPECT_EQ(deps[1].value.f, 7);
}

TEST(Verdict, UlpDistanceCountsValuesOfTheDtype) {
  EXPECT_EQ(ulp_distance(DType::Float32, 1.0, std::nextafter(1.0f, 2.0f)), 1);
  EXPECT_EQ(ulp_distance(DType::Float32, -0.0, 0.0), 0);
  EXPECT_EQ(ulp_distance(DType::Float16, 1.0, 1.0 + std::ldexp(1.0, -9)), 2);
  EXPECT_EQ(ulp_distance(DType::Float32, -std::ldexp(1.0, -149), std::ldexp(1.0, -149)), 2);
}

} // namespace
} // namespace teval::oracle
