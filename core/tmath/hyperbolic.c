/* teval's math library: sinh, cosh, tanh, erf, erfc, and the float32 functions (see core/tmath.h;
   the method in dd.h). */
#include "core/tmath/dd.h"

/* --- sinh, cosh, tanh ------------------------------------------------------ */

double teval_sinh(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  double v;
  if (ax < 0x1p-28)
    return x;
  if (ax > 22) {
    v = teval_tm_exp_scaled(dd_of(ax), -1);
  } else {
    /* (t + t / (t + 1)) / 2 with t = e^|x| - 1 */
    dd t = teval_tm_expm1(ax);
    dd s = dd_add(t, dd_div(t, dd_add(t, dd_of(1))));
    v = 0.5 * (s.hi + s.lo);
  }
  return with_sign_of(x, v);
}

double teval_cosh(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  if (ax < 0x1p-27)
    return 1;
  if (ax > 22)
    return teval_tm_exp_scaled(dd_of(ax), -1);
  dd t = teval_tm_expm1(ax);
  dd e = dd_add(t, dd_of(1));
  dd s;
  if (ax < 0.35) /* 1 + t^2 / (2 (1 + t)) */
    s = dd_add(dd_of(1), dd_scale(dd_div(dd_mul(t, t), e), 0.5));
  else
    s = dd_scale(dd_add(e, dd_div(dd_of(1), e)), 0.5);
  return s.hi + s.lo;
}

double teval_tanh(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  double v;
  if (ax < 0x1p-28)
    return x;
  if (ax > 22) {
    v = 1;
  } else { /* t / (t + 2) with t = e^2|x| - 1 */
    dd t = teval_tm_expm1(2 * ax);
    dd r = dd_div(t, dd_add(t, dd_of(2)));
    v = r.hi + r.lo;
  }
  return with_sign_of(x, v);
}

/* --- asinh, acosh, atanh ---------------------------------------------------- */

/* log(1 + u) for a double-double u > -1 as a double-double: 1 + u = v.hi +
   v.lo, log(v.hi) plus log(1 + v.lo / v.hi) = r - r^2 / 2 (|r| <= 2^-52). */
static dd log1p_dd(dd u) {
  dd v = two_sum(1, u.hi);
  v = fast_two_sum(v.hi, v.lo + u.lo);
  double r = v.lo / v.hi;
  return dd_add(teval_tm_log(v.hi), dd_of(r - r * r * 0.5));
}

/* log(2 |x|) for |x| >= 2^28, where the other terms are below 2^-58 of it. */
static double log_twice(double ax) {
  static const dd LN2 = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};
  dd r = dd_add(teval_tm_log(ax), LN2);
  return r.hi + r.lo;
}

/* asinh |x| = log(1 + |x| + x^2 / (1 + sqrt(1 + x^2))), odd. */
double teval_asinh(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  if (ax < 0x1p-28 || ax == INF)
    return x; /* x - x^3 / 6 rounds to x */
  if (ax > 0x1p28)
    return with_sign_of(x, log_twice(ax));
  dd x2 = two_prod(ax, ax);
  dd root = dd_sqrt(dd_add(dd_of(1), x2));
  dd u = dd_add(dd_of(ax), dd_div(x2, dd_add(dd_of(1), root)));
  dd r = log1p_dd(u);
  return with_sign_of(x, r.hi + r.lo);
}

/* acosh x = log(1 + t + sqrt(t (2 + t))) with t = x - 1 (exact below
   2^53); NaN below 1. */
double teval_acosh(double x) {
  if (is_nan(x))
    return x + x;
  if (x < 1)
    return quiet_nan();
  if (x == INF)
    return x;
  if (x > 0x1p28)
    return log_twice(x);
  double t = x - 1;
  dd root = dd_sqrt(dd_mul(dd_of(t), two_sum(2, t)));
  dd r = log1p_dd(dd_add(dd_of(t), root));
  return r.hi + r.lo;
}

/* atanh |x| = log(1 + 2 |x| / (1 - |x|)) / 2, odd; +-infinity at +-1, NaN
   beyond. */
double teval_atanh(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  if (ax > 1)
    return quiet_nan();
  if (ax == 1)
    return with_sign_of(x, INF);
  if (ax < 0x1p-28)
    return x; /* x + x^3 / 3 rounds to x */
  dd r = log1p_dd(dd_div(dd_of(2 * ax), two_sum(1, -ax)));
  return with_sign_of(x, 0.5 * (r.hi + r.lo));
}

/* --- erf, erfc -------------------------------------------------------------- */

/* erf(x) for |x| <= 1 as a double-double: 2/sqrt(pi) times the alternating
   Taylor series x - x^3/3 + x^5/10 - ... (truncated past x^41 / (20! 41)). */
