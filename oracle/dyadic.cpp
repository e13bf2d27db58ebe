// Exact binary rationals (see dyadic.h).
#include "oracle/dyadic.h"

#include "core/error.h"

#include <boost/multiprecision/cpp_int.hpp>

#include <cmath>

namespace teval::oracle {

using boost::multiprecision::cpp_int;

/// m·2^e; m carries the sign.
struct Dyadic::Big {
  cpp_int m;
  int64_t e = 0;
};

FloatFormat format_of(core::DType t) {
  switch (t) {
  case core::DType::Float16:
    return {11, -14, 15};
  case core::DType::BFloat16:
    return {8, -126, 127};
  case core::DType::Float32:
    return {24, -126, 127};
  case core::DType::Float64:
    return {53, -1022, 1023};
  default:
    break;
  }
  TEVAL_UNREACHABLE("not a floating dtype: " + core::to_string(t));
}

namespace {

// A finite nonzero double as an odd-or-small integer mantissa and exponent.
void split(double x, int64_t& mantissa, int& exponent) {
  int e = 0;
  double f = std::frexp(x, &e); // x = f·2^e, 0.5 <= |f| < 1
  mantissa = static_cast<int64_t>(std::ldexp(f, 53));
  exponent = e - 53;
}

} // namespace

Dyadic::Dyadic() : big_(std::make_unique<Big>()) {}

size_t Dyadic::typical_heap_bytes() {
  return sizeof(Big) + 512 / 8;
}
Dyadic::~Dyadic() = default;
Dyadic::Dyadic(const Dyadic& o)
    : big_(std::make_unique<Big>(*o.big_)), nan_(o.nan_), inf_(o.inf_), any_term_(o.any_term_),
      all_negative_zero_(o.all_negative_zero_), negative_(o.negative_), product_(o.product_),
      zero_factor_(o.zero_factor_) {}
Dyadic& Dyadic::operator=(const Dyadic& o) {
  if (this != &o)
    *this = Dyadic(o);
  return *this;
}
Dyadic::Dyadic(Dyadic&&) noexcept = default;
Dyadic& Dyadic::operator=(Dyadic&&) noexcept = default;

Dyadic Dyadic::of(double x) {
  Dyadic d;
  d.add(x);
  return d;
}

Dyadic Dyadic::one() {
  Dyadic d;
  d.product_ = true;
  d.big_->m = 1;
  return d;
}

void Dyadic::add(double x) {
  TEVAL_ASSERT(!product_, "add() on a product");
  any_term_ = true;
  if (!(std::signbit(x) && x == 0))
    all_negative_zero_ = false;
  if (std::isnan(x)) {
    nan_ = true;
    return;
  }
  if (std::isinf(x)) {
    int s = x > 0 ? 1 : -1;
    if (inf_ == -s)
      nan_ = true;
    inf_ = s;
    return;
  }
  if (x == 0)
    return;
  int64_t mantissa = 0;
  int exponent = 0;
  split(x, mantissa, exponent);
  Big& b = *big_;
  if (b.m == 0) {
    b.m = mantissa;
    b.e = exponent;
  } else if (exponent >= b.e) {
    b.m += cpp_int(mantissa) << static_cast<unsigned>(exponent - b.e);
  } else {
    b.m <<= static_cast<unsigned>(b.e - exponent);
    b.m += mantissa;
    b.e = exponent;
  }
}

void Dyadic::multiply(double x) {
  TEVAL_ASSERT(product_, "multiply() on a sum");
  if (std::isnan(x)) {
    nan_ = true;
    return;
  }
  if (std::signbit(x))
    negative_ = !negative_;
  if (std::isinf(x)) {
    inf_ = 1;
    return;
  }
  if (x == 0) {
    zero_factor_ = true;
    return;
  }
  if (zero_factor_)
    return;
  int64_t mantissa = 0;
  int exponent = 0;
  split(std::fabs(x), mantissa, exponent);
  Big& b = *big_;
  b.m *= mantissa;
  b.e += exponent;
  // Keep the mantissa odd: trailing zeros are exponent, not storage.
  unsigned zeros = boost::multiprecision::lsb(b.m);
  b.m >>= zeros;
  b.e += zeros;
  if (static_cast<int64_t>(boost::multiprecision::msb(b.m)) > kMaxProductBits)
    throw core::Error(core::ErrorKind::Limit, core::Span{},
                      "an exact product needs more than " + std::to_string(kMaxProductBits) +
                          " bits of mantissa; the oracle keeps no longer products");
}

double Dyadic::round_to(core::DType t) const {
  if (nan_ || (product_ && inf_ && zero_factor_))
    return std::nan("");
  if (product_) {
    double sign = negative_ ? -1.0 : 1.0;
    if (inf_)
      return sign * INFINITY;
    if (zero_factor_)
      return sign * 0.0;
  } else {
    if (inf_)
      return inf_ * INFINITY;
  }
  const Big& b = *big_;
  if (b.m == 0)
    return any_term_ && all_negative_zero_ ? -0.0 : 0.0;
  FloatFormat f = format_of(t);
  bool negative = b.m < 0;
  cpp_int a = negative ? cpp_int(-b.m) : b.m;
  if (product_ && negative_)
    negative = true;
  int64_t bits = static_cast<int64_t>(boost::multiprecision::msb(a)) + 1;
  int64_t top = b.e + bits - 1; // exponent of the leading bit
  // The exponent of the last bit the result keeps: p bits below the leading
  // one, never below the subnormals' last bit.
  int64_t q = std::max<int64_t>(top - f.precision + 1, f.min_exponent - f.precision + 1);
  int64_t shift = q - b.e;
  cpp_int r = a;
  if (shift > 0) {
    r = a >> static_cast<unsigned>(shift);
    cpp_int rest = a - (r << static_cast<unsigned>(shift));
    cpp_int half = cpp_int(1) << static_cast<unsigned>(shift - 1);
    if (rest > half || (rest == half && (r & 1) != 0))
      ++r;
  } else {
    q = b.e;
  }
  double s = negative ? -1.0 : 1.0;
  if (r == 0)
    return s * 0.0;
  // r has at most p + 1 bits; r·2^q above the largest finite value is an
  // overflow to infinity.
  int64_t rbits = static_cast<int64_t>(boost::multiprecision::msb(r)) + 1;
  if (q + rbits - 1 > f.max_exponent)
    return s * INFINITY;
  double mant = static_cast<double>(static_cast<uint64_t>(r));
  double v = std::ldexp(mant, static_cast<int>(q));
  if (std::isinf(v) || std::fabs(v) > core::float_max(t))
    return s * INFINITY;
  return s * v;
}

} // namespace teval::oracle
