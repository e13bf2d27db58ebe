// The float rules of docs/SEMANTICS.md (float division and modulo, float16
// and bfloat16 rounding, max and min with NaN, the math functions), one
// test per rule, each checked against values worked out by hand, on every
// engine.
#include "tests/support/programs.h"

#include <gtest/gtest.h>

#include <cmath>

namespace teval {
namespace {

using core::DType;
using test::error_of;
using test::out;
using test::tensor;
using test::values;
using V = std::vector<double>;

TEST(Semantics, FloatFloorDivisionIsTrueDivision) {
  auto a = tensor(DType::Float32, {1}, {7});
  EXPECT_EQ(values(out("output0[N] = input0[N] // 2.0", {{"input0", a}})), (V{3.5}));
}

TEST(Semantics, FloatModuloFloors) {
  auto a = tensor(DType::Float32, {2}, {-7.5, 7.5});
  EXPECT_EQ(values(out("output0[N] = input0[N] % 2.0", {{"input0", a}})), (V{0.5, 1.5}));
}

TEST(Semantics, FloatLiteralPromotedToFloat64KeepsItsDigits) {
  auto d = tensor(DType::Float64, {1}, {0});
  auto o = out("output0[N] = input0[N] + 0.1", {{"input0", d}});
  EXPECT_EQ(values(o)[0], 0.1); // not float(0.1) = 0.100000001490116
}

TEST(Semantics, Float16RoundsAfterEveryOperation) {
  // 2048 + 1 is 2049, which float16 cannot hold: ties to even gives 2048.
  auto h = tensor(DType::Float16, {2}, {2048, 1});
  auto o = out("output0[N] = input0[0] + input0[1] where N in 1", {{"input0", h}});
  EXPECT_EQ(values(o), (V{2048}));
  // A float16 sum stalls at 2048: each addition rounds.
  auto ones = out("output0[N] +=! const(1.0, `float16`) where N in 1, K in 3000");
  EXPECT_EQ(values(ones), (V{2048}));
}

TEST(Semantics, BFloat16RoundsAfterEveryOperation) {
  auto b = tensor(DType::BFloat16, {2}, {256, 1});
  auto o = out("output0[N] = input0[0] + input0[1] where N in 1", {{"input0", b}});
  EXPECT_EQ(values(o), (V{256})); // 257 needs 9 significant bits
}

TEST(Semantics, MaxPropagatesNaN) {
  double nan = std::nan("");
  auto x = tensor(DType::Float32, {1, 3}, {1, nan, 2});
  EXPECT_TRUE(std::isnan(values(out("output0[N] >=! input0[N, K]", {{"input0", x}}))[0]));
  EXPECT_TRUE(std::isnan(values(
      out("output0[N] = input0[0, N].call(`max`, [1.0]) where N in 3", {{"input0", x}}))[1]));
}

// In float16 and bfloat16 too, on every engine: max and min are NaN when
// either operand is, and order -0 below +0 (the JIT's vector float16
// minimum once gave -0 for min(NaN, -0)).
TEST(Semantics, HalfFloatMaxAndMinPropagateNaN) {
  double nan = std::nan("");
  for (DType t : {DType::Float16, DType::BFloat16}) {
    V a, b;
    for (int i = 0; i < 8; ++i) {
      a.insert(a.end(), {nan, -0.0, nan, 1, -0.0});
      b.insert(b.end(), {-0.0, nan, nan, 2, 0.0});
    }
    core::Tensor x(t, {40}), y(t, {40});
    for (int64_t i = 0; i < 40; ++i) {
      x.set(i, core::Scalar::of_float(t, a[static_cast<size_t>(i)]));
      y.set(i, core::Scalar::of_float(t, b[static_cast<size_t>(i)]));
    }
    std::map<std::string, core::Tensor> in = {{"input0", x}, {"input1", y}};
    V lo = values(out("output0[N] = input0[N].call(`min`, [input1[N]])", in));
    V hi = values(out("output0[N] = input0[N].call(`max`, [input1[N]])", in));
    for (int i = 0; i < 40; i += 5) {
      for (int k = 0; k < 3; ++k)
        EXPECT_TRUE(std::isnan(lo[i + k]) && std::isnan(hi[i + k])) << i + k;
      EXPECT_EQ(lo[i + 3], 1);
      EXPECT_EQ(hi[i + 3], 2);
      EXPECT_TRUE(std::signbit(lo[i + 4]));
      EXPECT_FALSE(std::signbit(hi[i + 4]));
    }
  }
}

TEST(Semantics, FloorAndCeilGiveInt32) {
  auto x = tensor(DType::Float64, {3}, {-1.5, 2.5, 3});
  auto f = out("output0[N] = input0[N].call(`floor`)", {{"input0", x}});
  EXPECT_EQ(f.dtype(), DType::Int32);
  EXPECT_EQ(values(f), (V{-2, 2, 3}));
  EXPECT_EQ(values(out("output0[N] = input0[N].call(`ceil`)", {{"input0", x}})), (V{-1, 3, 3}));
}

TEST(Semantics, RemainderIsTheFractionalPart) {
  auto x = tensor(DType::Float32, {2}, {-1.25, 2.75});
  EXPECT_EQ(values(out("output0[N] = input0[N].call(`remainder`)", {{"input0", x}})),
            (V{0.75, 0.75}));
}

TEST(Semantics, SigmoidIsTheRealSigmoid) {
  auto x = tensor(DType::Float32, {2}, {0, 2});
  auto o = values(out("output0[N] = input0[N].call(`sigmoid`)", {{"input0", x}}));
  EXPECT_EQ(o[0], 0.5);
  EXPECT_EQ(o[1], static_cast<double>(1.0f / (1.0f + std::exp(-2.0f))));
  EXPECT_GT(o[1], 0.5); // Antares's rewrite would give sigmoid(-2) < 0.5
}

TEST(Semantics, MathFunctionsRunInTheArgumentPrecision) {
  auto f = tensor(DType::Float32, {1}, {0.5});
  auto d = tensor(DType::Float64, {1}, {0.5});
  // e^0.5 rounded to float32 and to float64 (mpmath): each dtype's own
  // precision, not the other's.
  EXPECT_EQ(values(out("output0[N] = input0[N].call(`exp`)", {{"input0", f}}))[0], 0x1.a61298p+0);
  EXPECT_EQ(values(out("output0[N] = input0[N].call(`exp`)", {{"input0", d}}))[0],
            0x1.a61298e1e069cp+0);
  EXPECT_EQ(values(out("output0[N] = input0[N].call(`pow`, [3.0])", {{"input0", f}}))[0], 0.125);
  EXPECT_EQ(values(out("output0[N] = input0[N].call(`rsqrt`)", {{"input0", f}}))[0],
            static_cast<double>(1.0f / std::sqrt(0.5f)));
}

TEST(Semantics, EveryMathFunctionHasItsValue) {
  struct Case {
    const char* call;
    double x;
    double want;
  };
  for (Case c : {Case{"log", 1, 0},
                 Case{"sqrt", 6.25, 2.5},
                 Case{"tanh", 0, 0},
                 Case{"sin", 0, 0},
                 Case{"cos", 0, 1},
                 Case{"tan", 0, 0},
                 Case{"erf", 0, 0},
                 Case{"normcdf", 0, 0.5},
                 Case{"asin", 1, static_cast<double>(std::asin(1.0f))},
                 Case{"acos", 1, 0},
                 Case{"atan", 0, 0},
                 Case{"sinh", 0, 0},
                 Case{"cosh", 0, 1},
                 Case{"rfloor", -1.5, -2},
                 Case{"rceil", -1.5, -1},
                 Case{"exp", 0, 1},
                 Case{"abs", -3, 3},
                 Case{"expm1", -0.0, -0.0},
                 Case{"log1p", -1, -INFINITY},
                 Case{"cbrt", -8, -2},
                 Case{"asinh", 0, 0},
                 Case{"acosh", 1, 0},
                 Case{"atanh", -1, -INFINITY},
                 Case{"erfc", 0, 1},
                 Case{"erfc", -INFINITY, 2}}) {
    SCOPED_TRACE(c.call);
    auto x = tensor(DType::Float32, {1}, {c.x});
    EXPECT_EQ(
        values(out(std::string("output0[N] = input0[N].call(`") + c.call + "`)", {{"input0", x}})),
        (V{c.want}));
  }
  for (const char* call : {"log1p", "acosh", "atanh"}) { // outside the domain: NaN
    auto x = tensor(DType::Float32, {1}, {-2});
    EXPECT_TRUE(std::isnan(values(
        out(std::string("output0[N] = input0[N].call(`") + call + "`)", {{"input0", x}}))[0]))
        << call;
  }
  // atan2(x, y) is the angle of the point (y = x, x = y), C's atan2(x, y):
  // pi for (0, -1), -pi for (-0, -1), pi/4 for (1, 1), each rounded to float32.
  auto y = tensor(DType::Float32, {3}, {0.0, -0.0, 1});
  auto by = tensor(DType::Float32, {3}, {-1, -1, 1});
  EXPECT_EQ(values(out("output0[N] = input0[N].call(`atan2`, [input1[N]])",
                       {{"input0", y}, {"input1", by}})),
            (V{static_cast<double>(static_cast<float>(M_PI)),
               static_cast<double>(static_cast<float>(-M_PI)),
               static_cast<double>(static_cast<float>(M_PI / 4))}));
  auto x = tensor(DType::Float32, {2}, {2, 3});
  EXPECT_EQ(values(out("output0[N] = input0[N].call(`min`, [2.5])", {{"input0", x}})), (V{2, 2.5}));
  EXPECT_EQ(values(out("output0[N] = input0[N].call(`max`, [2.5])", {{"input0", x}})), (V{2.5, 3}));
}

} // namespace
} // namespace teval
