// Complex arithmetic and functions (see complex.h).
#include "core/complex.h"

#include "core/error.h"
#include "core/tmath.h"

#include <cmath>
#include <limits>

namespace teval::core {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 0x1.921fb54442d18p+1;

Complex of(const Scalar& s) {
  return {s.f, s.im};
}

bool has_nan(Complex z) {
  return std::isnan(z.re) || std::isnan(z.im);
}

// |z| without overflow or underflow on the way: an infinite part gives
// infinity (a NaN in the other part too, as C's hypot).
double magnitude(Complex z) {
  double a = std::fabs(z.re), b = std::fabs(z.im);
  if (std::isinf(a) || std::isinf(b))
    return kInf;
  if (std::isnan(a) || std::isnan(b))
    return kNaN;
  double big = std::fmax(a, b), small = std::fmin(a, b);
  if (big == 0)
    return 0;
  double r = small / big;
  return big * std::sqrt(1 + r * r);
}

Complex multiply(Complex a, Complex b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

// Smith's algorithm: the larger of the divisor's parts divides the other,
// so no intermediate overflows where the quotient does not; a zero
// divisor gives the infinities (or NaN) of dividing each part by zero.
Complex divide(Complex a, Complex b) {
  if (b.re == 0 && b.im == 0)
    return {a.re / std::fabs(b.re), a.im / std::fabs(b.re)};
  if (std::fabs(b.re) >= std::fabs(b.im)) {
    double r = b.im / b.re, d = b.re + b.im * r;
    return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
  }
  double r = b.re / b.im, d = b.re * r + b.im;
  return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
}

// C's cexp (Annex G's special values).
Complex exp(Complex z) {
  const double x = z.re, y = z.im;
  if (y == 0)
    return {teval_exp(x), y};
  if (std::isinf(x) && x > 0 && !std::isfinite(y))
    return {x, kNaN};
  if (std::isinf(x) && x < 0 && !std::isfinite(y))
    return {0, 0};
  if (!std::isfinite(y))
    return {kNaN, kNaN};
  if (x > 709) { // e^x overflows where e^x cos y may not
    double h = teval_exp(x / 2);
    return {h * teval_cos(y) * h, h * teval_sin(y) * h};
  }
  double e = teval_exp(x);
  return {e * teval_cos(y), e * teval_sin(y)};
}

// log |z| + i arg z, the magnitude's logarithm through log1p where |z| is
// near 1 (C's clog special values).
Complex log(Complex z) {
  const double x = z.re, y = z.im;
  const double arg = teval_atan2(y, x);
  if (std::isinf(x) || std::isinf(y))
    return {kInf, arg};
  if (std::isnan(x) || std::isnan(y))
    return {kNaN, kNaN};
  if (y == 0)
    return {teval_log(std::fabs(x)), arg};
  if (x == 0)
    return {teval_log(std::fabs(y)), arg};
  const double r = magnitude(z);
  if (r > 0.5 && r < 2)
    return {0.5 * teval_log1p((x - 1) * (x + 1) + y * y), arg};
  return {teval_log(r), arg};
}

// C's csqrt: the root with a nonnegative real part, computed as Kahan's
// algorithm with the operands scaled where their squares would overflow.
Complex sqrt(Complex z) {
  const double x = z.re, y = z.im;
  if (std::isinf(y))
    return {kInf, y};
  if (std::isinf(x) && x < 0)
    return {std::isnan(y) ? kNaN : 0, std::copysign(kInf, y)};
  if (std::isinf(x))
    return {kInf, std::isnan(y) ? kNaN : std::copysign(0.0, y)};
  if (has_nan(z))
    return {kNaN, kNaN};
  if (x == 0 && y == 0)
    return {0, y};
  const bool huge = std::fabs(x) > 0x1p1020 || std::fabs(y) > 0x1p1020;
  const double s = huge ? 0.25 : 1, back = huge ? 2 : 1;
  const double t = std::sqrt((std::fabs(x * s) + magnitude({x * s, y * s})) / 2) * back;
  if (x >= 0)
    return {t, y / (2 * t)};
  return {std::fabs(y) / (2 * t), std::copysign(t, y)};
}

// The inverse functions by Kahan's formulas ("Branch cuts for complex
// elementary functions", 1987), principal values, the branch cuts' sides
// told by the zeros' signs through sqrt's.
Complex conj_times(Complex a, Complex b) { // conj(a) * b
  return {a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re};
}

Complex asin(Complex z) {
  const Complex s1 = sqrt({1 - z.re, -z.im}), s2 = sqrt({1 + z.re, z.im});
  return {teval_atan2(z.re, multiply(s1, s2).re), teval_asinh(conj_times(s1, s2).im)};
}

Complex acos(Complex z) {
  const Complex s1 = sqrt({1 - z.re, -z.im}), s2 = sqrt({1 + z.re, z.im});
  return {2 * teval_atan2(s1.re, s2.re), teval_asinh(conj_times(s2, s1).im)};
}

Complex acosh(Complex z) {
  const Complex s1 = sqrt({z.re - 1, z.im}), s2 = sqrt({z.re + 1, z.im});
  return {teval_asinh(conj_times(s1, s2).re), 2 * teval_atan2(s1.im, s2.re)};
}

// atanh: log1p(4x / ((1 - x)^2 + y^2)) / 4 + i atan2(2y, (1 - x)(1 + x) -
// y^2) / 2 for x >= 0 (an odd function); past 2^500, where the squares
// would overflow, 1/z + i pi/2.
Complex atanh(Complex z) {
  const double x = z.re, y = z.im;
  if (std::isnan(x) || std::isnan(y))
    return {std::isinf(y) ? std::copysign(0.0, x) : kNaN,
            std::isinf(x) || std::isinf(y) ? std::copysign(kPi / 2, y) : kNaN};
  if (std::fabs(x) > 0x1p500 || std::fabs(y) > 0x1p500) {
    const double h = magnitude(z);
    return {std::isinf(h) ? std::copysign(0.0, x) : (x / h) / h, std::copysign(kPi / 2, y)};
  }
  if (std::signbit(x)) { // odd: the log1p below then never nears -1
    const Complex w = atanh({-x, -y});
    return {-w.re, -w.im};
  }
  const double re = teval_log1p(4 * x / ((1 - x) * (1 - x) + y * y)) / 4;
  return {re, teval_atan2(2 * y, (1 - x) * (1 + x) - y * y) / 2};
}

// asinh(z) = -i asin(iz), atan(z) = -i atanh(iz).
Complex rotated(Complex (*f)(Complex), Complex z) {
  const Complex w = f({-z.im, z.re});
  return {w.im, -w.re};
}

Complex sin(Complex z) {
  return {teval_sin(z.re) * teval_cosh(z.im), teval_cos(z.re) * teval_sinh(z.im)};
}

Complex cos(Complex z) {
  return {teval_cos(z.re) * teval_cosh(z.im), -(teval_sin(z.re) * teval_sinh(z.im))};
}

// Kahan's formula, which neither overflows nor cancels; the real axis
// gives the real function's value.
Complex tanh(Complex z) {
  const double x = z.re, y = z.im;
  if (y == 0)
    return {teval_tanh(x), y};
  if (std::fabs(x) > 22) // tanh x is ±1 to double precision
    return {std::copysign(1.0, x), 4 * teval_sin(y) * teval_cos(y) * teval_exp(-2 * std::fabs(x))};
  const double t = teval_tan(y), b = 1 + t * t, s = teval_sinh(x);
  const double r = std::sqrt(1 + s * s), d = 1 + b * s * s;
  return {b * r * s / d, t / d};
}

// tan z = -i tanh(iz).
Complex tan(Complex z) {
  Complex w = tanh({-z.im, z.re});
  return {w.im, -w.re};
}

Complex pow(Complex z, Complex w) {
  if (w.re == 0 && w.im == 0)
    return {1, 0};
  if (z.im == 0 && w.im == 0 && z.re > 0)
    return {teval_pow(z.re, w.re), 0};
  if (z.re == 0 && z.im == 0 && !has_nan(w))
    return w.im == 0 && w.re > 0 ? Complex{0, 0} : Complex{kNaN, kNaN};
  return exp(multiply(w, log(z)));
}

// Lexicographic order of (real, imaginary); comparisons with a NaN part
// are false except !=.
bool compare(Op op, Complex a, Complex b) {
  const bool less = a.re < b.re || (a.re == b.re && a.im < b.im);
  const bool equal = a.re == b.re && a.im == b.im;
  const bool greater = a.re > b.re || (a.re == b.re && a.im > b.im);
  switch (op) {
  case Op::Lt:
    return less;
  case Op::Le:
    return less || equal;
  case Op::Gt:
    return greater;
  case Op::Ge:
    return greater || equal;
  case Op::Eq:
    return equal;
  case Op::Ne:
    return !equal;
  default:
    break;
  }
  TEVAL_UNREACHABLE("not a comparison");
}

} // namespace

Scalar complex_result(DType t, Complex z) {
  return Scalar::of_complex(t, z.re, z.im);
}

Complex complex_expm1(Complex z) {
  const double x = z.re, y = z.im;
  if (y == 0)
    return {teval_expm1(x), y};
  const double half = teval_sin(y / 2);
  return {teval_expm1(x) * teval_cos(y) - 2 * half * half, teval_exp(x) * teval_sin(y)};
}

Complex complex_log1p(Complex z) {
  const double x = z.re, y = z.im;
  if (y == 0 && x >= -1)
    return {teval_log1p(x), y};
  const double arg = teval_atan2(y, 1 + x);
  const double v = x * (2 + x) + y * y; // |1 + z|^2 - 1
  if (std::isfinite(v) && std::fabs(v) < 0.5)
    return {0.5 * teval_log1p(v), arg};
  return {log({1 + x, y}).re, arg};
}

Complex complex_cbrt(Complex z) {
  const double theta = teval_atan2(z.im, z.re) / 3;
  const double r = teval_cbrt(magnitude(z));
  return {r * teval_cos(theta), r * teval_sin(theta)};
}

Complex complex_atan2(Complex y, Complex x) {
  const Complex numerator{x.re - y.im, x.im + y.re}; // x + iy
  const Complex xx = multiply(x, x), yy = multiply(y, y);
  const Complex l = log(divide(numerator, sqrt({xx.re + yy.re, xx.im + yy.im})));
  return {l.im, -l.re}; // -i l
}

Complex complex_sign(Complex z) {
  if (has_nan(z))
    return {kNaN, kNaN};
  if (z.re == 0 && z.im == 0)
    return {0, 0};
  const double r = magnitude(z);
  if (std::isinf(r)) // the direction of the infinite parts
    return divide({std::isinf(z.re) ? std::copysign(1.0, z.re) : 0,
                   std::isinf(z.im) ? std::copysign(1.0, z.im) : 0},
                  {magnitude({std::isinf(z.re) ? 1.0 : 0, std::isinf(z.im) ? 1.0 : 0}), 0});
  return {z.re / r, z.im / r};
}

Scalar complex_apply(Op op, const Scalar* args, DType result) {
  const DType t = args[0].dtype;
  const DType part = complex_part(t);
  const Complex a = of(args[0]);
  auto r = [&](double v) { return round_float(part, v); };
  switch (op) {
  case Op::Neg:
    return Scalar::of_complex(t, -a.re, -a.im);
  case Op::Abs:
    return Scalar::of_float(result, magnitude(a));
  case Op::Exp:
    return complex_result(t, exp(a));
  case Op::Log:
    return complex_result(t, log(a));
  case Op::Sqrt:
    return complex_result(t, sqrt(a));
  case Op::Rsqrt:
    return complex_result(t, divide({1, 0}, sqrt(a)));
  case Op::Sin:
    return complex_result(t, sin(a));
  case Op::Cos:
    return complex_result(t, cos(a));
  case Op::Tan:
    return complex_result(t, tan(a));
  case Op::Tanh:
    return complex_result(t, tanh(a));
  case Op::Sinh: { // -i sin(iz)
    const Complex v = sin({-a.im, a.re});
    return complex_result(t, {v.im, -v.re});
  }
  case Op::Cosh: // cos(iz)
    return complex_result(t, cos({-a.im, a.re}));
  case Op::Asin:
    return complex_result(t, asin(a));
  case Op::Acos:
    return complex_result(t, acos(a));
  case Op::Atan:
    return complex_result(t, rotated(atanh, a));
  case Op::Asinh:
    return complex_result(t, rotated(asin, a));
  case Op::Acosh:
    return complex_result(t, acosh(a));
  case Op::Atanh:
    return complex_result(t, atanh(a));
  case Op::Sigmoid: {
    Complex e = exp({-a.re, -a.im});
    return complex_result(t, divide({1, 0}, {1 + e.re, e.im}));
  }
  default:
    break;
  }
  const Complex b = of(args[1]);
  switch (op) {
  case Op::Add:
    return Scalar::of_complex(t, a.re + b.re, a.im + b.im);
  case Op::Sub:
    return Scalar::of_complex(t, a.re - b.re, a.im - b.im);
  case Op::Mul: // each product, sum and difference rounded to the parts
    return Scalar::of_complex(t, r(r(a.re * b.re) - r(a.im * b.im)),
                              r(r(a.re * b.im) + r(a.im * b.re)));
  case Op::Div:
    return complex_result(t, divide(a, b));
  case Op::Pow:
    return complex_result(t, pow(a, b));
  case Op::Max:
  case Op::Min:
    // Lexicographic; an operand with a NaN part is the result.
    if (has_nan(a) || has_nan(b))
      return has_nan(a) ? args[0] : args[1];
    return compare(op == Op::Max ? Op::Ge : Op::Le, a, b) ? args[0] : args[1];
  case Op::Lt:
  case Op::Le:
  case Op::Gt:
  case Op::Ge:
  case Op::Eq:
  case Op::Ne:
    return Scalar::of_int(result, compare(op, a, b));
  case Op::Same:
    return Scalar::of_int(result, identical(args[0], args[1]));
  default:
    break;
  }
  TEVAL_UNREACHABLE("no complex meaning for " + std::string(spelling(op)));
}

} // namespace teval::core