static dd erf_series(double x) {
  static const double c[] = {
      -0x1.812746b0379e7p-2,  0x1.ce2f21a042be2p-4,  -0x1.b82ce31288b51p-6,  0x1.565bcd0e6a53fp-8,
      -0x1.c02db40040b86p-11, 0x1.f9a326f9b89b7p-14, -0x1.f4d25c3e0c2ebp-17, 0x1.b9e6c9dc651a3p-20,
      -0x1.5f742ec43e71ap-23, 0x1.fcc5720624c1cp-27, -0x1.51d7181c5d36dp-30, 0x1.9e6ad5e55a730p-34,
      -0x1.d8453cb0c46eap-38, 0x1.f683ae4a97007p-42, -0x1.f56f071a885cfp-46, 0x1.d70b3537f4765p-50,
      -0x1.a2007af3447f6p-54, 0x1.5f7919bc67b8cp-58, -0x1.18cc8a061c479p-62, 0x1.ab5cc31489f29p-67};
  double x2 = x * x;
  dd lead = two_prod(x, TWO_OVER_SQRTPI.hi);
  return fast_two_sum(lead.hi, lead.lo + x * (TWO_OVER_SQRTPI.lo + x2 * poly(x2, c, 20)));
}

/* erfcx(1/2 + j/8) = e^(x^2) erfc(x), j = 0 ... 20. */
static const dd ERFCX_TABLE[] = {
    {0x1.3b3bc3c98b0f3p-1, -0x1.aa856b121880fp-56}, {0x1.1d16b5809eaf6p-1, 0x1.043e5f49b4044p-55},
    {0x1.038d54ea3d834p-1, -0x1.ec2134d851665p-55}, {0x1.db747ee409ac5p-2, -0x1.55a083acba9f3p-56},
    {0x1.b5d8780f956b2p-2, 0x1.825447f231a67p-58},  {0x1.9531e09b149b5p-2, -0x1.aa513235e9c37p-58},
    {0x1.78a692138767ap-2, 0x1.4797400f19192p-63},  {0x1.5f88f52f3c76bp-2, -0x1.b7eb97a02d0e7p-57},
    {0x1.494daffa2ad68p-2, 0x1.39bdf0f0d8e21p-56},  {0x1.3583f6644327bp-2, -0x1.88eb8ebfdccaep-56},
    {0x1.23cfc2f1dc7e0p-2, 0x1.3b1040eb318c2p-57},  {0x1.13e5743b60480p-2, 0x1.ca1dfca5d5331p-56},
    {0x1.058671b52c776p-2, -0x1.3b83c701df899p-58}, {0x1.f0fd28fdc20abp-3, 0x1.46db6c427dad1p-57},
    {0x1.d94446d627932p-3, -0x1.a8198a8216449p-58}, {0x1.c3987d04d0b98p-3, -0x1.f0a1b80de2477p-57},
    {0x1.afbb3f3b7343bp-3, -0x1.9f40bca142466p-58}, {0x1.9d7738e1f4db7p-3, 0x1.e59221b625876p-59},
    {0x1.8c9eb68ff27d7p-3, -0x1.bb4e763c64a35p-57}, {0x1.7d0a5e9dd5710p-3, 0x1.1e8a33dae4580p-57},
    {0x1.6e9827d229d2dp-3, -0x1.90753de713593p-58}};

/* erfcx(x) = e^(x^2) erfc(x) for x >= 1/2 as a double-double. Below 3:
   the Taylor series about the nearest 1/2 + j/8, whose coefficients follow
   from y' = 2xy - 2/sqrt(pi): t[n+1] = (2 x0 t[n] + 2 t[n-1]) / (n + 1).
   From 3: Laplace's continued fraction 1 / (sqrt(pi) (x + (1/2) / (x + 1 /
   (x + (3/2) / ...)))), 45 levels deep, the last level in double-double. */
static dd erfcx(double x) {
  if (x < 3) {
    int j = nearest_int((x - 0.5) * 8);
    double x0 = 0.5 + j * 0.125;
    double h = x - x0; /* exact */
    dd t0 = ERFCX_TABLE[j];
    dd t1 = dd_add(dd_mul(dd_of(2 * x0), t0), dd_neg(TWO_OVER_SQRTPI));
    double prev = t1.hi, cur = (2 * x0 * t1.hi + 2 * t0.hi) / 2;
    double tail = 0, hn = h * h;
    for (int n = 2; n <= 18; ++n) {
      tail += cur * hn;
      double next = (2 * x0 * cur + 2 * prev) / (n + 1);
      prev = cur;
      cur = next;
      hn *= h;
    }
    dd lin = dd_mul(t1, dd_of(h));
    return dd_add(t0, fast_two_sum(lin.hi, lin.lo + tail));
  }
  double f = x;
  for (int n = 45; n >= 2; --n)
    f = x + (0.5 * n) / f;
  dd f0 = two_sum(x, 0.5 / f);
  return dd_div(INV_SQRTPI, f0);
}

