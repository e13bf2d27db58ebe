// The scalar arithmetic of the ground truth, operator by operator, against
// hand-computed values.
#include "core/format.h"
#include "core/scalar_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace teval {
namespace {

using core::DType;
using core::Op;
using core::Scalar;

Scalar i(DType t, int64_t v) {
  return Scalar::of_int(t, v);
}
Scalar f(DType t, double v) {
  return Scalar::of_float(t, v);
}

Scalar bin(Op op, Scalar a, Scalar b, core::Overflow o = core::Overflow::Wrap) {
  Scalar args[2] = {a, b};
  DType result = core::rule(op) == core::OpRule::Compare ? DType::Int8 : a.dtype;
  return core::apply(op, args, result, o);
}

std::string fault_of(Op op, Scalar a, Scalar b, core::Overflow o = core::Overflow::Wrap) {
  try {
    bin(op, a, b, o);
  } catch (const core::Fault& e) {
    return e.message;
  }
  return "no fault";
}

TEST(Arithmetic, IntegerDivisionTruncates) {
  EXPECT_EQ(bin(Op::Div, i(DType::Int32, -7), i(DType::Int32, 2)).i, -3);
  EXPECT_EQ(bin(Op::Div, i(DType::Int32, 7), i(DType::Int32, -2)).i, -3);
  EXPECT_EQ(fault_of(Op::Div, i(DType::Int32, 1), i(DType::Int32, 0)),
            "integer division by zero: 1 / 0");
}

TEST(Arithmetic, MinimumDividedByMinusOneWraps) {
  EXPECT_EQ(bin(Op::Div, i(DType::Int32, INT32_MIN), i(DType::Int32, -1)).i, INT32_MIN);
  EXPECT_EQ(bin(Op::Div, i(DType::Int64, INT64_MIN), i(DType::Int64, -1)).i, INT64_MIN);
  EXPECT_EQ(bin(Op::Mod, i(DType::Int64, INT64_MIN), i(DType::Int64, -1)).i, 0);
  EXPECT_EQ(
      fault_of(Op::Div, i(DType::Int32, INT32_MIN), i(DType::Int32, -1), core::Overflow::Trap),
      "integer overflow in index arithmetic: -2147483648 / -1 does not fit int32");
}

TEST(Arithmetic, ExactDivisionHasNoValueWhenFractional) {
  EXPECT_EQ(bin(Op::ExactDiv, i(DType::Int64, -6), i(DType::Int64, 2)).i, -3);
  EXPECT_THROW(bin(Op::ExactDiv, i(DType::Int64, 7), i(DType::Int64, 2)), core::Inexact);
  EXPECT_EQ(fault_of(Op::ExactDiv, i(DType::Int64, 7), i(DType::Int64, 0)),
            "division by zero in an index expression: 7 / 0");
}

TEST(Arithmetic, ModuloTakesTheDivisorsSign) {
  EXPECT_EQ(bin(Op::Mod, i(DType::Int32, -7), i(DType::Int32, 2)).i, 1);
  EXPECT_EQ(bin(Op::Mod, i(DType::Int32, 7), i(DType::Int32, -2)).i, -1);
  EXPECT_EQ(bin(Op::Mod, i(DType::Int32, -8), i(DType::Int32, 2)).i, 0);
  EXPECT_EQ(fault_of(Op::Mod, i(DType::Int8, 3), i(DType::Int8, 0)),
            "integer modulo by zero: 3 % 0");
  EXPECT_EQ(bin(Op::Mod, f(DType::Float32, -7.5), f(DType::Float32, 2)).f, 0.5);
}

TEST(Arithmetic, WrappingAndTrapping) {
  EXPECT_EQ(bin(Op::Add, i(DType::Int8, 127), i(DType::Int8, 1)).i, -128);
  EXPECT_EQ(bin(Op::Mul, i(DType::Int16, 300), i(DType::Int16, 300)).i, 24464);
  EXPECT_EQ(bin(Op::Sub, i(DType::UInt8, 0), i(DType::UInt8, 1)).i, 255);
  EXPECT_EQ(bin(Op::Mul, i(DType::Int64, INT64_MAX), i(DType::Int64, 2)).i, -2);
  EXPECT_EQ(fault_of(Op::Mul, i(DType::Int32, 65536), i(DType::Int32, 65536), core::Overflow::Trap),
            "integer overflow in index arithmetic: 65536 * 65536 does not fit int32");
  EXPECT_EQ(fault_of(Op::Add, i(DType::Int32, 5), i(DType::Int32, 6), core::Overflow::Trap),
            "no fault");
}

// uint64 values from 2^63 up are held as their bits (negative int64s) and
// computed with as the unsigned values they are.
TEST(Arithmetic, Uint64IsUnsignedPastTwoToThe63) {
  const int64_t top = -1;         // 2^64 - 1
  const int64_t half = INT64_MIN; // 2^63
  auto u = [](int64_t bits) { return i(DType::UInt64, bits); };
  EXPECT_EQ(bin(Op::Div, u(top), u(2)).i, INT64_MAX); // (2^64 - 1) / 2 = 2^63 - 1
  EXPECT_EQ(bin(Op::Mod, u(top), u(10)).i, 5);        // 18446744073709551615 % 10
  EXPECT_EQ(bin(Op::Max, u(half), u(1)).i, half);
  EXPECT_EQ(bin(Op::Min, u(top), u(7)).i, 7);
  EXPECT_EQ(bin(Op::Shr, u(top), u(60)).i, 15); // logical: 2^64 - 1 >> 60
  EXPECT_EQ(bin(Op::Add, u(top), u(2)).i, 1);   // wraps
  EXPECT_EQ(bin(Op::Mul, u(half), u(2)).i, 0);
  EXPECT_EQ(bin(Op::Lt, u(1), u(half)).i, 1);
  EXPECT_EQ(bin(Op::Gt, u(top), u(half)).i, 1);
  EXPECT_EQ(core::cast(u(top), DType::Float64).f, 0x1p64);
  EXPECT_EQ(core::cast(u(half), DType::Float32).f, 0x1p63);
  // 2^64 - 2^11 + 1: below the float64 tie with 2^64 (ulp 2^11), rounded once.
  EXPECT_EQ(core::cast(u(top - 2047), DType::Float64).f, 0x1p64 - 0x1p11);
  EXPECT_EQ(core::cast(core::Scalar::of_float(DType::Float64, 0x1p63), DType::UInt64).i, half);
  EXPECT_EQ(fault_of(Op::Div, u(top), u(0)), "integer division by zero: 18446744073709551615 / 0");
  EXPECT_EQ(fault_of(Op::Add, u(top), u(1), core::Overflow::Trap),
            "integer overflow in index arithmetic: 18446744073709551615 + 1 does not fit uint64");
  EXPECT_EQ(fault_of(Op::Mul, u(top), u(top), core::Overflow::Trap),
            "integer overflow in index arithmetic: 18446744073709551615 * 18446744073709551615 "
            "does not fit uint64");
  EXPECT_EQ(core::format_scalar(u(top)), "18446744073709551615");
  EXPECT_EQ(core::highest(DType::UInt64).i, top);
  EXPECT_EQ(core::promote(DType::UInt64, DType::Int8), DType::Float64); // numpy's
  EXPECT_EQ(core::promote(DType::UInt64, DType::UInt8), DType::UInt64);
}

TEST(Arithmetic, Shifts) {
  EXPECT_EQ(bin(Op::Shl, i(DType::Int8, 1), i(DType::Int8, 7)).i, -128);
  EXPECT_EQ(bin(Op::Shr, i(DType::Int32, -9), i(DType::Int32, 1)).i, -5);
  EXPECT_EQ(fault_of(Op::Shl, i(DType::Int32, 1), i(DType::Int32, 32)),
            "shift amount 32 is out of range for int32 (0 to 31)");
  EXPECT_EQ(fault_of(Op::Shr, i(DType::Int32, 1), i(DType::Int32, -1)),
            "shift amount -1 is out of range for int32 (0 to 31)");
}

TEST(Arithmetic, FloatOperationsRoundOnceToTheirDtype) {
  // float32: 1 + 2^-24 is a tie between 1 and 1 + 2^-23; even wins.
  EXPECT_EQ(bin(Op::Add, f(DType::Float32, 1), f(DType::Float32, 0x1p-24)).f, 1.0);
  EXPECT_EQ(bin(Op::Add, f(DType::Float32, 1), f(DType::Float32, 0x1.8p-24)).f, 1 + 0x1p-23);
  // float16: 1/3 rounds to 0x1.554p-2.
  EXPECT_EQ(bin(Op::Div, f(DType::Float16, 1), f(DType::Float16, 3)).f, 0x1.554p-2);
  // Overflow to infinity.
  EXPECT_TRUE(std::isinf(bin(Op::Mul, f(DType::Float16, 300), f(DType::Float16, 300)).f));
}

TEST(Arithmetic, MaxAndMinPropagateNaNAndOrderZeros) {
  double nan = std::nan("");
  EXPECT_TRUE(std::isnan(bin(Op::Max, f(DType::Float32, nan), f(DType::Float32, 1)).f));
  EXPECT_TRUE(std::isnan(bin(Op::Min, f(DType::Float32, 1), f(DType::Float32, nan)).f));
  EXPECT_FALSE(std::signbit(bin(Op::Max, f(DType::Float32, -0.0), f(DType::Float32, 0.0)).f));
  EXPECT_TRUE(std::signbit(bin(Op::Min, f(DType::Float32, 0.0), f(DType::Float32, -0.0)).f));
}

TEST(Arithmetic, ComparisonsFollowIeee) {
  double nan = std::nan("");
  EXPECT_EQ(bin(Op::Eq, f(DType::Float32, nan), f(DType::Float32, nan)).i, 0);
  EXPECT_EQ(bin(Op::Ne, f(DType::Float32, nan), f(DType::Float32, nan)).i, 1);
  EXPECT_EQ(bin(Op::Lt, f(DType::Float32, -0.0), f(DType::Float32, 0.0)).i, 0);
}

TEST(Arithmetic, Casts) {
  EXPECT_EQ(core::cast(f(DType::Float32, -2.9), DType::Int32).i, -2);
  EXPECT_EQ(core::cast(i(DType::Int32, 300), DType::UInt8).i, 44);
  EXPECT_EQ(core::cast(i(DType::Int32, 5), DType::Bool).i, 1);
  EXPECT_EQ(core::cast(f(DType::Float32, 0.5), DType::Bool).i, 1);
  EXPECT_EQ(core::cast(f(DType::Float64, 0.1), DType::Float32).f, static_cast<double>(0.1f));
  EXPECT_EQ(core::cast(i(DType::Int64, (int64_t{1} << 60) + 1), DType::Float32).f, 0x1p60);
  try {
    core::cast(f(DType::Float32, 3e9), DType::Int32);
    ADD_FAILURE() << "no fault";
  } catch (const core::Fault& e) {
    EXPECT_EQ(e.message, "cannot convert 3000000000.0 to int32: it is NaN or out of range");
  }
  EXPECT_THROW(core::cast(f(DType::Float32, std::nan("")), DType::Int8), core::Fault);
}

TEST(Arithmetic, Aggregation) {
  using core::Aggregation;
  EXPECT_EQ(core::combine(Aggregation::Sum, i(DType::Int8, 120), i(DType::Int8, 10)).i, -126);
  EXPECT_EQ(core::combine(Aggregation::All, i(DType::Int8, 1), i(DType::Int8, 7)).i, 1);
  EXPECT_EQ(core::combine(Aggregation::Any, f(DType::Float32, 0), f(DType::Float32, 0)).f, 0);
  EXPECT_EQ(core::combine(Aggregation::Product, f(DType::Float32, 3), f(DType::Float32, 0.5)).f,
            1.5);
}

} // namespace
} // namespace teval
