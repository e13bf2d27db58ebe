// Bounds of math functions over intervals: correctly rounded ends, widened
// by each function's error allowance (docs/ORACLE.md).
#include "core/error.h"
#include "oracle/bounds.h"
#include "oracle/exact_math.h"
#include "oracle/interval_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace teval::oracle {

using core::DType;
using core::Op;
using core::Scalar;

Op math_function(std::string_view name) {
  std::optional<Op> op = core::function_named(name);
  if (op && is_math_function(*op))
    return *op;
  std::string names;
  for (Op f : core::named_functions())
    if (is_math_function(f))
      names += (names.empty() ? "" : ", ") + std::string(core::spelling(f));
  throw core::Error(core::ErrorKind::Name, "",
                    "`" + std::string(name) + "` is not a math function; they are: " + names);
}

MathAllowance math_allowance(Op op, const BoundOptions& options) {
  if (auto it = options.function_ulps.find(op); it != options.function_ulps.end())
    return {it->second, 0};
  if (options.math_ulps)
    return {*options.math_ulps, 0};
  // The worst errors measured on this machine (bench/math_ulps.py, the
  // table in docs/ORACLE.md), rounded up with a margin.
  switch (op) {
  case Op::Sqrt:
  case Op::RFloor:
  case Op::RCeil:
  case Op::Frac:
    return {0, 0}; // exact operations, or correctly rounded in IEEE
  case Op::Rsqrt:
    return {2, 0}; // 1/sqrt(x): two roundings
  case Op::Sigmoid:
    return {6, 0}; // 1/(1 + exp(-x)): exp's error and two roundings (oneDNN: 3.35)
  case Op::NormCdf:
    return {8, 0}; // through erfc and a scaled argument
  case Op::Erf:
    return {4, 12}; // torch's GELU: an erf with absolute error 9.3·2^-24 near 0
  case Op::Tanh:
    return {4, 0};
  default:
    return {4, 0}; // at most 3.87 measured (libmvec's log)
  }
}

namespace {

bool increasing(Op op) {
  switch (op) {
  case Op::Exp:
  case Op::Log:
  case Op::Sqrt:
  case Op::Asin:
  case Op::Atan:
  case Op::Sinh:
  case Op::Tanh:
  case Op::Erf:
  case Op::Expm1:
  case Op::Log1p:
  case Op::Cbrt:
  case Op::Asinh:
  case Op::Acosh:
  case Op::Atanh:
  case Op::NormCdf:
  case Op::Sigmoid:
  case Op::RFloor:
  case Op::RCeil:
    return true;
  default:
    return false;
  }
}

} // namespace

