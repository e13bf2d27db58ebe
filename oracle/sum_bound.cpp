// The rigorous bound of a floating sum (see sum_bound.h and docs/ORACLE.md).
#include "oracle/sum_bound.h"

#include "oracle/dyadic.h"
#include "oracle/exact_math.h"
#include "oracle/interval_ops.h"

#include <algorithm>

namespace teval::oracle {

using core::DType;

double lowest_bit(double v) {
  int e = 0;
  std::frexp(v, &e);
  auto m = static_cast<uint64_t>(std::fabs(std::ldexp(v, 53 - e))); // v = m·2^(e-53)
  return std::ldexp(static_cast<double>(m & -m), e - 53);
}

namespace {

/// The unit roundoff of the narrowest binary format wider than \p t that
/// a sum may be accumulated in (docs/ORACLE.md): float32 for float16 and
/// bfloat16, float64 for float32, x87 extended for float64.
double wider_unit_roundoff(DType t) {
  switch (t) {
  case DType::Float16:
  case DType::BFloat16:
    return std::ldexp(1.0, -24);
  case DType::Float32:
    return std::ldexp(1.0, -53);
  default:
    return std::ldexp(1.0, -64);
  }
}

} // namespace

void SumBound::add(const Interval& v) {
  if (v.any) {
    s_.any = true;
    return;
  }
  s_.nan = s_.nan || v.nan;
  if (v.no_number())
    return;
  ++s_.terms;
  if (v.lo.f == -INFINITY)
    s_.minus_inf = true;
  if (v.hi.f == INFINITY)
    s_.plus_inf = true;
  // An infinite term adds only its sign (finish() makes that end
  // infinite); one that may also be finite may be any value of its type.
  if (v.singleton() && std::isinf(v.lo.f))
    return;
  if (std::isinf(v.lo.f) || std::isinf(v.hi.f)) {
    s_.magnitude = INFINITY;
    return;
  }
  s_.lo = add_down(s_.lo, v.lo.f);
  s_.hi = add_up(s_.hi, v.hi.f);
  s_.magnitude = add_up(s_.magnitude, std::max(std::fabs(v.lo.f), std::fabs(v.hi.f)));
  s_.positive = add_up(s_.positive, std::max(v.hi.f, 0.0));
  s_.negative = add_up(s_.negative, std::max(-v.lo.f, 0.0));
  s_.nonnegative = s_.nonnegative && v.lo.f >= 0;
  s_.nonpositive = s_.nonpositive && v.hi.f <= 0;
  s_.largest_lo = std::max(s_.largest_lo, v.lo.f);
  s_.smallest_hi = std::min(s_.smallest_hi, v.hi.f);
  if (v.lo.f == 0 && v.hi.f == 0)
    return; // adding a zero is exact: it takes no part in the error bound
  ++s_.nonzero;
  s_.quantum = v.singleton() ? std::min(s_.quantum, lowest_bit(v.lo.f)) : 0;
}

Interval SumBound::finish(DType t, bool outward) const {
  // A term that may be infinite or finite: no finite error bound (and
  // an error term times inf below would be NaN).
  if (s_.any || std::isinf(s_.magnitude))
    return Interval::everything(t);
  FloatFormat f = format_of(t);
  double u = std::ldexp(1.0, -f.precision);
  double n = static_cast<double>(s_.nonzero);
  // Every legal result lies within err of the exact sum (docs/ORACLE.md,
  // "Sums"): (n - 1)·u·Σ|x| for any order in the output dtype, for every
  // n; accumulated in a wider format W and rounded once, (n - 1)·u_W·Σ|x|
  // plus that rounding. That holds where no partial sum overflows; the
  // overflows are checked below.
  double err = 0;
  if (n > 1) {
    double w = wider_unit_roundoff(t);
    double in_t = mul_up(mul_up(n - 1, u), s_.magnitude);
    double in_w = mul_up(mul_up(n - 1, w), s_.magnitude);
    double eta = std::ldexp(1.0, f.min_exponent - f.precision); // a rounding below the normals
    double rounded = add_up(add_up(in_w, mul_up(u, add_up(s_.magnitude, in_w))), eta);
    err = std::max(in_t, rounded);
  }
  // Terms that are all multiples of q with Σ|x| <= 2^p·q: every partial sum
  // of every order is a multiple of q no larger than 2^p·q, a value of t,
  // so no addition rounds and the exact sum is the only result.
  if (s_.quantum > 0 && s_.magnitude <= std::ldexp(s_.quantum, f.precision))
    err = 0;
  double lo = add_down(s_.lo, -err);
  double hi = add_up(s_.hi, err);
  bool nan = s_.nan || (s_.plus_inf && s_.minus_inf);
  // Terms of one sign: every partial sum is at least its largest term
  // (rounding is monotone), so the result is too.
  if (s_.nonnegative)
    lo = std::max(lo, round_double(t, s_.largest_lo, Rounding::Down));
  if (s_.nonpositive)
    hi = std::min(hi, round_double(t, s_.smallest_hi, Rounding::Up));
  // Every evaluation is monotone in each term, so no partial sum exceeds
  // that of the same order over the positive parts alone, all of one sign:
  // at most P·(1 + (n - 1)·u), P the sum of the positive parts (the bound
  // above, for terms of one sign); likewise below, with the negative parts
  // N. Where that reaches the overflow threshold, the infinity of that sign
  // is a legal result (it stays once reached), and with both, or with an
  // infinite term of the other sign, NaN.
  double overflow = std::ldexp(2.0 - std::ldexp(1.0, -f.precision), f.max_exponent);
  double growth = add_up(1, mul_up(std::max(n - 1, 0.0), u));
  bool positive_overflow = mul_up(s_.positive, growth) >= overflow;
  bool negative_overflow = mul_up(s_.negative, growth) >= overflow;
  if (positive_overflow || s_.plus_inf)
    hi = INFINITY;
  if (negative_overflow || s_.minus_inf)
    lo = -INFINITY;
  nan = nan || ((positive_overflow || s_.plus_inf) && (negative_overflow || s_.minus_inf));
  Interval r = values_between(t, lo, hi, outward);
  r.nan = nan;
  return r;
}

} // namespace teval::oracle
