/* teval's math library: sqrt, exp, log, pow and fmod (see core/tmath.h; the method in
   dd.h). */
#include "core/tmath/dd.h"

/* --- sqrt: correctly rounded, digit by digit ------------------------------ */

double teval_sqrt(double x) {
  if (is_nan(x))
    return x + x;
  if (x == 0)
    return x; /* sqrt(-0) = -0 */
  if (x < 0)
    return quiet_nan();
  if (x == INF)
    return x;
  uint64_t b = bits_of(x);
  int e = (int)(b >> 52);
  uint64_t m = b & ((1ull << 52) - 1);
  if (e == 0) { /* subnormal: normalise */
    e = 1;
    while (!(m & (1ull << 52))) {
      m <<= 1;
      --e;
    }
  } else {
    m |= 1ull << 52;
  }
  e -= 1075; /* x = m * 2^e */
  if (e & 1) {
    m <<= 1;
    --e;
  }
  /* q = floor(sqrt(m * 2^54)): 54 bits, the last one the rounding bit. */
  uint64_t q = 0, r = 0;
  for (int i = 53; i >= 0; --i) {
    int pos = 2 * i - 54; /* the radicand's bits 2i+1, 2i are m's pos+1, pos */
    uint64_t two = pos >= 0 ? (m >> pos) & 3 : 0;
    r = (r << 2) | two;
    uint64_t t = (q << 2) | 1;
    q <<= 1;
    if (r >= t) {
      r -= t;
      q |= 1;
    }
  }
  uint64_t mant = q >> 1;
  if ((q & 1) && (r != 0 || (mant & 1)))
    ++mant; /* a carry into the exponent field is the right result */
  int biased = e / 2 + 1049;
  return from_bits(((uint64_t)biased << 52) + (mant - (1ull << 52)));
}

/* --- exp and expm1 ------------------------------------------------------- */

/* e^r - 1 for |r| <= 0.35, r = rh + rl, as a double-double. The series to
   r^14 / 14! leaves less than 2^-57 of the result. */
static dd expm1_reduced(double rh, double rl) {
  static const double c[] = {1.0 / 2,
                             1.0 / 6,
                             1.0 / 24,
                             1.0 / 120,
                             1.0 / 720,
                             1.0 / 5040,
                             1.0 / 40320,
                             1.0 / 362880,
                             1.0 / 3628800,
                             1.0 / 39916800,
                             1.0 / 479001600,
                             1.0 / 6227020800.0,
                             1.0 / 87178291200.0};
  double p = rh * rh * poly(rh, c, 13);
  return fast_two_sum(rh, p + (rl + rl * rh));
}

/* e^z = y * 2^k with y in [0.7, 1.42] as a double-double; |z.hi| < 2^20. */
dd teval_tm_exp_parts(dd z, int* k) {
  int n = nearest_int(z.hi * INV_LN2);
  double rh = z.hi - n * LN2_HI; /* exact */
  dd r = two_sum(rh, -n * LN2_LO);
  r = fast_two_sum(r.hi, r.lo + (z.lo - n * LN2_LO2));
  dd m = expm1_reduced(r.hi, r.lo);
  dd y = two_sum(1, m.hi);
  *k = n;
  return fast_two_sum(y.hi, y.lo + m.lo);
}

/* y * 2^k rounded once where the result is normal (twice where it is
   subnormal), overflowing to infinity. */
double teval_tm_finish(dd y, int k) {
  double v = y.hi + y.lo;
  if (k > 1023)
    return v * pow2(k - 1023) * pow2(1023);
  if (k >= -1022)
    return v * pow2(k);
  if (k < -1100)
    return 0 * v;
  return v * pow2(k + 600) * pow2(-600);
}

double teval_tm_exp_scaled(dd z, int extra) {
  if (z.hi > 1000)
    return INF;
  if (z.hi < -1000)
    return 0;
  int k;
  dd y = teval_tm_exp_parts(z, &k);
  return teval_tm_finish(y, k + extra);
}

double teval_exp(double x) {
  if (is_nan(x))
    return x + x;
  return teval_tm_exp_scaled(dd_of(x), 0);
}

