// Exact numeric primitives shared by every evaluator.
#include "core/numeric.h"

#include "core/error.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace teval::core {

namespace {

struct Format {
  int precision; // significand bits, hidden bit included
  int emin;      // exponent of the smallest normal
};

Format format_of(DType t) {
  if (const MiniFloat* m = minifloat(t))
    return {m->mantissa_bits + 1, 1 - m->bias};
  switch (t) {
  case DType::Float16:
    return {11, -14};
  case DType::BFloat16:
    return {8, -126};
  case DType::Float32:
    return {24, -126};
  case DType::Float64:
    return {53, -1022};
  case DType::Bool:
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::UInt8:
  case DType::UInt16:
  default:
    break;
  }
  TEVAL_UNREACHABLE("format of an integer dtype");
}

// Rounds a finite nonzero |a| to `precision` bits with a minimum quantum
// exponent, ties to even. ldexp by a power of two is exact here.
double round_magnitude(double a, Format fmt) {
  int e = 0;
  std::frexp(a, &e);
  int quantum = std::max(e - 1, fmt.emin) - (fmt.precision - 1);
  double scaled = std::ldexp(a, -quantum);
  double whole = std::floor(scaled);
  double frac = scaled - whole;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(whole, 2.0) != 0))
    whole += 1;
  return std::ldexp(whole, quantum);
}

// The largest finite value of a format: the top exponent is finite but
// for IEEE formats, and its top mantissa but for NanOnly ones.
constexpr double max_of(int e, int m, int bias, MiniFloat::Special s) {
  int top = (1 << e) - 1 - bias; // the largest exponent field, unbiased
  double mantissa = 2.0;         // 1.111...1 = 2 - 2^-m
  double ulp = 1.0;
  for (int i = 0; i < m; ++i)
    ulp /= 2;
  mantissa -= ulp;
  if (s == MiniFloat::Special::Ieee || s == MiniFloat::Special::Scale)
    top -= 1;
  if (s == MiniFloat::Special::NanOnly)
    mantissa -= ulp;
  double v = mantissa;
  for (int i = 0; i < (top < 0 ? -top : top); ++i)
    v = top < 0 ? v / 2 : v * 2;
  return v;
}

constexpr MiniFloat mini(int e, int m, int bias, MiniFloat::Special s) {
  return {e, m, bias, s, max_of(e, m, bias, s)};
}

// \p x rounded to the scale type \p f (round_float).
double round_scale(const MiniFloat& f, double x) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(x) || x < 0 || std::isinf(x))
    return nan;
  const double smallest = std::ldexp(1.0, -f.bias);
  if (x <= smallest)
    return smallest;
  int exponent = 0;
  const double fraction =
      std::frexp(x, &exponent); // x = fraction * 2^exponent, 0.5 <= fraction < 1
  const double r = std::ldexp(1.0, fraction < 0.75 ? exponent - 1 : exponent);
  return r > f.max ? nan : r;
}

} // namespace

const MiniFloat* minifloat(DType t) {
  using S = MiniFloat::Special;
  static constexpr MiniFloat kE4M3FN = mini(4, 3, 7, S::NanOnly), kE5M2 = mini(5, 2, 15, S::Ieee),
                             kE4M3 = mini(4, 3, 7, S::Ieee), kE3M4 = mini(3, 4, 3, S::Ieee),
                             kE4M3FNUZ = mini(4, 3, 8, S::NegZero),
                             kE5M2FNUZ = mini(5, 2, 16, S::NegZero),
                             kE4M3B11FNUZ = mini(4, 3, 11, S::NegZero),
                             kE2M3FN = mini(2, 3, 1, S::None), kE3M2FN = mini(3, 2, 3, S::None),
                             kE2M1FN = mini(2, 1, 1, S::None), kE8M0FNU = mini(8, 0, 127, S::Scale);
  switch (t) {
  case DType::Float8E4M3FN:
    return &kE4M3FN;
  case DType::Float8E5M2:
    return &kE5M2;
  case DType::Float8E4M3:
    return &kE4M3;
  case DType::Float8E3M4:
    return &kE3M4;
  case DType::Float8E4M3FNUZ:
    return &kE4M3FNUZ;
  case DType::Float8E5M2FNUZ:
    return &kE5M2FNUZ;
  case DType::Float8E4M3B11FNUZ:
    return &kE4M3B11FNUZ;
  case DType::Float6E2M3FN:
    return &kE2M3FN;
  case DType::Float6E3M2FN:
    return &kE3M2FN;
  case DType::Float4E2M1FN:
    return &kE2M1FN;
  case DType::Float8E8M0FNU:
    return &kE8M0FNU;
  default:
    return nullptr;
  }
}

