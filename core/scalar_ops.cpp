// The arithmetic of the ground truth (see scalar_ops.h).
#include "core/scalar_ops.h"

#include "core/complex.h"
#include "core/error.h"
#include "core/format.h"
#include "core/tmath.h"

#include <cmath>
#include <type_traits>

namespace teval::core {

namespace {

[[noreturn]] void fault(std::string message) {
  throw Fault{std::move(message)};
}

Scalar int_result(DType t, int64_t v) {
  return Scalar::of_int(t, v);
}
Scalar float_result(DType t, double v) {
  return Scalar::of_float(t, v);
}
Scalar truth(DType t, bool b) {
  return core::constant(t, b ? 1 : 0);
}

// An integer's exact value as text (int64 and uint64 values, and the
// few beyond both that messages show).
std::string text(__int128 v) {
  if (v < 0)
    return "-" + text(-v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  return digits;
}

// A wrapped result, or a Fault when the overflow policy traps and wrapping
// changed the value.
int64_t checked(DType t, int64_t wrapped, bool overflowed, core::Overflow policy, const char* op,
                __int128 a, __int128 b) {
  if (policy == core::Overflow::Trap && overflowed)
    fault("integer overflow in index arithmetic: " + text(a) + " " + op + " " + text(b) +
          " does not fit " + core::to_string(t));
  return wrapped;
}

// Exact results in 128 bits decide whether wrapping changed the value.
bool fits(DType t, __int128 v) {
  return v >= core::int_min_wide(t) && v <= core::int_max_wide(t);
}

// Whether a * b fits t; the product of two values below 2^64 in magnitude
// may not fit a signed 128-bit integer, so it is formed unsigned.
bool product_fits(DType t, __int128 a, __int128 b) {
  using U = unsigned __int128;
  U magnitude = U(a < 0 ? -a : a) * U(b < 0 ? -b : b);
  if (magnitude > U(1) << 64)
    return false;
  auto m = static_cast<__int128>(magnitude);
  return fits(t, (a < 0) != (b < 0) ? -m : m);
}

// \p v's low 64 bits wrapped to t (C++20 converts modulo 2^64).
int64_t low_bits(DType t, __int128 v) {
  return core::wrap_int(t, static_cast<int64_t>(v));
}

// The integer operators on exact values (Scalar::int_value: uint64 values
// from 2^63 up are positive here), wrapped to t.
Scalar int_op(Op op, DType t, __int128 a, __int128 b, core::Overflow policy) {
  switch (op) {
  case Op::Add:
    return int_result(t, checked(t, low_bits(t, a + b), !fits(t, a + b), policy, "+", a, b));
  case Op::Sub:
    return int_result(t, checked(t, low_bits(t, a - b), !fits(t, a - b), policy, "-", a, b));
  case Op::Mul:
    return int_result(
        t, checked(t, core::wrapping_mul(t, static_cast<int64_t>(a), static_cast<int64_t>(b)),
                   !product_fits(t, a, b), policy, "*", a, b));
  case Op::Div: {
    if (b == 0)
      fault("integer division by zero: " + text(a) + " / 0");
    // Truncating; int_min / -1 wraps to int_min.
    __int128 q = a / b;
    return int_result(t, checked(t, low_bits(t, q), !fits(t, q), policy, "/", a, b));
  }
  case Op::Mod: {
    if (b == 0)
      fault("integer modulo by zero: " + text(a) + " % 0");
    __int128 m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) // floor: the result takes the divisor's sign
      m += b;
    return int_result(t, low_bits(t, m));
  }
  case Op::ExactDiv: {
    if (b == 0)
      fault("division by zero in an index expression: " + text(a) + " / 0");
    __int128 q = a / b;
    if (q * b != a)
      throw Inexact{text(a) + " / " + text(b) + " is not an integer"};
    return int_result(t, checked(t, low_bits(t, q), !fits(t, q), policy, "/", a, b));
  }
  case Op::Max:
    return int_result(t, low_bits(t, a > b ? a : b));
  case Op::Min:
    return int_result(t, low_bits(t, a < b ? a : b));
  case Op::Shl:
  case Op::Shr: {
    if (b < 0 || b >= core::bit_width(t))
      fault("shift amount " + text(b) + " is out of range for " + core::to_string(t) + " (0 to " +
            std::to_string(core::bit_width(t) - 1) + ")");
    const int n = static_cast<int>(b);
    if (op == Op::Shl)
      return int_result(t, static_cast<int64_t>(static_cast<uint64_t>(a) << n));
    return int_result(t, low_bits(t, a >> n)); // arithmetic for signed types
  }
  default:
    break;
  }
  TEVAL_UNREACHABLE("not an integer binary operator: " + std::string(core::spelling(op)));
}

// IEEE maximum/minimum: NaN if either is NaN; +0 is above -0.
double float_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double float_min(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::nan("");
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

double floor_mod(double a, double b) {
  double r = teval_fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

// teval's math function of precision F: the float64 one for double, the
// float32 one for float.
template <class F> auto pick(double (*wide)(double), float (*narrow)(float)) {
  if constexpr (std::is_same_v<F, double>)
    return wide;
  else
    return narrow;
}

// A math function in the precision of its argument's dtype, from teval's
// math library (core/tmath.h), which every engine calls. float16 and
// bfloat16 are computed with the float32 function; the caller rounds.
template <class F> F math(Op op, F x, F y) {
  const F one = 1;
  switch (op) {
  case Op::Exp:
    return pick<F>(teval_exp, teval_expf)(x);
  case Op::Log:
    return pick<F>(teval_log, teval_logf)(x);
  case Op::Sqrt:
    return std::sqrt(x); // correctly rounded, as teval_sqrt
  case Op::Rsqrt:
    return one / std::sqrt(x);
  case Op::Sin:
    return pick<F>(teval_sin, teval_sinf)(x);
  case Op::Cos:
    return pick<F>(teval_cos, teval_cosf)(x);
  case Op::Tan:
    return pick<F>(teval_tan, teval_tanf)(x);
  case Op::Asin:
    return pick<F>(teval_asin, teval_asinf)(x);
  case Op::Acos:
    return pick<F>(teval_acos, teval_acosf)(x);
  case Op::Atan:
    return pick<F>(teval_atan, teval_atanf)(x);
  case Op::Sinh:
    return pick<F>(teval_sinh, teval_sinhf)(x);
  case Op::Cosh:
    return pick<F>(teval_cosh, teval_coshf)(x);
  case Op::Tanh:
    return pick<F>(teval_tanh, teval_tanhf)(x);
  case Op::Erf:
    return pick<F>(teval_erf, teval_erff)(x);
  case Op::Erfc:
    return pick<F>(teval_erfc, teval_erfcf)(x);
  case Op::Expm1:
    return pick<F>(teval_expm1, teval_expm1f)(x);
  case Op::Log1p:
    return pick<F>(teval_log1p, teval_log1pf)(x);
  case Op::Cbrt:
    return pick<F>(teval_cbrt, teval_cbrtf)(x);
  case Op::Asinh:
    return pick<F>(teval_asinh, teval_asinhf)(x);
  case Op::Acosh:
    return pick<F>(teval_acosh, teval_acoshf)(x);
  case Op::Atanh:
    return pick<F>(teval_atanh, teval_atanhf)(x);
  case Op::NormCdf:
    return F(0.5) * pick<F>(teval_erfc, teval_erfcf)(-x * F(0.70710678118654752440));
  case Op::Sigmoid:
    return one / (one + pick<F>(teval_exp, teval_expf)(-x));
  case Op::Frac:
    return x - std::floor(x);
  case Op::RFloor:
    return std::floor(x);
  case Op::RCeil:
    return std::ceil(x);
  case Op::Pow:
    if constexpr (std::is_same_v<F, double>)
      return teval_pow(x, y);
    else
      return teval_powf(x, y);
  case Op::Atan2: // x.call(`atan2`, [y]) is the angle of the point (y, x): C's atan2(x, y)
    if constexpr (std::is_same_v<F, double>)
      return teval_atan2(x, y);
    else
      return teval_atan2f(x, y);
  default:
    break;
  }
  TEVAL_UNREACHABLE("not a math function: " + std::string(core::spelling(op)));
}

Scalar float_op(Op op, DType t, double a, double b) {
  switch (op) {
  case Op::Add:
    return float_result(t, a + b);
  case Op::Sub:
    return float_result(t, a - b);
  case Op::Mul:
    return float_result(t, a * b);
  case Op::Div:
    return float_result(t, a / b);
  case Op::Mod:
    return float_result(t, floor_mod(a, b));
  case Op::Max:
    return float_result(t, float_max(a, b));
  case Op::Min:
    return float_result(t, float_min(a, b));
  default:
    break;
  }
  if (t == DType::Float64)
    return float_result(t, math<double>(op, a, b));
  return float_result(t, math<float>(op, static_cast<float>(a), static_cast<float>(b)));
}

bool compare(Op op, const Scalar& a, const Scalar& b) {
  return with_comparison(op, [&](auto cmp) -> bool {
    return core::is_float(a.dtype) ? cmp(a.f, b.f) : cmp(a.int_value(), b.int_value());
  });
}

} // namespace

Scalar apply(Op op, const Scalar* args, DType result, core::Overflow overflow) {
  const Scalar& a = args[0];
  if (core::is_complex(a.dtype))
    return core::complex_apply(op, args, result);
  switch (core::rule(op)) {
  case core::OpRule::Compare:
    if (op == Op::Same)
      return truth(result, core::identical(a, args[1]));
    return truth(result, compare(op, a, args[1]));
  case core::OpRule::Logical:
    TEVAL_UNREACHABLE("logical operators are evaluated lazily by the caller");
  case core::OpRule::FloatToInt: {
    double r = op == Op::Floor ? std::floor(a.f) : std::ceil(a.f);
    std::optional<int64_t> v = core::float_to_int(result, r);
    if (!v)
      fault(std::string(core::spelling(op)) + "(" + core::format_scalar(a) + ") does not fit " +
            core::to_string(result));
    return int_result(result, *v);
  }
  case core::OpRule::Arith:
  case core::OpRule::Integer:
  case core::OpRule::Float:
    break;
  }
  DType t = a.dtype;
  if (core::arity(op) == 1) {
    if (op == Op::Neg)
      return core::is_float(t) ? float_result(t, -a.f)
                               : int_op(Op::Sub, t, 0, a.int_value(), overflow);
    if (op == Op::Abs) {
      if (core::is_float(t))
        return float_result(t, std::fabs(a.f));
      return a.int_value() < 0 ? int_op(Op::Sub, t, 0, a.int_value(), overflow) : a;
    }
    return float_op(op, t, a.f, 0);
  }
  if (core::is_float(t))
    return float_op(op, t, a.f, args[1].f);
  return int_op(op, t, a.int_value(), args[1].int_value(), overflow);
}

Scalar cast(const Scalar& v, DType to) {
  if (v.dtype == to)
    return v;
  // StableHLO's convert: a complex value converts as its real part; a real
  // one to a complex value as its real part, the imaginary part zero.
  if (core::is_complex(v.dtype) && core::is_complex(to))
    return Scalar::of_complex(to, v.f, v.im);
  if (core::is_complex(v.dtype))
    return cast(Scalar::of_float(core::complex_part(v.dtype), v.f), to);
  if (core::is_complex(to))
    return Scalar::of_complex(to, cast(v, core::complex_part(to)).f, 0);
  if (core::is_bool(to))
    return truth(to, v.truthy());
  if (core::is_float(to))
    return core::is_float(v.dtype) ? float_result(to, v.f)
                                   : float_result(to, core::int_to_float(to, v.int_value()));
  if (!core::is_float(v.dtype))
    return int_result(to, v.i);
  std::optional<int64_t> i = core::float_to_int(to, v.f);
  if (!i)
    fault("cannot convert " + core::format_scalar(v) + " to " + core::to_string(to) +
          ": it is NaN or out of range");
  return int_result(to, *i);
}

Scalar combine(core::Aggregation a, const Scalar& acc, const Scalar& v) {
  DType t = acc.dtype;
  if (core::is_complex(t) && a != core::Aggregation::All && a != core::Aggregation::Any &&
      a != core::Aggregation::Assign) {
    const Scalar args[] = {acc, v};
    const Op op = a == core::Aggregation::Sum       ? Op::Add
                  : a == core::Aggregation::Product ? Op::Mul
                  : a == core::Aggregation::Max     ? Op::Max
                                                    : Op::Min;
    return core::complex_apply(op, args, t);
  }
  switch (a) {
  case core::Aggregation::Sum:
    return core::is_float(t) ? float_result(t, acc.f + v.f)
                             : int_result(t, core::wrapping_add(t, acc.i, v.i));
  case core::Aggregation::Product:
    return core::is_float(t) ? float_result(t, acc.f * v.f)
                             : int_result(t, core::wrapping_mul(t, acc.i, v.i));
  case core::Aggregation::Max:
    return core::is_float(t) ? float_result(t, float_max(acc.f, v.f))
                             : int_result(t, acc.int_value() > v.int_value() ? acc.i : v.i);
  case core::Aggregation::Min:
    return core::is_float(t) ? float_result(t, float_min(acc.f, v.f))
                             : int_result(t, acc.int_value() < v.int_value() ? acc.i : v.i);
  case core::Aggregation::All:
    return truth(t, acc.truthy() && v.truthy());
  case core::Aggregation::Any:
    return truth(t, acc.truthy() || v.truthy());
  case core::Aggregation::Assign:
    break;
  }
  TEVAL_UNREACHABLE("combine of an assignment");
}

} // namespace teval::core