/* float32 exp: (float)teval_exp(x), the same bits, about four times
   faster. Where the result is a normal float, e^x is evaluated in plain
   double arithmetic: x = n ln2/32 + r (n ln2_hi/32 is exact and so is the
   subtraction, |r| <= ln2/64), e^x = 2^(n/32) e^r with 2^(j/32) from a
   table of correctly rounded doubles and e^r - 1 from its Taylor series
   to r^6 (truncation below 2^-58). The value is within about 2 ulps of
   e^x; it decides the float unless it lies within 16 ulps of a point
   halfway between two floats, where teval_exp decides. `scripts/dev
   exhaustive-math` checks the bits against (float)teval_exp(x) for every
   one of the 2^32 floats. */
const struct teval_expf_constants teval_expf_constants = {
    32 * INV_LN2,
    LN2_HI / 32,
    (LN2_LO + LN2_LO2) / 32,
    {1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720},
    {0x1.0000000000000p+0, 0x1.059b0d3158574p+0, 0x1.0b5586cf9890fp+0, 0x1.11301d0125b51p+0,
     0x1.172b83c7d517bp+0, 0x1.1d4873168b9aap+0, 0x1.2387a6e756238p+0, 0x1.29e9df51fdee1p+0,
     0x1.306fe0a31b715p+0, 0x1.371a7373aa9cbp+0, 0x1.3dea64c123422p+0, 0x1.44e086061892dp+0,
     0x1.4bfdad5362a27p+0, 0x1.5342b569d4f82p+0, 0x1.5ab07dd485429p+0, 0x1.6247eb03a5585p+0,
     0x1.6a09e667f3bcdp+0, 0x1.71f75e8ec5f74p+0, 0x1.7a11473eb0187p+0, 0x1.82589994cce13p+0,
     0x1.8ace5422aa0dbp+0, 0x1.93737b0cdc5e5p+0, 0x1.9c49182a3f090p+0, 0x1.a5503b23e255dp+0,
     0x1.ae89f995ad3adp+0, 0x1.b7f76f2fb5e47p+0, 0x1.c199bdd85529cp+0, 0x1.cb720dcef9069p+0,
     0x1.d5818dcfba487p+0, 0x1.dfc97337b9b5fp+0, 0x1.ea4afa2a490dap+0, 0x1.f50765b6e4540p+0}};

float teval_expf(float x) {
  /* e^x is a normal float inside (-87, 88); elsewhere, NaN included, the
     float64 function decides. */
  if (!(x > -87.0f && x < 88.0f))
    return (float)teval_exp((double)x);
  const struct teval_expf_constants* k = &teval_expf_constants;
  double xd = (double)x;
  int n = nearest_int(xd * k->inv_ln2_32);
  double r = (xd - n * k->ln2_hi_32) - n * k->ln2_lo_32;
  /* e^r - 1 = r (a + r^2 (b + r^2 c)), paired (Estrin's scheme) so that the
     chain of dependent operations is short. */
  double r2 = r * r;
  const double* c = k->taylor;
  double a = 1 + r * c[0], b = c[1] + r * c[2], cc = c[3] + r * c[4];
  double em1 = r * (a + r2 * (b + r2 * cc));
  int j = n & 31; /* n mod 32, n = 32 m + j */
  double t = k->exp2_j32[j];
  double v = (t + t * em1) * pow2((n - j) / 32);
  /* The 29 bits a float drops: within 16 of 2^28, v is too close to a
     rounding boundary to decide. */
  uint64_t dropped = bits_of(v) & ((1ull << 29) - 1);
  if (dropped - ((1ull << 28) - 16) <= 32)
    return (float)teval_exp(xd);
  return (float)v;
}

/* e^x - 1 as a double-double, |x| <= 64. */
dd teval_tm_expm1(double x) {
  int n = nearest_int(x * INV_LN2);
  if (n == 0)
    return expm1_reduced(x, 0);
  int k;
  dd y = teval_tm_exp_parts(dd_of(x), &k);
  y = dd_scale(y, pow2(k));
  dd s = two_sum(y.hi, -1);
  return fast_two_sum(s.hi, s.lo + y.lo);
}