uint8_t minifloat_bits(DType t, double x) {
  const MiniFloat& f = *minifloat(t);
  using S = MiniFloat::Special;
  const int e = f.exponent_bits, m = f.mantissa_bits;
  if (f.special == S::Scale) // 2^(bits - bias); all ones is the NaN
    return std::isnan(x) ? 0xFF : static_cast<uint8_t>(std::ilogb(x) + f.bias);
  const unsigned top = (1u << e) - 1, sign = std::signbit(x) ? 1u << (e + m) : 0;
  if (std::isnan(x)) {
    if (f.special == S::NegZero)
      return 0x80;
    if (f.special == S::NanOnly)
      return static_cast<uint8_t>(sign | (top << m) | ((1u << m) - 1));
    return static_cast<uint8_t>(sign | (top << m) | (1u << (m - 1))); // Ieee: quiet
  }
  if (std::isinf(x))
    return static_cast<uint8_t>(sign | (top << m)); // Ieee only: the others have none
  const double a = std::fabs(x);
  if (a == 0)
    return static_cast<uint8_t>(f.special == S::NegZero ? 0 : sign);
  int exponent = 0;
  std::frexp(a, &exponent); // a = 0.5..1 * 2^exponent
  int biased = exponent - 1 + f.bias;
  if (biased <= 0) // subnormal: a multiple of 2^(1 - bias - m)
    return static_cast<uint8_t>(sign | static_cast<unsigned>(std::ldexp(a, f.bias - 1 + m)));
  const auto mantissa =
      static_cast<unsigned>(std::ldexp(a, m - (exponent - 1)) - std::ldexp(1.0, m));
  return static_cast<uint8_t>(sign | (static_cast<unsigned>(biased) << m) | mantissa);
}

double minifloat_value(DType t, uint8_t bits) {
  const MiniFloat& f = *minifloat(t);
  using S = MiniFloat::Special;
  const int e = f.exponent_bits, m = f.mantissa_bits;
  const unsigned top = (1u << e) - 1;
  if (f.special == S::Scale)
    return bits == 0xFF ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, bits - f.bias);
  bits &= static_cast<uint8_t>((1u << (e + m + 1)) - 1);
  const bool negative = (bits >> (e + m)) & 1;
  const unsigned exponent = (bits >> m) & top, mantissa = bits & ((1u << m) - 1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (f.special == S::NegZero && bits == 0x80)
    return nan;
  if (f.special == S::Ieee && exponent == top)
    return mantissa ? std::copysign(nan, negative ? -1.0 : 1.0)
                    : (negative ? -1 : 1) * std::numeric_limits<double>::infinity();
  if (f.special == S::NanOnly && exponent == top && mantissa == (1u << m) - 1)
    return std::copysign(nan, negative ? -1.0 : 1.0);
  double v = exponent == 0
                 ? std::ldexp(mantissa, 1 - f.bias - m)
                 : std::ldexp(mantissa + (1u << m), static_cast<int>(exponent) - f.bias - m);
  return negative ? -v : v;
}

Scalar Scalar::of_int(DType t, int64_t v) {
  TEVAL_ASSERT(!is_float(t) && !is_complex(t), "of_int with a floating dtype");
  Scalar s;
  s.dtype = t;
  s.i = wrap_int(t, v);
  return s;
}

Scalar Scalar::of_float(DType t, double v) {
  TEVAL_ASSERT(is_float(t), "of_float with an integer dtype");
  Scalar s;
  s.dtype = t;
  s.f = round_float(t, v);
  return s;
}

Scalar Scalar::of_complex(DType t, double re, double im) {
  TEVAL_ASSERT(is_complex(t), "of_complex with a real dtype");
  Scalar s;
  s.dtype = t;
  s.f = round_float(complex_part(t), re);
  s.im = round_float(complex_part(t), im);
  return s;
}

