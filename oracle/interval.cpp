// Intervals of a dtype's values and the directed arithmetic on their ends
// (see interval_ops.h).
#include "oracle/bounds.h"
#include "oracle/dyadic.h"
#include "oracle/exact_math.h"
#include "oracle/interval_ops.h"

#include <algorithm>
#include <cmath>

namespace teval::oracle {

using core::DType;
using core::Scalar;

Interval Interval::point(const Scalar& v) {
  Interval r{v, v};
  if (core::is_float(v.dtype) && std::isnan(v.f)) {
    r.nan = true;
    r.lo = Scalar::of_float(v.dtype, INFINITY); // an empty range
    r.hi = Scalar::of_float(v.dtype, -INFINITY);
  }
  return r;
}

Interval Interval::everything(DType t) {
  Interval r{core::lowest(t), core::highest(t)};
  if (core::is_float(t)) {
    r.lo = Scalar::of_float(t, -INFINITY);
    r.hi = Scalar::of_float(t, INFINITY);
  }
  r.nan = core::is_float(t);
  r.any = true;
  return r;
}

bool Interval::no_number() const {
  return core::is_float(lo.dtype) ? lo.f > hi.f : lo.i > hi.i;
}

bool Interval::singleton() const {
  if (any || nan)
    return false;
  return core::is_float(lo.dtype) ? lo.f == hi.f && std::signbit(lo.f) == std::signbit(hi.f)
                                  : lo.i == hi.i;
}

bool Interval::contains(const Scalar& v) const {
  if (any)
    return true;
  if (core::is_float(v.dtype)) {
    if (std::isnan(v.f))
      return nan;
    // -0 and +0 are both inside a range that holds zero.
    return v.f >= lo.f && v.f <= hi.f;
  }
  return v.i >= lo.i && v.i <= hi.i;
}

Interval hull(const Interval& a, const Interval& b) {
  if (a.any || b.any)
    return Interval::everything(a.lo.dtype);
  if (a.no_number())
    return with_nan(b, a.nan);
  if (b.no_number())
    return with_nan(a, b.nan);
  Interval r = a;
  r.nan = a.nan || b.nan;
  if (core::is_float(a.lo.dtype)) {
    r.lo.f = std::min(a.lo.f, b.lo.f);
    r.hi.f = std::max(a.hi.f, b.hi.f);
  } else {
    r.lo.i = std::min(a.lo.i, b.lo.i);
    r.hi.i = std::max(a.hi.i, b.hi.i);
  }
  return r;
}

Interval with_nan(Interval v, bool nan) {
  v.nan = v.nan || nan;
  return v;
}

double down(double x) {
  return std::nextafter(x, -INFINITY);
}
double up(double x) {
  return std::nextafter(x, INFINITY);
}
double add_down(double a, double b) {
  double s = a + b;
  if (!std::isfinite(s))
    return s;
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb); // TwoSum: a + b = s + err exactly
  return err < 0 ? down(s) : s;
}
double add_up(double a, double b) {
  return -add_down(-a, -b);
}
double mul_up(double a, double b) {
  double p = a * b;
  if (!std::isfinite(p))
    return p;
  double err = std::fma(a, b, -p);
  return err > 0 ? up(p) : p;
}
double mul_down(double a, double b) {
  return -mul_up(-a, b);
}

Scalar fl(DType t, double v) {
  return Scalar::of_float(t, v);
}

/// \p x (a value of dtype \p t) moved outward by \p k ulps of t, an ulp
/// taken in x's own binade: the exact value x bounds lies on the inner side
/// of x, in a binade no coarser, so this covers k of its ulps too.
double widen(DType t, double x, int64_t k, bool toward_up) {
  if (!std::isfinite(x) || k == 0)
    return x;
  FloatFormat f = format_of(t);
  int exponent = x == 0 ? f.min_exponent : std::max(std::ilogb(x), f.min_exponent);
  double step = std::ldexp(static_cast<double>(k), exponent - f.precision + 1);
  double moved = toward_up ? add_up(x, step) : add_down(x, -step);
  return round_double(t, moved, toward_up ? Rounding::Up : Rounding::Down);
}

Interval values_between(DType t, double lo, double hi, bool outward) {
  Rounding in_lo = outward ? Rounding::Down : Rounding::Up;
  Rounding in_hi = outward ? Rounding::Up : Rounding::Down;
  return Interval{fl(t, round_double(t, lo, in_lo)), fl(t, round_double(t, hi, in_hi))};
}

double widen(DType t, double x, const MathAllowance& allowance, bool toward_up) {
  x = widen(t, x, allowance.ulps, toward_up);
  if (!std::isfinite(x) || allowance.absolute == 0)
    return x;
  double step = std::ldexp(allowance.absolute, t == DType::Float64 ? -53 : -24);
  double moved = toward_up ? add_up(x, step) : add_down(x, -step);
  return round_double(t, moved, toward_up ? Rounding::Up : Rounding::Down);
}

} // namespace teval::oracle