double teval_expm1(double x) {
  if (is_nan(x))
    return x + x;
  if (x == 0)
    return x; /* keeps -0 */
  if (x > 64)
    return teval_exp(x); /* e^x > 2^92: the - 1 is below half an ulp */
  if (x < -40)
    return -1; /* e^x < 2^-57, below half an ulp of -1 */
  if (abs_of(x) < 0.35) {
    /* x + x^2 / 2 in double-double, x^3 (1/3! + x/4! + ... + x^11/14!) in
       double: the series leaves less than 2^-57 of the result, and the
       double part is below a fiftieth of it, so its rounding errors stay
       far below an ulp (expm1_reduced keeps all of x^2 (...) in one double,
       good to 0.65 ulp, enough inside exp). */
    static const double c[] = {1.0 / 6,         1.0 / 24,           1.0 / 120,
                               1.0 / 720,       1.0 / 5040,         1.0 / 40320,
                               1.0 / 362880,    1.0 / 3628800,      1.0 / 39916800,
                               1.0 / 479001600, 1.0 / 6227020800.0, 1.0 / 87178291200.0};
    dd half_square = two_prod(x, x);
    half_square.hi *= 0.5;
    half_square.lo *= 0.5;
    dd s = two_sum(x, half_square.hi);
    double tail = x * x * x * poly(x, c, 12);
    return s.hi + (s.lo + (half_square.lo + tail));
  }
  dd r = teval_tm_expm1(x);
  return r.hi + r.lo;
}

/* --- log ------------------------------------------------------------------ */

/* log(x) for finite x > 0 as a double-double, within 2^-66 of the result:
   x = 2^e * m with m in [sqrt(1/2), sqrt(2)), s = (m - 1) / (m + 1),
   log(m) = 2s + 2s^3/3 + 2s^5/5 + ... (|s| <= 0.172). */
dd teval_tm_log(double x) {
  static const double c[] = {2.0 / 5,  2.0 / 7,  2.0 / 9,  2.0 / 11, 2.0 / 13, 2.0 / 15,
                             2.0 / 17, 2.0 / 19, 2.0 / 21, 2.0 / 23, 2.0 / 25, 2.0 / 27};
  static const dd TWO_THIRDS = {0x1.5555555555555p-1, 0x1.5555555555555p-55};
  int e = 0;
  if (x < 0x1p-1022) {
    x *= 0x1p54;
    e = -54;
  }
  uint64_t b = bits_of(x);
  e += (int)(b >> 52) - 1023;
  double m = from_bits((b & ((1ull << 52) - 1)) | (1023ull << 52));
  if (m > 0x1.6a09e667f3bcdp+0) {
    m *= 0.5;
    ++e;
  }
  double f = m - 1; /* exact */
  dd s = dd_div(dd_of(f), two_sum(2, f));
  dd s2 = dd_mul(s, s);
  dd s3 = dd_mul(s2, s);
  double tail = s3.hi * s2.hi * poly(s2.hi, c, 12);
  dd series = dd_add(dd_scale(s, 2), dd_mul(s3, TWO_THIRDS));
  series = fast_two_sum(series.hi, series.lo + tail);
  dd scaled = fast_two_sum(e * LN2_HI, e * LN2_LO + e * LN2_LO2);
  return dd_add(scaled, series);
}

double teval_log(double x) {
  if (is_nan(x))
    return x + x;
  if (x == 0)
    return -INF;
  if (x < 0)
    return quiet_nan();
  if (x == INF)
    return x;
  dd r = teval_tm_log(x);
  return r.hi + r.lo;
}

/* log(1 + x): 1 + x = u.hi + u.lo exactly, log(u.hi) in double-double plus
   log(1 + u.lo / u.hi) = r - r^2 / 2 (|r| <= 2^-53: the next term is below
   2^-159). */
double teval_log1p(double x) {
  if (is_nan(x))
    return x + x;
  if (x == 0 || x == INF)
    return x;
  if (x == -1)
    return -INF;
  if (x < -1)
    return quiet_nan();
  if (abs_of(x) < 0x1p-54)
    return x; /* x - x^2 / 2 rounds to x */
  dd u = two_sum(1, x);
  double r = u.lo / u.hi;
  dd l = dd_add(teval_tm_log(u.hi), dd_of(r - r * r * 0.5));
  return l.hi + l.lo;
}

