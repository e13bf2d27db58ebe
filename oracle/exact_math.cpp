// Correctly rounded math functions through MPFR (see exact_math.h).
#include "oracle/exact_math.h"

#include "core/error.h"
#include "oracle/dyadic.h"

#include <mpfr.h>

#include <cmath>
#include <string>

namespace teval::oracle {

namespace {

mpfr_rnd_t mode(Rounding r) {
  switch (r) {
  case Rounding::Nearest:
    return MPFR_RNDN;
  case Rounding::Down:
    return MPFR_RNDD;
  case Rounding::Up:
    return MPFR_RNDU;
  }
  return MPFR_RNDN;
}

/// An mpfr_t that frees itself.
class Real {
public:
  explicit Real(mpfr_prec_t precision) { mpfr_init2(v_, precision); }
  Real(mpfr_prec_t precision, double x) : Real(precision) { mpfr_set_d(v_, x, MPFR_RNDN); }
  Real(const Real&) = delete;
  Real& operator=(const Real&) = delete;
  ~Real() { mpfr_clear(v_); }
  operator mpfr_ptr() { return v_; }

private:
  mpfr_t v_;
};

/// Narrows MPFR's exponent range to a dtype's for its lifetime. MPFR writes
/// x = 0.1b...·2^E, one more than IEEE's exponent, and counts the
/// subnormals' bits from emin.
class FormatRange {
public:
  explicit FormatRange(const FloatFormat& f) : emin_(mpfr_get_emin()), emax_(mpfr_get_emax()) {
    mpfr_set_emin(f.min_exponent - f.precision + 2);
    mpfr_set_emax(f.max_exponent + 1);
  }
  FormatRange(const FormatRange&) = delete;
  FormatRange& operator=(const FormatRange&) = delete;
  ~FormatRange() {
    mpfr_set_emin(emin_);
    mpfr_set_emax(emax_);
  }

private:
  mpfr_exp_t emin_, emax_;
};

/// \p r, already rounded to the dtype's precision in the full exponent range
/// with ternary value \p inexact, brought into the dtype's exponent range:
/// overflow, underflow and subnormals (mpfr_subnormalize avoids the double
/// rounding this would otherwise be).
double finish(mpfr_ptr r, int inexact, const FloatFormat& f, mpfr_rnd_t rnd) {
  FormatRange range(f);
  inexact = mpfr_check_range(r, inexact, rnd);
  mpfr_subnormalize(r, inexact, rnd);
  return mpfr_get_d(r, rnd); // exact: the value has at most 53 bits
}

/// \p exact (any precision) rounded once to the dtype.
double round_real(mpfr_ptr exact, const FloatFormat& f, mpfr_rnd_t rnd) {
  Real r(f.precision);
  int inexact = mpfr_set(r, exact, rnd);
  return finish(r, inexact, f, rnd);
}

using Unary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

/// The MPFR function of a unary operator MPFR rounds correctly itself.
Unary direct(core::Op op) {
  switch (op) {
  case core::Op::Exp:
    return mpfr_exp;
  case core::Op::Log:
    return mpfr_log;
  case core::Op::Sqrt:
    return mpfr_sqrt;
  case core::Op::Rsqrt:
    return mpfr_rec_sqrt;
  case core::Op::Sin:
    return mpfr_sin;
  case core::Op::Cos:
    return mpfr_cos;
  case core::Op::Tan:
    return mpfr_tan;
  case core::Op::Asin:
    return mpfr_asin;
  case core::Op::Acos:
    return mpfr_acos;
  case core::Op::Atan:
    return mpfr_atan;
  case core::Op::Sinh:
    return mpfr_sinh;
  case core::Op::Cosh:
    return mpfr_cosh;
  case core::Op::Tanh:
    return mpfr_tanh;
  case core::Op::Erf:
    return mpfr_erf;
  case core::Op::Erfc:
    return mpfr_erfc;
  case core::Op::Expm1:
    return mpfr_expm1;
  case core::Op::Log1p:
    return mpfr_log1p;
  case core::Op::Cbrt:
    return mpfr_cbrt;
  case core::Op::Asinh:
    return mpfr_asinh;
  case core::Op::Acosh:
    return mpfr_acosh;
  case core::Op::Atanh:
    return mpfr_atanh;
  default:
    return nullptr;
  }
}

/// Lower and upper bounds of a composite function at working precision
/// \p w: every step rounded outward, using each step's monotonicity.
void composite_bounds(core::Op op, double x, mpfr_prec_t w, mpfr_ptr lo, mpfr_ptr hi) {
  Real t_lo(w), t_hi(w);
  if (op == core::Op::Sigmoid) {
    // 1 / (1 + exp(-x)) falls as exp(-x) rises.
    Real neg(53, -x);
    mpfr_exp(t_lo, neg, MPFR_RNDD);
    mpfr_exp(t_hi, neg, MPFR_RNDU);
    mpfr_add_ui(t_lo, t_lo, 1, MPFR_RNDD);
    mpfr_add_ui(t_hi, t_hi, 1, MPFR_RNDU);
    mpfr_ui_div(lo, 1, t_hi, MPFR_RNDD);
    mpfr_ui_div(hi, 1, t_lo, MPFR_RNDU);
    return;
  }
  TEVAL_ASSERT(op == core::Op::NormCdf, "not a composite function");
  // 0.5·erfc(z) with z = -x/√2; erfc falls as z rises.
  Real c_lo(w), c_hi(w), z_lo(w), z_hi(w);
  mpfr_set_ui(c_lo, 2, MPFR_RNDN);
  mpfr_rec_sqrt(c_lo, c_lo, MPFR_RNDD);
  mpfr_set_ui(c_hi, 2, MPFR_RNDN);
  mpfr_rec_sqrt(c_hi, c_hi, MPFR_RNDU);
  Real neg(53, -x);
  bool positive = -x >= 0;
  mpfr_mul(z_lo, neg, positive ? c_lo : c_hi, MPFR_RNDD);
  mpfr_mul(z_hi, neg, positive ? c_hi : c_lo, MPFR_RNDU);
  mpfr_erfc(lo, z_hi, MPFR_RNDD);
  mpfr_erfc(hi, z_lo, MPFR_RNDU);
  mpfr_div_2ui(lo, lo, 1, MPFR_RNDD);
  mpfr_div_2ui(hi, hi, 1, MPFR_RNDU);
}

} // namespace

bool is_math_function(core::Op op) {
  return core::rule(op) == core::OpRule::Float;
}

double round_double(core::DType t, double x, Rounding r) {
  FloatFormat f = format_of(t);
  Real v(53, x);
  return round_real(v, f, mode(r));
}

double correctly_rounded(core::Op op, core::DType t, double x, double y, Rounding r) {
  FloatFormat f = format_of(t);
  mpfr_rnd_t rnd = mode(r);
  Real in(53, x);
  if (op == core::Op::Rsqrt && x == 0)
    return std::copysign(INFINITY, x); // IEEE 754 rSqrt(-0) is -inf; MPFR says +inf
  if (Unary fn = direct(op)) {
    Real out(f.precision);
    int inexact = fn(out, in, rnd);
    return finish(out, inexact, f, rnd);
  }
  switch (op) {
  case core::Op::Pow: {
    Real out(f.precision), other(53, y);
    int inexact = mpfr_pow(out, in, other, rnd);
    return finish(out, inexact, f, rnd);
  }
  case core::Op::Atan2: { // the angle of the point (y, x) = (this x, this y): C99's atan2(x, y)
    Real out(f.precision), other(53, y);
    int inexact = mpfr_atan2(out, in, other, rnd);
    return finish(out, inexact, f, rnd);
  }
  case core::Op::RFloor:
  case core::Op::RCeil: {
    Real out(f.precision);
    int inexact = op == core::Op::RFloor ? mpfr_floor(out, in) : mpfr_ceil(out, in);
    return finish(out, inexact, f, rnd);
  }
  case core::Op::Frac: {
    // x - floor(x) is exact in 2200 bits for any double x.
    Real whole(2200), frac(2200);
    mpfr_floor(whole, in);
    mpfr_sub(frac, in, whole, MPFR_RNDN);
    return round_real(frac, f, rnd);
  }
  case core::Op::Sigmoid:
  case core::Op::NormCdf: {
    if (std::isnan(x))
      return x;
    // Ziv's method: bounds at rising precision until both round alike.
    for (mpfr_prec_t w = f.precision + 32; w <= (1 << 16); w *= 2) {
      Real lo(w), hi(w);
      composite_bounds(op, x, w, lo, hi);
      double a = round_real(lo, f, rnd);
      double b = round_real(hi, f, rnd);
      // Both functions stay strictly inside (0, 1) for finite x, however
      // close to either end (even below MPFR's smallest number): rounding
      // up, a lower bound of 0 stands for +0; rounding down, an upper bound
      // of exactly 1 stands for 1 - 0.
      if (r == Rounding::Up && std::isfinite(x) && mpfr_zero_p(lo))
        a = std::ldexp(1.0, f.min_exponent - f.precision + 1);
      if (r == Rounding::Down && std::isfinite(x) && mpfr_cmp_ui(hi, 1) == 0) {
        Real below(f.precision);
        mpfr_set_ui(below, 1, MPFR_RNDN);
        mpfr_nextbelow(below);
        b = mpfr_get_d(below, MPFR_RNDN);
      }
      if (a == b && std::signbit(a) == std::signbit(b))
        return a;
    }
    TEVAL_UNREACHABLE("Ziv's method did not converge for " + std::string(core::spelling(op)));
  }
  default:
    break;
  }
  TEVAL_UNREACHABLE("not a math function: " + std::string(core::spelling(op)));
}

} // namespace teval::oracle
