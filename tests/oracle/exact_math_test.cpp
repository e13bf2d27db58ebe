// Correctly rounded math functions: hand values, directed rounding, and
// agreement with the C library's double functions wherever a double result
// (with its few ulps of error) decides the rounding alone.
#include "oracle/exact_math.h"

#include "core/numeric.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <random>

namespace teval::oracle {
namespace {

using core::DType;
using core::Op;

TEST(ExactMath, HandValues) {
  EXPECT_EQ(correctly_rounded(Op::Exp, DType::Float32, 0), 1.0);
  EXPECT_EQ(correctly_rounded(Op::Log, DType::Float32, 1), 0.0);
  EXPECT_EQ(correctly_rounded(Op::Sigmoid, DType::Float32, 0), 0.5);
  EXPECT_EQ(correctly_rounded(Op::NormCdf, DType::Float64, 0), 0.5);
  EXPECT_EQ(correctly_rounded(Op::Sqrt, DType::Float32, 2), 1.41421353816986083984375);
  EXPECT_EQ(correctly_rounded(Op::Rsqrt, DType::Float32, 4), 0.5);
  EXPECT_EQ(correctly_rounded(Op::Rsqrt, DType::Float32, -0.0), -INFINITY); // IEEE rSqrt
  EXPECT_EQ(correctly_rounded(Op::Frac, DType::Float32, -0.25), 0.75);
  // -1e-30 - floor(-1e-30) = 1 - 1e-30, which float32 rounds to 1.
  EXPECT_EQ(correctly_rounded(Op::Frac, DType::Float32, core::round_float(DType::Float32, -1e-30)),
            1.0);
  EXPECT_EQ(correctly_rounded(Op::RFloor, DType::Float32, -0.5), -1.0);
  EXPECT_EQ(correctly_rounded(Op::RCeil, DType::Float16, 2.5), 3.0);
  EXPECT_EQ(correctly_rounded(Op::Pow, DType::Float32, 2, 10), 1024.0);
  EXPECT_EQ(correctly_rounded(Op::Pow, DType::Float32, 1, NAN), 1.0); // C99 Annex F
  EXPECT_TRUE(std::isnan(correctly_rounded(Op::Pow, DType::Float32, -8, 1.0 / 3)));
  EXPECT_TRUE(std::isnan(correctly_rounded(Op::Log, DType::Float32, -1)));
  EXPECT_EQ(correctly_rounded(Op::Log, DType::Float32, 0), -INFINITY);
  EXPECT_EQ(correctly_rounded(Op::Sigmoid, DType::Float32, -INFINITY), 0.0);
  EXPECT_EQ(correctly_rounded(Op::Sigmoid, DType::Float32, INFINITY), 1.0);
}

TEST(ExactMath, OverflowAndSubnormalsOfEachFormat) {
  EXPECT_EQ(correctly_rounded(Op::Exp, DType::Float16, 12), INFINITY); // e^12 > 65504
  EXPECT_EQ(correctly_rounded(Op::Exp, DType::Float16, 11), 59872.0);
  EXPECT_EQ(correctly_rounded(Op::Exp, DType::Float16, -18), 0.0); // 1.5e-8: below half of 2^-24
  EXPECT_EQ(correctly_rounded(Op::Exp, DType::Float16, -17), std::ldexp(1.0, -24)); // 4.1e-8
  // e^-100 = 3.72e-44 is a float32 subnormal: 26.55 of 2^-149, so 27.
  EXPECT_EQ(correctly_rounded(Op::Exp, DType::Float32, -100), 27 * std::ldexp(1.0, -149));
  EXPECT_EQ(correctly_rounded(Op::Exp, DType::Float32, -110), 0.0);
  EXPECT_EQ(correctly_rounded(Op::Exp, DType::Float32, -110, 0, Rounding::Up),
            std::ldexp(1.0, -149));
  EXPECT_EQ(correctly_rounded(Op::Exp, DType::Float32, 100, 0, Rounding::Down),
            3.4028234663852886e38);
}

TEST(ExactMath, DirectedRoundingBracketsNearest) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-4, 4);
  for (Op op : {Op::Exp, Op::Tanh, Op::Erf, Op::Sigmoid, Op::NormCdf, Op::Atan, Op::Sin}) {
    for (int i = 0; i < 200; ++i) {
      double x = core::round_float(DType::Float32, u(rng));
      double down = correctly_rounded(op, DType::Float32, x, 0, Rounding::Down);
      double near = correctly_rounded(op, DType::Float32, x);
      double up = correctly_rounded(op, DType::Float32, x, 0, Rounding::Up);
      ASSERT_LE(down, near);
      ASSERT_LE(near, up);
      ASSERT_LE(up, std::nextafter(static_cast<float>(down), INFINITY)) << core::spelling(op);
      ASSERT_TRUE(near == down || near == up);
    }
  }
}

// f's double value from the C library, trusted to within \p ulps double
// ulps: the dtype value it rounds to when that interval rounds alike.
std::optional<double> decided(DType t, double value, int ulps) {
  double lo = value, hi = value;
  for (int k = 0; k < ulps; ++k) {
    lo = std::nextafter(lo, -INFINITY);
    hi = std::nextafter(hi, INFINITY);
  }
  double a = core::round_float(t, lo), b = core::round_float(t, hi);
  if (a != b)
    return std::nullopt;
  return a;
}

TEST(ExactMath, AgreesWithTheCLibraryWhereDoubleDecides) {
  struct Case {
    Op op;
    std::function<double(double)> f;
    double lo, hi;
  };
  std::vector<Case> cases = {
      {Op::Exp, [](double x) { return std::exp(x); }, -20, 20},
      {Op::Log, [](double x) { return std::log(x); }, 1e-3, 1e3},
      {Op::Sqrt, [](double x) { return std::sqrt(x); }, 0, 1e4},
      {Op::Sin, [](double x) { return std::sin(x); }, -10, 10},
      {Op::Cos, [](double x) { return std::cos(x); }, -10, 10},
      {Op::Tan, [](double x) { return std::tan(x); }, -1.5, 1.5},
      {Op::Asin, [](double x) { return std::asin(x); }, -1, 1},
      {Op::Acos, [](double x) { return std::acos(x); }, -1, 1},
      {Op::Atan, [](double x) { return std::atan(x); }, -10, 10},
      {Op::Sinh, [](double x) { return std::sinh(x); }, -10, 10},
      {Op::Cosh, [](double x) { return std::cosh(x); }, -10, 10},
      {Op::Tanh, [](double x) { return std::tanh(x); }, -10, 10},
      {Op::Erf, [](double x) { return std::erf(x); }, -4, 4},
      {Op::Sigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }, -30, 30},
      {Op::NormCdf, [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }, -8, 8},
  };
  std::mt19937 rng(11);
  for (const Case& c : cases) {
    std::uniform_real_distribution<double> u(c.lo, c.hi);
    for (DType t : {DType::Float16, DType::BFloat16, DType::Float32}) {
      int checked = 0;
      for (int i = 0; i < 400; ++i) {
        double x = core::round_float(t, u(rng));
        std::optional<double> want = decided(t, c.f(x), 8);
        if (!want)
          continue;
        ++checked;
        ASSERT_EQ(correctly_rounded(c.op, t, x), *want)
            << core::spelling(c.op) << "(" << x << ") in " << core::name(t);
      }
      EXPECT_GT(checked, 300) << core::spelling(c.op);
    }
  }
}

} // namespace
} // namespace teval::oracle
