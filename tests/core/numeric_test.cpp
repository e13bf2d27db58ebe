// Exact numeric primitives: wrapping, rounding to each float format,
// float16/bfloat16 encodings, checked conversions.
#include "core/format.h"
#include "core/numeric.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace teval {
namespace {

using core::DType;

TEST(Numeric, WrapInt) {
  EXPECT_EQ(core::wrap_int(DType::Int8, 128), -128);
  EXPECT_EQ(core::wrap_int(DType::Int8, -129), 127);
  EXPECT_EQ(core::wrap_int(DType::UInt8, -1), 255);
  EXPECT_EQ(core::wrap_int(DType::Int16, 65535), -1);
  EXPECT_EQ(core::wrap_int(DType::Int32, int64_t{1} << 32), 0);
  EXPECT_EQ(core::wrap_int(DType::Bool, 4), 1);
}

TEST(Numeric, Float16Rounding) {
  EXPECT_EQ(core::round_float(DType::Float16, 65504), 65504);
  EXPECT_EQ(core::round_float(DType::Float16, 65519.99), 65504);
  EXPECT_TRUE(std::isinf(core::round_float(DType::Float16, 65520))); // the tie rounds up to 2^16
  EXPECT_EQ(core::round_float(DType::Float16, 2049), 2048);          // tie to even
  EXPECT_EQ(core::round_float(DType::Float16, 2051), 2052);          // tie to even
  EXPECT_EQ(core::round_float(DType::Float16, 0x1p-24), 0x1p-24);    // smallest subnormal
  EXPECT_EQ(core::round_float(DType::Float16, 0x1p-25), 0);          // tie to even: zero
  EXPECT_EQ(core::round_float(DType::Float16, 0x1.8p-25), 0x1p-24);
  EXPECT_TRUE(std::signbit(core::round_float(DType::Float16, -0x1p-26)));
  EXPECT_EQ(core::round_float(DType::Float16, 0.1), 0x1.998p-4);
}

TEST(Numeric, BFloat16Rounding) {
  EXPECT_EQ(core::round_float(DType::BFloat16, 257), 256);
  EXPECT_EQ(core::round_float(DType::BFloat16, 259), 260);
  EXPECT_EQ(core::round_float(DType::BFloat16, 1.0 / 3), 0x1.56p-2);
  EXPECT_TRUE(std::isinf(core::round_float(DType::BFloat16, 0x1.ffp127)));
  EXPECT_EQ(core::round_float(DType::BFloat16, 0x1.fep127), 0x1.fep127);
}

TEST(Numeric, Float16BitsRoundTrip) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    uint16_t bits = static_cast<uint16_t>(b);
    double v = core::float16_value(bits);
    if (std::isnan(v))
      continue;
    ASSERT_EQ(core::float16_bits(v), bits) << std::hex << b;
    ASSERT_EQ(core::round_float(DType::Float16, v), v) << std::hex << b;
  }
  EXPECT_EQ(core::float16_bits(1.0), 0x3c00);
  EXPECT_EQ(core::float16_bits(-2.0), 0xc000);
  EXPECT_EQ(core::float16_bits(std::numeric_limits<double>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isnan(core::float16_value(core::float16_bits(std::nan("")))));
}

TEST(Numeric, BFloat16Bits) {
  EXPECT_EQ(core::bfloat16_bits(1.0), 0x3f80);
  EXPECT_EQ(core::bfloat16_value(0xc040), -3.0);
  EXPECT_TRUE(std::isnan(core::bfloat16_value(core::bfloat16_bits(std::nan("")))));
}

TEST(Numeric, FloatToInt) {
  EXPECT_EQ(core::float_to_int(DType::Int32, -2.7), -2);
  EXPECT_EQ(core::float_to_int(DType::Int32, 2147483647.9), 2147483647);
  EXPECT_FALSE(core::float_to_int(DType::Int32, 2147483648.0));
  EXPECT_EQ(core::float_to_int(DType::Int8, -128.9), -128);
  EXPECT_FALSE(core::float_to_int(DType::Int8, -129));
  EXPECT_EQ(core::float_to_int(DType::Int64, -0x1p63), INT64_MIN);
  EXPECT_FALSE(core::float_to_int(DType::Int64, 0x1p63));
  EXPECT_FALSE(core::float_to_int(DType::UInt8, -1));
  EXPECT_FALSE(core::float_to_int(DType::Int32, std::nan("")));
}

TEST(Numeric, IntToFloatRoundsOnce) {
  // 2^53 + 1 would round to 2^53 in double, then tie again when narrowed;
  // the direct rounding is exact.
  int64_t v = (int64_t{1} << 60) + (int64_t{1} << 36) + 1; // just above a float32 tie
  EXPECT_EQ(core::int_to_float(DType::Float32, v), 0x1p60 + 0x1p37);
  EXPECT_EQ(core::int_to_float(DType::Float64, INT64_MAX), 0x1p63);
  EXPECT_EQ(core::int_to_float(DType::Float16, 65520), std::numeric_limits<double>::infinity());
  EXPECT_EQ(core::int_to_float(DType::BFloat16, -(int64_t{1} << 62) - 1), -0x1p62);
}

TEST(Numeric, LowestAndHighest) {
  EXPECT_EQ(core::lowest(DType::Float32).f,
            -static_cast<double>(std::numeric_limits<float>::max()));
  EXPECT_EQ(core::highest(DType::Float16).f, 65504);
  EXPECT_EQ(core::lowest(DType::Int8).i, -128);
  EXPECT_EQ(core::highest(DType::UInt8).i, 255);
}

TEST(Numeric, FormatScalarIsShortestInItsOwnPrecision) {
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float16, 0.1)), "0.1");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float32, 0.1)), "0.1");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float64, 0.1)), "0.1");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float32, 2)), "2.0");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float32, 1e-5)), "1e-05");
  // Laid out as Python's repr: positional for exponents in [-4, 16).
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float32, -10)), "-10.0");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float64, 3e9)), "3000000000.0");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float64, 1e16)), "1e+16");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float64, 0.0001)), "0.0001");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float64, 123.456)), "123.456");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float32, -0.0)), "-0.0");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_int(DType::Int8, -3)), "-3");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_int(DType::Bool, 1)), "True");
  EXPECT_EQ(core::format_scalar(core::Scalar::of_float(DType::Float32, -INFINITY)), "-inf");
}

} // namespace
} // namespace teval
