// Exact sums and products rounded once, against exact rational arithmetic.
#include "oracle/dyadic.h"

#include "core/numeric.h"

#include <boost/multiprecision/cpp_int.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace teval::oracle {
namespace {

using boost::multiprecision::cpp_rational;
using core::DType;

// The exact value of a double as a rational (independent of Dyadic).
cpp_rational rational(double x) {
  int e = 0;
  double f = std::frexp(x, &e);
  cpp_rational r(static_cast<int64_t>(std::ldexp(f, 53)));
  e -= 53;
  cpp_rational scale = 1;
  for (int i = 0; i < std::abs(e); ++i)
    scale *= 2;
  return e >= 0 ? cpp_rational(r * scale) : cpp_rational(r / scale);
}

// The bits of a value of dtype t, as an integer ordered like the values
// for non-negative values.
uint64_t bits_of(DType t, double v) {
  switch (t) {
  case DType::Float16:
    return core::float16_bits(v);
  case DType::BFloat16:
    return core::bfloat16_bits(v);
  case DType::Float32: {
    float f = static_cast<float>(v);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  default: {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
  }
}

// The neighbour of v in dtype t toward +infinity (up) or -infinity.
double neighbour(DType t, double v, bool up) {
  switch (t) {
  case DType::Float16:
  case DType::BFloat16: {
    uint16_t b = static_cast<uint16_t>(bits_of(t, v));
    bool negative = b & 0x8000;
    if (v == 0)
      b = up ? 1 : 0x8001;
    else
      b = static_cast<uint16_t>(up != negative ? b + 1 : b - 1);
    return t == DType::Float16 ? core::float16_value(b) : core::bfloat16_value(b);
  }
  case DType::Float32:
    return std::nextafter(static_cast<float>(v), up ? INFINITY : -INFINITY);
  default:
    return std::nextafter(v, up ? INFINITY : -INFINITY);
  }
}

// The nearest value of dtype t to the rational q, ties to the even bit
// pattern, found by comparing q exactly with the neighbours of a guess.
double nearest(DType t, const cpp_rational& q) {
  double guess = core::round_float(t, static_cast<double>(q));
  std::vector<double> candidates{guess};
  for (bool up : {false, true})
    for (double v = guess, k = 0; k < 2; ++k)
      candidates.push_back(v = neighbour(t, v, up));
  double best = guess;
  cpp_rational best_err = abs(rational(best) - q);
  for (double c : candidates) {
    cpp_rational err = abs(rational(c) - q);
    if (err < best_err || (err == best_err && (bits_of(t, c) & 1) == 0)) {
      best = c;
      best_err = err;
    }
  }
  return best;
}

TEST(Dyadic, SumIsRoundedOnce) {
  // 1 + 2^-24 + 2^-24 in float32: sequentially 1, exactly 1 + 2^-23.
  Dyadic d;
  d.add(1.0);
  d.add(std::ldexp(1.0, -24));
  d.add(std::ldexp(1.0, -24));
  EXPECT_EQ(d.round_to(DType::Float32), 1.0 + std::ldexp(1.0, -23));
}

TEST(Dyadic, CancellationKeepsTheSmallTerm) {
  Dyadic d;
  for (double x : {1e300, 1.0, -1e300, 1e-300})
    d.add(x);
  EXPECT_EQ(d.round_to(DType::Float64), 1.0);
  Dyadic e;
  for (double x : {1e308, 1e308, -1e308}) // overflows sequentially, not exactly
    e.add(x);
  EXPECT_EQ(e.round_to(DType::Float64), 1e308);
}

TEST(Dyadic, TiesGoToEven) {
  Dyadic d; // 1 + 2^-24 is halfway between two float32 values
  d.add(1.0);
  d.add(std::ldexp(1.0, -24));
  EXPECT_EQ(d.round_to(DType::Float32), 1.0);
  Dyadic u; // 1 + 3·2^-24 is halfway, and the upper neighbour is even
  u.add(1.0);
  u.add(3 * std::ldexp(1.0, -24));
  EXPECT_EQ(u.round_to(DType::Float32), 1.0 + std::ldexp(1.0, -22));
}

TEST(Dyadic, SubnormalsAndOverflowOfEachFormat) {
  Dyadic tiny = Dyadic::of(std::ldexp(1.0, -25)); // half float16's smallest subnormal
  EXPECT_EQ(tiny.round_to(DType::Float16), 0.0);
  tiny.add(std::ldexp(1.0, -40));
  EXPECT_EQ(tiny.round_to(DType::Float16), std::ldexp(1.0, -24));
  Dyadic big = Dyadic::of(65504);
  big.add(15); // below the halfway point 65520 to the next power of two
  EXPECT_EQ(big.round_to(DType::Float16), 65504);
  big.add(1); // 65520: a tie, and the even neighbour is 2^16, an overflow
  EXPECT_TRUE(std::isinf(big.round_to(DType::Float16)));
  Dyadic bf = Dyadic::of(1.0);
  bf.add(std::ldexp(1.0, -8) + std::ldexp(1.0, -20)); // above halfway for bfloat16
  EXPECT_EQ(bf.round_to(DType::BFloat16), 1.0 + std::ldexp(1.0, -7));
}

TEST(Dyadic, SignedZerosAndSpecials) {
  Dyadic negatives;
  negatives.add(-0.0);
  negatives.add(-0.0);
  EXPECT_TRUE(std::signbit(negatives.round_to(DType::Float32)));
  Dyadic mixed;
  mixed.add(-0.0);
  mixed.add(0.0);
  EXPECT_FALSE(std::signbit(mixed.round_to(DType::Float32)));
  Dyadic cancel;
  cancel.add(-2.5);
  cancel.add(2.5);
  EXPECT_FALSE(std::signbit(cancel.round_to(DType::Float32)));
  EXPECT_FALSE(std::signbit(Dyadic().round_to(DType::Float32)));
  Dyadic inf;
  inf.add(INFINITY);
  inf.add(-1e300);
  EXPECT_EQ(inf.round_to(DType::Float64), INFINITY);
  inf.add(-INFINITY);
  EXPECT_TRUE(std::isnan(inf.round_to(DType::Float64)));
  Dyadic nan;
  nan.add(NAN);
  nan.add(1);
  EXPECT_TRUE(std::isnan(nan.round_to(DType::Float32)));
}

TEST(Dyadic, ProductsAreExact) {
  Dyadic p = Dyadic::one();
  // (1 + 2^-20)^3 = 1 + 3·2^-20 + 3·2^-40 + 2^-60: float32 rounds the tail away.
  for (int i = 0; i < 3; ++i)
    p.multiply(1.0 + std::ldexp(1.0, -20));
  EXPECT_EQ(p.round_to(DType::Float32), 1.0 + 3 * std::ldexp(1.0, -20));
  EXPECT_EQ(p.round_to(DType::Float64), 1.0 + 3 * std::ldexp(1.0, -20) + 3 * std::ldexp(1.0, -40));
  Dyadic z = Dyadic::one();
  z.multiply(-2);
  z.multiply(0.0);
  EXPECT_TRUE(std::signbit(z.round_to(DType::Float32)));
  z.multiply(INFINITY);
  EXPECT_TRUE(std::isnan(z.round_to(DType::Float32)));
  Dyadic under = Dyadic::one(); // 2^-100 · 2^-100 underflows float64's normals only
  under.multiply(std::ldexp(1.0, -600));
  under.multiply(std::ldexp(1.0, -460));
  EXPECT_EQ(under.round_to(DType::Float64), std::ldexp(1.0, -1060));
  EXPECT_EQ(under.round_to(DType::Float32), 0.0);
}

// Random sums with wide exponents and cancellation, each format, against
// the rational sum rounded by a nearest-neighbour search.
TEST(Dyadic, RandomSumsMatchRationalArithmetic) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-60, 60);
  for (DType t : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
    for (int trial = 0; trial < 300; ++trial) {
      Dyadic d;
      cpp_rational q = 0;
      int n = 1 + trial % 17;
      for (int i = 0; i < n; ++i) {
        double x = core::round_float(
            t, std::ldexp(mantissa(rng), t == DType::Float16 ? exponent(rng) / 5 : exponent(rng)));
        if (i % 3 == 2) // cancel an earlier term exactly, leaving the small ones
          x = -x;
        d.add(x);
        q += rational(x);
      }
      double want = nearest(t, q);
      EXPECT_EQ(d.round_to(t), want) << core::name(t) << " trial " << trial;
    }
  }
}

} // namespace
} // namespace teval::oracle