Interval pow_bound(DType t, const Interval& x, const Interval& y, const BoundOptions& options) {
  MathAllowance k = math_allowance(Op::Pow, options);
  auto bounded = [&](double lo, double hi, bool nan) {
    if (std::isnan(lo) || std::isnan(hi))
      return Interval::point(fl(t, NAN));
    return with_nan(Interval{fl(t, widen(t, lo, k, false)), fl(t, widen(t, hi, k, true))}, nan);
  };
  // pow(x, 0) and pow(1, y) are 1 even for a NaN x or y (C99 Annex F).
  bool one = (x.nan && y.contains(fl(t, 0))) || (y.nan && x.contains(fl(t, 1)));
  auto with_one = [&](Interval r) { return one ? hull(r, Interval::point(fl(t, 1))) : r; };
  if ((x.singleton() || x.no_number()) && (y.singleton() || y.no_number())) {
    double a = x.no_number() ? NAN : x.lo.f, b = y.no_number() ? NAN : y.lo.f;
    double r = correctly_rounded(Op::Pow, t, a, b);
    if (std::isnan(r))
      return Interval::point(fl(t, NAN));
    return bounded(correctly_rounded(Op::Pow, t, a, b, Rounding::Down),
                   correctly_rounded(Op::Pow, t, a, b, Rounding::Up), false);
  }
  if (x.no_number() || y.no_number())
    return with_one(Interval::point(fl(t, NAN)));
  // An integer power n of any x (x³ of a GELU): monotone on each side of
  // 0, so its extremes are at x's ends and, for n > 0, at 0; a negative n
  // has a pole at 0.
  if (y.singleton() && std::isfinite(y.lo.f) && y.lo.f == std::trunc(y.lo.f)) {
    const double n = y.lo.f;
    const bool zero = x.lo.f <= 0 && x.hi.f >= 0;
    if (zero && n < 0)
      return Interval::everything(t);
    double lo = INFINITY, hi = -INFINITY;
    for (double a : {x.lo.f, x.hi.f, zero ? 0.0 : x.lo.f}) {
      lo = std::min(lo, correctly_rounded(Op::Pow, t, a, n, Rounding::Down));
      hi = std::max(hi, correctly_rounded(Op::Pow, t, a, n, Rounding::Up));
    }
    return with_one(bounded(lo, hi, x.nan));
  }
  // x^y = exp(y·ln x) takes its extremes at the corners when x > 0.
  if (!(x.lo.f > 0) || !std::isfinite(x.hi.f) || !std::isfinite(y.lo.f) || !std::isfinite(y.hi.f))
    return Interval::everything(t);
  double lo = INFINITY, hi = -INFINITY;
  for (double a : {x.lo.f, x.hi.f})
    for (double b : {y.lo.f, y.hi.f}) {
      lo = std::min(lo, correctly_rounded(Op::Pow, t, a, b, Rounding::Down));
      hi = std::max(hi, correctly_rounded(Op::Pow, t, a, b, Rounding::Up));
    }
  return with_one(bounded(lo, hi, x.nan || y.nan));
}

Interval atan2_bound(DType t, const Interval& y, const Interval& x, const BoundOptions& options) {
  if (y.no_number() || x.no_number())
    return Interval::point(fl(t, NAN));
  MathAllowance k = math_allowance(Op::Atan2, options);
  const bool nan = y.nan || x.nan;
  // Continuous on a box that holds neither the origin nor a point of the
  // branch cut (x <= 0, y = 0, where the angle jumps between -pi and pi):
  // monotone along each edge, so its extremes are at the corners.
  const bool corners = x.lo.f > 0 || y.lo.f > 0 || y.hi.f < 0;
  double lo = INFINITY, hi = -INFINITY;
  if (corners) {
    for (double a : {y.lo.f, y.hi.f})
      for (double b : {x.lo.f, x.hi.f}) {
        lo = std::min(lo, correctly_rounded(Op::Atan2, t, a, b, Rounding::Down));
        hi = std::max(hi, correctly_rounded(Op::Atan2, t, a, b, Rounding::Up));
      }
  } else {
    lo = -round_double(t, std::numbers::pi, Rounding::Up);
    hi = round_double(t, std::numbers::pi, Rounding::Up);
  }
  if (std::isnan(lo) || std::isnan(hi))
    return Interval::everything(t);
  return with_nan(Interval{fl(t, widen(t, lo, k, false)), fl(t, widen(t, hi, k, true))}, nan);
}