/* The cube root: y = e^(log|x| / 3) (relative error below 2^-40), then one
   Newton step y - (y^3 - |x|) / (3 y^2) with y^3 - |x| in double-double
   (error below 2^-80), rounded once; |x| scaled by 2^(+-162) first so that
   y^3 neither overflows nor leaves the normal range. */
double teval_cbrt(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  if (ax == 0 || ax == INF)
    return x;
  double scale = 1;
  if (ax < 0x1p-900) {
    ax *= 0x1p162;
    scale = 0x1p-54;
  } else if (ax > 0x1p900) {
    ax *= 0x1p-162;
    scale = 0x1p54;
  }
  dd l = teval_tm_log(ax);
  double y = teval_exp((l.hi + l.lo) / 3);
  dd cube = dd_mul(two_prod(y, y), dd_of(y));
  dd diff = dd_add(cube, dd_of(-ax));
  double correction = (diff.hi + diff.lo) / (3 * y * y);
  return with_sign_of(x, (y - correction) * scale);
}

/* --- pow ------------------------------------------------------------------ */

static int is_integer(double y) {
  double a = abs_of(y);
  if (a >= 0x1p52)
    return 1;
  return (double)(int64_t)a == a;
}

static int is_odd_integer(double y) {
  double a = abs_of(y);
  if (a >= 0x1p53 || !is_integer(y))
    return 0;
  return (int)((int64_t)a & 1);
}

double teval_pow(double x, double y) {
  if (y == 0 || x == 1)
    return 1;
  if (is_nan(x) || is_nan(y))
    return x + y;
  double ax = abs_of(x);
  if (abs_of(y) == INF) {
    if (ax == 1)
      return 1;
    return (ax < 1) == (y < 0) ? INF : 0;
  }
  int odd = is_odd_integer(y);
  double sign = sign_bit(x) && odd ? -1.0 : 1.0;
  if (x == 0 || ax == INF) {
    int big = (x == 0) == (y < 0); /* 0^negative and inf^positive */
    return sign * (big ? INF : 0);
  }
  if (x < 0 && !is_integer(y))
    return quiet_nan();
  dd l = teval_tm_log(ax);
  double zh = y * l.hi;
  if (zh > 1000 || zh < -1100)
    return sign * (zh > 0 ? INF : 0);
  dd z = two_prod(y, l.hi);
  z = fast_two_sum(z.hi, z.lo + y * l.lo);
  return sign * teval_tm_exp_scaled(z, 0);
}

/* --- fmod: exact ----------------------------------------------------------- */

/* |x| = m * 2^e with m < 2^53, for finite nonzero x. */
static uint64_t significand_of(double ax, int* e) {
  uint64_t b = bits_of(ax);
  int be = (int)(b >> 52);
  uint64_t m = b & ((1ull << 52) - 1);
  if (be == 0) {
    *e = -1074;
    return m;
  }
  *e = be - 1075;
  return m | (1ull << 52);
}

double teval_fmod(double x, double y) {
  if (is_nan(x) || is_nan(y))
    return x + y;
  double ax = abs_of(x), ay = abs_of(y);
  if (ax == INF || y == 0)
    return quiet_nan();
  if (ay == INF || ax < ay)
    return x;
  int ex, ey;
  uint64_t mx = significand_of(ax, &ex), my = significand_of(ay, &ey);
  /* r = mx * 2^(ex - ey) mod my, eleven bits at a time (r < 2^53). */
  uint64_t r = mx % my;
  for (int left = ex - ey; left > 0;) {
    int step = left < 11 ? left : 11;
    r = (r << step) % my;
    left -= step;
  }
  /* r * 2^ey is exact: below |y|, on |y|'s grid. */
  double v = ey >= -1022 ? (double)r * pow2(ey) : (double)r * pow2(ey + 600) * pow2(-600);
  return with_sign_of(x, v);
}
