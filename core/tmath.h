/* teval's math library: the one definition of every math function a
   program can call, compiled from one set of C sources (core/tmath/) for the
   interpreter, the host JIT and the Hexagon DSP runtime, so all engines
   give the same bits. The float64 functions are computed with
   double-double intermediates and rounded once (measured errors in
   docs/SEMANTICS.md); the float32 functions are the float64 function
   rounded to float. Freestanding: no C library, no global state. */
#ifndef TEVAL_CORE_TMATH_H
#define TEVAL_CORE_TMATH_H

#ifdef __cplusplus
extern "C" {
#endif

#define TEVAL_TMATH_UNARY(F) F(exp) TEVAL_TMATH_ROUNDED(F)
/* The functions whose float32 version is computed as the float64 function
   rounded to float; teval_expf gives the same bits by a faster way
   (exp_log.c), checked on every float by `scripts/dev exhaustive-math`.
   Kept as written: clang-format reflows the list differently on each run. */
/* clang-format off */
#define TEVAL_TMATH_ROUNDED(F)                                                                     \
  F(log) F(sin) F(cos) F(tan) F(asin) F(acos) F(atan) F(sinh) F(cosh) F(tanh) F(erf) F(erfc)       \
  F(sqrt) F(expm1) F(log1p) F(cbrt) F(asinh) F(acosh) F(atanh)
/* clang-format on */

#define TEVAL_TMATH_DECLARE(name)                                                                  \
  double teval_##name(double x);                                                                   \
  float teval_##name##f(float x);
TEVAL_TMATH_UNARY(TEVAL_TMATH_DECLARE)
#undef TEVAL_TMATH_DECLARE

double teval_pow(double x, double y);
float teval_powf(float x, float y);
/* The remainder of x / y with the sign of x, exact (C's fmod). */
double teval_fmod(double x, double y);
/* The angle of (x, y) (C's atan2(y, x), with its special values),
   computed in double-double and rounded once; the float32 one rounded from
   it, as powf. expm1, log1p, cbrt (the real cube root) and the inverse
   hyperbolic functions are in TEVAL_TMATH_ROUNDED. */
double teval_atan2(double y, double x);
float teval_atan2f(float y, float x);
/* The inverse of erf on [-1, 1] (CHLO's erf_inv; ±inf at ±1, NaN beyond),
   within an ulp; only the interpreter's native references call it. */
double teval_erf_inv(double x);
/* log |Gamma(x)| (CHLO's lgamma; +inf at 0, the negative integers and
   ±inf), in double-double where it cancels; host only (gamma.c), for the
   interpreter's native references. */
double teval_lgamma(double x);
/* The logarithmic derivative of Gamma (CHLO's digamma); -inf at +0, +inf
   at -0 and +inf, NaN at the negative integers and -inf; host only
   (gamma.c). */
double teval_digamma(double x);
/* The Hurwitz zeta function sum_n (q + n)^-x (CHLO's zeta): the first
   terms summed, then the Euler-Maclaurin series, in double-double; +inf at
   x = 1, NaN below; for q <= 0 defined at integer x only, its poles at
   q = 0, -1, ... +inf for even x and NaN for odd (as XLA's expansion);
   NaN below q = -2^22. Host only (zeta.c). */
double teval_zeta(double x, double q);
/* The n-th derivative of digamma (CHLO's polygamma), n a natural number
   (else NaN): digamma for n = 0, else (-1)^(n + 1) n! zeta(n + 1, x).
   Host only (zeta.c). */
double teval_polygamma(double n, double x);
/* e^-|x| I1(x), the exponentially scaled modified Bessel function of the
   first kind of order 1 (CHLO's bessel_i1e): its power series up to |x| =
   32, the asymptotic series beyond. Host only (zeta.c). */
double teval_bessel_i1e(double x);

/* The constants of teval_expf's fast path (exp_log.c), for code generators
   that emit the same operations on vectors (jit/vector_math.cpp): x times
   inv_ln2_32 rounded to the nearest integer n, r = (x - n ln2_hi_32) -
   n ln2_lo_32, e^r - 1 from taylor[] (1/2!, ..., 1/6!) and 2^((n mod 32)/32)
   from exp2_j32[]. */
struct teval_expf_constants {
  double inv_ln2_32, ln2_hi_32, ln2_lo_32;
  double taylor[5];
  double exp2_j32[32];
};
extern const struct teval_expf_constants teval_expf_constants;

#ifdef __cplusplus
}
#endif

#endif