Interval math_bound(Op op, DType t, const Interval& x, const BoundOptions& options) {
  if (x.no_number())
    return Interval::point(fl(t, NAN));
  MathAllowance k = math_allowance(op, options);
  bool nan = x.nan;
  double lo = x.lo.f, hi = x.hi.f;
  if (op == Op::NormCdf && !options.math_ulps && !options.function_ulps.count(op) && lo < 0) {
    // erfc(-x/√2)/2 is ill-conditioned for x < 0: rounding the scaled
    // argument alone moves the result by up to 2x² ulps.
    k.ulps += static_cast<int64_t>(std::ceil(std::min(2 * lo * lo, 1e9)));
  }
  // Clip to the function's domain; outside it a legal result is NaN.
  auto clip = [&](double min, double max) {
    if (lo < min || hi > max)
      nan = true;
    lo = std::max(lo, min);
    hi = std::min(hi, max);
  };
  switch (op) {
  case Op::Log:
  case Op::Sqrt:
  case Op::Rsqrt:
    clip(lo < 0 ? -0.0 : lo, INFINITY);
    break;
  case Op::Asin:
  case Op::Acos:
  case Op::Atanh:
    clip(-1, 1);
    break;
  case Op::Log1p: // log1p(-1) is -inf
    clip(-1, INFINITY);
    break;
  case Op::Acosh:
    clip(1, INFINITY);
    break;
  case Op::Frac: // inf - floor(inf) is NaN
    clip(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
    break;
  default:
    break;
  }
  if (lo > hi)
    return Interval::point(fl(t, NAN));
  auto f = [&](double v, Rounding r) { return correctly_rounded(op, t, v, 0, r); };
  double rlo = 0, rhi = 0;
  bool periodic = op == Op::Sin || op == Op::Cos || op == Op::Tan;
  if (increasing(op)) {
    rlo = f(lo, Rounding::Down), rhi = f(hi, Rounding::Up);
  } else if (op == Op::Rsqrt && lo <= 0) {
    // 1/sqrt(+0) is +inf and 1/sqrt(-0) is -inf (IEEE rSqrt), and an
    // interval holding 0 holds both zeros.
    return Interval{fl(t, -INFINITY), fl(t, INFINITY), nan};
  } else if (op == Op::Rsqrt || op == Op::Acos || op == Op::Erfc) {
    rlo = f(hi, Rounding::Down), rhi = f(lo, Rounding::Up);
  } else if (lo == hi) {
    rlo = f(lo, Rounding::Down), rhi = f(lo, Rounding::Up);
  } else if (op == Op::Cosh) {
    if (lo >= 0 || hi <= 0) {
      double a = f(lo, Rounding::Down), b = f(hi, Rounding::Down);
      rlo = std::min(a, b);
      rhi = std::max(f(lo, Rounding::Up), f(hi, Rounding::Up));
    } else {
      rlo = 1;
      rhi = std::max(f(lo, Rounding::Up), f(hi, Rounding::Up));
    }
  } else if (op == Op::Frac) {
    if (std::floor(lo) == std::floor(hi))
      rlo = f(lo, Rounding::Down), rhi = f(hi, Rounding::Up);
    else
      rlo = 0, rhi = 1;
  } else if (periodic) {
    if (!std::isfinite(lo) || !std::isfinite(hi))
      return op == Op::Tan ? Interval::everything(t) : Interval{fl(t, -1), fl(t, 1), true};
    // Monotone between critical points (sin's and tan's at π/2 + mπ, cos's
    // at mπ); the margin makes the test safe against its own rounding.
    double c = op == Op::Cos ? 0 : std::numbers::pi / 2;
    bool monotone = std::fabs(lo) < 1e6 && std::fabs(hi) < 1e6 &&
                    std::floor((lo - c) / std::numbers::pi - 1e-6) ==
                        std::floor((hi - c) / std::numbers::pi + 1e-6);
    if (monotone) {
      rlo = std::min(f(lo, Rounding::Down), f(hi, Rounding::Down));
      rhi = std::max(f(lo, Rounding::Up), f(hi, Rounding::Up));
    } else if (op == Op::Tan) {
      return Interval::everything(t);
    } else {
      rlo = -1, rhi = 1;
    }
  } else {
    return Interval::everything(t);
  }
  if (std::isnan(rlo) || std::isnan(rhi) || rlo > rhi)
    return Interval::everything(t);
  rlo = widen(t, rlo, k, false);
  rhi = widen(t, rhi, k, true);
  // 1/(1 + exp(-x)) is 0 once exp(-x) overflows the type it is computed in
  // (float for every dtype but float64): a legal result of sigmoid there.
  if (op == Op::Sigmoid && lo < (t == DType::Float64 ? -709.782712893384 : -88.72283905206835))
    rlo = 0;
  return with_nan(Interval{fl(t, rlo), fl(t, rhi)}, nan);
}

} // namespace teval::oracle
