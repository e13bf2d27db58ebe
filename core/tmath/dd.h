/* The internals of teval's math library (the C files of core/tmath/), shared by its
   parts: double-double arithmetic, bit access, the constants, and the
   exp/log kernels the other functions build on.

   Every float64 function reduces its argument exactly or in double-double
   (a value hi + lo with |lo| <= ulp(hi) / 2), evaluates a truncated Taylor
   series or continued fraction whose truncation error is below 2^-57 of the
   result, keeps the leading terms in double-double, and rounds once at the
   end. It must be compiled without floating-point contraction
   (-ffp-contract=off) and without fast-math: every operation here is an IEEE
   operation on doubles, so every target computes the same bits. The
   constants are hexadecimal floats of mathematical constants (ln 2, pi / 2,
   2 / pi's bits, atan(j / 8), erfcx(1 / 2 + j / 8)) rounded to double or
   split into double-doubles. */
#ifndef TEVAL_CORE_TMATH_DD_H
#define TEVAL_CORE_TMATH_DD_H

#include "core/tmath.h"

#include <stdint.h>

typedef struct {
  double hi, lo;
} dd;

static inline uint64_t bits_of(double x) {
  union {
    double d;
    uint64_t u;
  } v;
  v.d = x;
  return v.u;
}

static inline double from_bits(uint64_t u) {
  union {
    uint64_t u;
    double d;
  } v;
  v.u = u;
  return v.d;
}

static const double INF = __builtin_inf();

static inline int is_nan(double x) {
  return x != x;
}

static inline double abs_of(double x) {
  return from_bits(bits_of(x) & ~(1ull << 63));
}

static inline int sign_bit(double x) {
  return (int)(bits_of(x) >> 63);
}

/* v with the sign of x: an odd function's value at x from its value at |x|,
   fmod's from the remainder of |x|. */
static inline double with_sign_of(double x, double v) {
  return sign_bit(x) ? -v : v;
}

static inline double quiet_nan(void) {
  return from_bits(0x7ff8000000000000ull);
}

/* 2^k for -1022 <= k <= 1023. */
static inline double pow2(int k) {
  return from_bits((uint64_t)(k + 1023) << 52);
}

/* The nearest integer to x (|x| < 2^30), ties away from zero. */
static inline int nearest_int(double x) {
  return (int)(x >= 0 ? x + 0.5 : x - 0.5);
}

/* --- double-double arithmetic (error-free transformations) ------------- */

static inline dd two_sum(double a, double b) {
  double s = a + b;
  double bb = s - a;
  dd r = {s, (a - (s - bb)) + (b - bb)};
  return r;
}

/* Requires |a| >= |b| or a == 0. */
static inline dd fast_two_sum(double a, double b) {
  double s = a + b;
  dd r = {s, b - (s - a)};
  return r;
}

/* Veltkamp's split; |a| < 2^995. */
static inline void split(double a, double* h, double* l) {
  double c = 134217729.0 * a; /* 2^27 + 1 */
  double big = c - a;
  *h = c - big;
  *l = a - *h;
}

/* Dekker's exact product. */
static inline dd two_prod(double a, double b) {
  double ah, al, bh, bl;
  split(a, &ah, &al);
  split(b, &bh, &bl);
  double p = a * b;
  dd r = {p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
  return r;
}

static inline dd dd_add(dd a, dd b) {
  dd s = two_sum(a.hi, b.hi);
  return fast_two_sum(s.hi, s.lo + (a.lo + b.lo));
}

static inline dd dd_neg(dd a) {
  dd r = {-a.hi, -a.lo};
  return r;
}

static inline dd dd_mul(dd a, dd b) {
  dd p = two_prod(a.hi, b.hi);
  return fast_two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

static inline dd dd_div(dd a, dd b) {
  double q = a.hi / b.hi;
  dd p = two_prod(q, b.hi);
  double rest = (((a.hi - p.hi) - p.lo) + a.lo) - q * b.lo;
  return fast_two_sum(q, rest / b.hi);
}

static inline dd dd_sqrt(dd a) {
  double s = teval_sqrt(a.hi);
  if (s == 0)
    return a;
  dd p = two_prod(s, s);
  return fast_two_sum(s, (((a.hi - p.hi) - p.lo) + a.lo) / (2 * s));
}

static inline dd dd_of(double x) {
  dd r = {x, 0};
  return r;
}

static inline dd dd_scale(dd a, double power_of_two) {
  dd r = {a.hi * power_of_two, a.lo * power_of_two};
  return r;
}

/* Horner's rule over c[0] + c[1] x + ... + c[n - 1] x^(n - 1). */
static inline double poly(double x, const double* c, int n) {
  double r = c[n - 1];
  for (int i = n - 2; i >= 0; --i)
    r = c[i] + x * r;
  return r;
}

/* --- constants ---------------------------------------------------------- */

/* ln 2 = LN2_HI + LN2_LO + LN2_LO2; LN2_HI has 32 significant bits, so
   k * LN2_HI is exact for |k| < 2^21. */
static const double LN2_HI = 0x1.62e42fee00000p-1;
static const double LN2_LO = 0x1.a39ef35793c76p-33;
static const double LN2_LO2 = 0x1.cc01f97b57a08p-87;
static const double INV_LN2 = 0x1.71547652b82fep+0;
static const dd PIO2 = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54};
static const dd PI = {0x1.921fb54442d18p+1, 0x1.1a62633145c07p-53};
static const dd TWO_OVER_SQRTPI = {0x1.20dd750429b6dp+0, 0x1.1ae3a914fed80p-56};
static const dd INV_SQRTPI = {0x1.20dd750429b6dp-1, 0x1.1ae3a914fed80p-57};

/* --- the exp and log kernels (exp_log.c) -------------------------------- */

/* e^z = y * 2^k with y in [0.7, 1.42] as a double-double; |z.hi| < 2^20. */
dd teval_tm_exp_parts(dd z, int* k);
/* y * 2^k rounded once where the result is normal (twice where it is
   subnormal), overflowing to infinity. */
double teval_tm_finish(dd y, int k);
/* e^z * 2^extra, rounded once. */
double teval_tm_exp_scaled(dd z, int extra);
/* e^x - 1 as a double-double, |x| <= 64. */
dd teval_tm_expm1(double x);
/* log(x) for finite x > 0 as a double-double, within 2^-66 of the result. */
dd teval_tm_log(double x);
/* log Gamma(x) for x > 0 as a double-double (gamma.c). */
dd teval_tm_lgamma(dd x);

#endif