namespace {

bool same_double(double a, double b) {
  if (std::isnan(a) && std::isnan(b))
    return true;
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

} // namespace

bool identical(const Scalar& a, const Scalar& b) {
  if (a.dtype != b.dtype)
    return false;
  if (is_complex(a.dtype))
    return same_double(a.f, b.f) && same_double(a.im, b.im);
  if (!is_float(a.dtype))
    return a.i == b.i;
  return same_double(a.f, b.f);
}

double round_float(DType t, double x) {
  if (const MiniFloat* m = minifloat(t)) {
    using S = MiniFloat::Special;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (m->special == S::Scale)
      return round_scale(*m, x);
    if (std::isnan(x)) // FNUZ formats have one NaN, of no sign
      return m->special == S::None ? 0.0 : m->special == S::NegZero ? nan : x;
    double r = std::isinf(x) ? std::numeric_limits<double>::infinity()
                             : (x == 0 ? 0.0 : round_magnitude(std::fabs(x), format_of(t)));
    if (r > m->max)
      r = m->special == S::Ieee   ? std::numeric_limits<double>::infinity()
          : m->special == S::None ? m->max
                                  : nan;
    if (m->special == S::NegZero && (r == 0 || std::isnan(r)))
      return r == 0 ? 0.0 : nan;
    return std::copysign(r, x);
  }
  if (t == DType::Float64 || std::isnan(x) || std::isinf(x) || x == 0)
    return x;
  if (t == DType::Float32)
    return static_cast<float>(x);
  double r = round_magnitude(std::fabs(x), format_of(t));
  if (r > float_max(t))
    r = std::numeric_limits<double>::infinity();
  return std::copysign(r, x);
}

uint16_t float16_bits(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(x);
  if (std::isnan(x))
    return sign | 0x7e00;
  if (std::isinf(a))
    return sign | 0x7c00;
  if (a < 0x1p-14) // subnormal or zero: a multiple of 2^-24
    return sign | static_cast<uint16_t>(std::ldexp(a, 24));
  int e = 0;
  double m = std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  auto mantissa = static_cast<uint16_t>(std::ldexp(m, 11) - 1024);
  return sign | static_cast<uint16_t>((e - 1 + 15) << 10) | mantissa;
}

double float16_value(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return mantissa ? std::copysign(std::numeric_limits<double>::quiet_NaN(), sign)
                    : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

uint16_t bfloat16_bits(double x) {
  // A bfloat16 value is exactly a binary32 value whose low 16 bits are zero.
  auto bits = std::bit_cast<uint32_t>(static_cast<float>(x));
  if (std::isnan(x))
    bits |= 0x00400000; // keep NaN a NaN after truncation
  return static_cast<uint16_t>(bits >> 16);
}

double bfloat16_value(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

std::optional<int64_t> float_to_int(DType t, double x) {
  if (std::isnan(x))
    return std::nullopt;
  double truncated = std::trunc(x);
  // Every bound below is a power of two or one less: compare in double
  // against the exact limits without converting out-of-range values.
  if (t == DType::Int64) {
    if (truncated < -0x1p63 || truncated >= 0x1p63)
      return std::nullopt;
    return static_cast<int64_t>(truncated);
  }
  if (t == DType::UInt64) {
    if (truncated < 0 || truncated >= 0x1p64)
      return std::nullopt;
    return static_cast<int64_t>(static_cast<uint64_t>(truncated));
  }
  if (t == DType::Bool)
    return x != 0;
  if (truncated < static_cast<double>(int_min(t)) || truncated > static_cast<double>(int_max(t)))
    return std::nullopt;
  return static_cast<int64_t>(truncated);
}

double int_to_float(DType t, __int128 v) {
  // Doubles hold every |v| <= 2^53 exactly, so one rounding to t follows.
  if (v >= -(int64_t{1} << 53) && v <= (int64_t{1} << 53))
    return round_float(t, static_cast<double>(static_cast<int64_t>(v)));
  // Larger magnitudes (below 2^64): round to the target precision in
  // integer arithmetic first so no double rounding happens on the way.
  Format fmt = format_of(t);
  bool negative = v < 0;
  auto a = static_cast<uint64_t>(negative ? -v : v);
  int width = 64 - std::countl_zero(a);
  int drop = width - fmt.precision;
  if (drop > 0) {
    uint64_t half = uint64_t{1} << (drop - 1);
    uint64_t rest = a & ((uint64_t{1} << drop) - 1);
    uint64_t kept = a >> drop;
    if (rest > half || (rest == half && (kept & 1)))
      ++kept;
    double r = std::ldexp(static_cast<double>(kept), drop);
    if (is_float(t) && t != DType::Float64 && r > float_max(t))
      r = std::numeric_limits<double>::infinity();
    return negative ? -r : r;
  }
  double r = static_cast<double>(a);
  return negative ? -r : r;
}

Scalar lowest(DType t) {
  if (is_complex(t)) // lexicographically, as complex max and min order
    return Scalar::of_complex(t, -float_max(complex_part(t)), -float_max(complex_part(t)));
  if (is_float(t))
    return Scalar::of_float(t, -float_max(t));
  return Scalar::of_int(t, int_min(t));
}

Scalar highest(DType t) {
  if (is_complex(t))
    return Scalar::of_complex(t, float_max(complex_part(t)), float_max(complex_part(t)));
  if (is_float(t))
    return Scalar::of_float(t, float_max(t));
  if (t == DType::UInt64)
    return Scalar::of_int(t, -1); // every bit set
  return Scalar::of_int(t, int_max(t));
}

Scalar constant(DType t, int64_t v) {
  if (is_complex(t))
    return Scalar::of_complex(t, static_cast<double>(v), 0);
  if (is_float(t))
    return Scalar::of_float(t, static_cast<double>(v));
  return Scalar::of_int(t, v);
}

} // namespace teval::core