/* erfc(x) for 1/2 <= x < 27.5 as y * 2^k: e^(-x^2) erfcx(x). */
static dd erfc_parts(double x, int* k) {
  dd sq = two_prod(x, x);
  dd e = teval_tm_exp_parts(dd_neg(sq), k);
  return dd_mul(e, erfcx(x));
}

double teval_erf(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  double v;
  if (ax < 0x1p-28)
    return x + x * (TWO_OVER_SQRTPI.hi - 1);
  if (ax <= 1) {
    dd r = erf_series(ax);
    v = r.hi + r.lo;
  } else if (ax >= 6) {
    v = 1;
  } else {
    int k;
    dd c = erfc_parts(ax, &k);
    c = dd_scale(c, pow2(k));
    dd r = dd_add(dd_of(1), dd_neg(c));
    v = r.hi + r.lo;
  }
  return with_sign_of(x, v);
}

double teval_erfc(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  if (ax <= 0.5) {
    dd r = dd_add(dd_of(1), dd_neg(erf_series(x)));
    return r.hi + r.lo;
  }
  if (x > 0) {
    if (x >= 27.5)
      return 0;
    int k;
    dd y = erfc_parts(x, &k);
    return teval_tm_finish(y, k);
  }
  if (x <= -6)
    return 2;
  int k;
  dd c = erfc_parts(ax, &k);
  c = dd_scale(c, pow2(k));
  dd r = dd_add(dd_of(2), dd_neg(c));
  return r.hi + r.lo;
}

/* --- erf_inv ------------------------------------------------------------- */

/* The y with erf(y) = x, by Halley's iteration on a double-double
   residual: erf(y) - |x| below |x| = 0.5 (y < 0.477, from the series), and
   erfc(y) - (1 - |x|) above, where 1 - |x| is exact and erfc is accurate
   relative to itself, so that the root is found to well under an ulp. */
double teval_erf_inv(double x) {
  if (is_nan(x))
    return x + x;
  const double a = abs_of(x);
  if (a > 1)
    return quiet_nan();
  if (a == 1)
    return with_sign_of(x, INF);
  if (a == 0)
    return x;
  const int tail = a >= 0.5;
  const double r = 1 - a; /* exact for a >= 0.5 */
  double y;
  if (!tail) {
    const double sqrt_pi = PI.hi * INV_SQRTPI.hi;
    y = sqrt_pi / 2 * a * (1 + PI.hi / 12 * a * a); /* the series' first two terms */
  } else {
    const double t = teval_sqrt(-teval_log(r));
    const double s =
        -teval_log(r) - teval_log(t / INV_SQRTPI.hi); /* erfc(y) ~ e^-y^2/(y sqrt(pi)) */
    y = teval_sqrt(s > 0.2 ? s : 0.2);
  }
  for (int i = 0; i < 12; ++i) {
    dd residual;
    if (tail) {
      dd c;
      if (y <= 0.5) {
        c = dd_add(dd_of(1), dd_neg(erf_series(y)));
      } else {
        int k; /* set by erfc_parts before pow2 reads it */
        c = erfc_parts(y, &k);
        c = dd_scale(c, pow2(k));
      }
      residual = dd_neg(dd_add(c, dd_of(-r))); /* r - erfc(y): erfc falls as erf rises */
    } else {
      residual = dd_add(erf_series(y), dd_of(-a));
    }
    const double slope = TWO_OVER_SQRTPI.hi * teval_exp(-y * y);
    const double u = (residual.hi + residual.lo) / slope;
    const double step = u / (1 + y * u);
    y -= step;
    if (abs_of(step) <= 0x1p-60 * y)
      break;
  }
  return with_sign_of(x, y);
}

/* --- float32: the float64 function, rounded ----------------------------- */

#define TEVAL_TMATH_FLOAT(name)                                                                    \
  float teval_##name##f(float x) {                                                                 \
    return (float)teval_##name((double)x);                                                         \
  }
TEVAL_TMATH_ROUNDED(TEVAL_TMATH_FLOAT)
#undef TEVAL_TMATH_FLOAT

float teval_powf(float x, float y) {
  return (float)teval_pow((double)x, (double)y);
}

float teval_atan2f(float y, float x) {
  return (float)teval_atan2((double)y, (double)x);
}
