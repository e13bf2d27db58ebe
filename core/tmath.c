/* teval's math library (see tmath.h).

   Every float64 function reduces its argument exactly or in double-double
   (a value hi + lo with |lo| <= ulp(hi) / 2), evaluates a truncated Taylor
   series or continued fraction whose truncation error is below 2^-60 of the
   result, keeps the leading terms in double-double, and rounds once at the
   end. It must be compiled without floating-point contraction
   (-ffp-contract=off) and without fast-math: every operation here is an IEEE
   operation on doubles, so every target computes the same bits. The
   constants are hexadecimal floats of mathematical constants (ln 2, pi / 2,
   2 / pi's bits, atan(j / 8), erfcx(1 / 2 + j / 8)) rounded to double or
   split into double-doubles. */
#include "core/tmath.h"

#include <stdint.h>

typedef struct {
  double hi, lo;
} dd;

static uint64_t bits_of(double x) {
  union {
    double d;
    uint64_t u;
  } v;
  v.d = x;
  return v.u;
}

static double from_bits(uint64_t u) {
  union {
    uint64_t u;
    double d;
  } v;
  v.u = u;
  return v.d;
}

static const double INF = __builtin_inf();

static int is_nan(double x) {
  return x != x;
}

static double abs_of(double x) {
  return from_bits(bits_of(x) & ~(1ull << 63));
}

static int sign_bit(double x) {
  return (int)(bits_of(x) >> 63);
}

static double quiet_nan(void) {
  return from_bits(0x7ff8000000000000ull);
}

/* 2^k for -1022 <= k <= 1023. */
static double pow2(int k) {
  return from_bits((uint64_t)(k + 1023) << 52);
}

/* The nearest integer to x (|x| < 2^30), ties away from zero. */
static int nearest_int(double x) {
  return (int)(x >= 0 ? x + 0.5 : x - 0.5);
}

/* --- double-double arithmetic (error-free transformations) ------------- */

static dd two_sum(double a, double b) {
  double s = a + b;
  double bb = s - a;
  dd r = {s, (a - (s - bb)) + (b - bb)};
  return r;
}

/* Requires |a| >= |b| or a == 0. */
static dd fast_two_sum(double a, double b) {
  double s = a + b;
  dd r = {s, b - (s - a)};
  return r;
}

/* Veltkamp's split; |a| < 2^995. */
static void split(double a, double* h, double* l) {
  double c = 134217729.0 * a; /* 2^27 + 1 */
  double big = c - a;
  *h = c - big;
  *l = a - *h;
}

/* Dekker's exact product. */
static dd two_prod(double a, double b) {
  double ah, al, bh, bl;
  split(a, &ah, &al);
  split(b, &bh, &bl);
  double p = a * b;
  dd r = {p, ((ah * bh - p) + ah * bl + al * bh) + al * bl};
  return r;
}

static dd dd_add(dd a, dd b) {
  dd s = two_sum(a.hi, b.hi);
  return fast_two_sum(s.hi, s.lo + (a.lo + b.lo));
}

static dd dd_neg(dd a) {
  dd r = {-a.hi, -a.lo};
  return r;
}

static dd dd_mul(dd a, dd b) {
  dd p = two_prod(a.hi, b.hi);
  return fast_two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

static dd dd_div(dd a, dd b) {
  double q = a.hi / b.hi;
  dd p = two_prod(q, b.hi);
  double rest = (((a.hi - p.hi) - p.lo) + a.lo) - q * b.lo;
  return fast_two_sum(q, rest / b.hi);
}

static dd dd_sqrt(dd a) {
  double s = teval_sqrt(a.hi);
  if (s == 0)
    return a;
  dd p = two_prod(s, s);
  return fast_two_sum(s, (((a.hi - p.hi) - p.lo) + a.lo) / (2 * s));
}

static dd dd_of(double x) {
  dd r = {x, 0};
  return r;
}

static dd dd_scale(dd a, double power_of_two) {
  dd r = {a.hi * power_of_two, a.lo * power_of_two};
  return r;
}

/* Horner's rule over c[0] + c[1] x + ... + c[n - 1] x^(n - 1). */
static double poly(double x, const double* c, int n) {
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
static dd exp_parts(dd z, int* k) {
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
static double finish(dd y, int k) {
  double v = y.hi + y.lo;
  if (k > 1023)
    return v * pow2(k - 1023) * pow2(1023);
  if (k >= -1022)
    return v * pow2(k);
  if (k < -1100)
    return 0 * v;
  return v * pow2(k + 600) * pow2(-600);
}

static double exp_scaled(dd z, int extra) {
  if (z.hi > 1000)
    return INF;
  if (z.hi < -1000)
    return 0;
  int k;
  dd y = exp_parts(z, &k);
  return finish(y, k + extra);
}

double teval_exp(double x) {
  if (is_nan(x))
    return x + x;
  return exp_scaled(dd_of(x), 0);
}

/* e^x - 1 as a double-double, |x| <= 64. */
static dd expm1_dd(double x) {
  int n = nearest_int(x * INV_LN2);
  if (n == 0)
    return expm1_reduced(x, 0);
  int k;
  dd y = exp_parts(dd_of(x), &k);
  y = dd_scale(y, pow2(k));
  dd s = two_sum(y.hi, -1);
  return fast_two_sum(s.hi, s.lo + y.lo);
}

/* --- log ------------------------------------------------------------------ */

/* log(x) for finite x > 0 as a double-double, within 2^-66 of the result:
   x = 2^e * m with m in [sqrt(1/2), sqrt(2)), s = (m - 1) / (m + 1),
   log(m) = 2s + 2s^3/3 + 2s^5/5 + ... (|s| <= 0.172). */
static dd log_dd(double x) {
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
  dd r = log_dd(x);
  return r.hi + r.lo;
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
  dd l = log_dd(ax);
  double zh = y * l.hi;
  if (zh > 1000 || zh < -1100)
    return sign * (zh > 0 ? INF : 0);
  dd z = two_prod(y, l.hi);
  z = fast_two_sum(z.hi, z.lo + y * l.lo);
  return sign * exp_scaled(z, 0);
}

/* --- sin, cos, tan -------------------------------------------------------- */

/* The bits of 2 / pi, 32 to a word, most significant first. */
static const uint32_t TWO_OVER_PI[] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d};

/* 64 bits of the 320-bit number p (10 words, least significant first)
   starting at bit position pos >= 0. */
static uint64_t bits64(const uint32_t* p, int pos) {
  uint64_t r = 0;
  for (int i = 0; i < 64; i += 32) {
    int at = pos + i;
    int w = at >> 5, s = at & 31;
    uint64_t lo = w < 10 ? p[w] : 0;
    uint64_t hi = w + 1 < 10 ? p[w + 1] : 0;
    r |= (((lo | (hi << 32)) >> s) & 0xffffffffull) << i;
  }
  return r;
}

/* Payne and Hanek's reduction: ax (finite, > pi/4) = (4j + k + f) * pi/2
   with |f| <= 1/2; returns k and r = f * pi/2 as a double-double. The
   product of ax's 53-bit significand with 256 bits of 2/pi from the right
   place is exact in integers; the bits left out weigh less than 2^-170,
   and the closest a double comes to a multiple of pi/2 is about 2^-61. */
static int reduce(double ax, dd* r) {
  uint64_t b = bits_of(ax);
  int e = (int)(b >> 52) - 1075;
  uint64_t m = (b & ((1ull << 52) - 1)) | (1ull << 52); /* ax = m * 2^e */
  /* The bits of 2/pi of weight 2^-(i+1) for i <= e - 3 add multiples of 4. */
  int w0 = e >= 2 ? (e - 2) / 32 : 0;
  uint32_t p[10] = {0};
  uint32_t mw[2] = {(uint32_t)m, (uint32_t)(m >> 32)};
  for (int i = 0; i < 2; ++i) {
    uint64_t carry = 0;
    for (int j = 7; j >= 0; --j) { /* word w0 + j of 2/pi has weight 7 - j words */
      int at = i + (7 - j);
      uint64_t t = (uint64_t)mw[i] * TWO_OVER_PI[w0 + j] + p[at] + carry;
      p[at] = (uint32_t)t;
      carry = t >> 32;
    }
    for (int at = i + 8; carry && at < 10; ++at) {
      uint64_t t = (uint64_t)p[at] + carry;
      p[at] = (uint32_t)t;
      carry = t >> 32;
    }
  }
  int q = 32 * (w0 + 8) - e; /* the bit of weight 2^0 */
  int k = (int)(bits64(p, q) & 3);
  /* f = (f1 2^128 + f2 2^64 + f3) 2^-192 */
  uint64_t f1 = bits64(p, q - 64), f2 = bits64(p, q - 128), f3 = bits64(p, q - 192);
  int negative = (int)(f1 >> 63);
  if (negative) { /* f - 1, as the magnitude 2^192 - F */
    k = (k + 1) & 3;
    f3 = ~f3 + 1;
    f2 = ~f2 + (f3 == 0);
    f1 = ~f1 + (f3 == 0 && f2 == 0);
  }
  int exponent = -64;
  while (f1 == 0 && exponent > -192) {
    f1 = f2;
    f2 = f3;
    f3 = 0;
    exponent -= 64;
  }
  if (f1 == 0) {
    *r = dd_of(0);
    return k;
  }
  int s = __builtin_clzll(f1);
  if (s) {
    f1 = (f1 << s) | (f2 >> (64 - s));
    f2 = (f2 << s) | (f3 >> (64 - s));
  }
  exponent -= s;
  /* f1's top 53 bits are exact in a double; the rest is below its ulp. */
  double top = (double)(f1 & ~0x7ffull);
  double rest = (double)(f1 & 0x7ffull) + (double)f2 * 0x1p-64;
  double scale = pow2(exponent);
  dd f = fast_two_sum(top * scale, rest * scale);
  *r = dd_mul(f, PIO2);
  if (negative)
    *r = dd_neg(*r);
  return k;
}

/* sin and cos of r (|r| <= pi/4 + tiny) as double-doubles. */
static dd sin_dd(dd r) {
  static const double c[] = {-1.0 / 6,
                             1.0 / 120,
                             -1.0 / 5040,
                             1.0 / 362880,
                             -1.0 / 39916800,
                             1.0 / 6227020800.0,
                             -1.0 / 1307674368000.0,
                             1.0 / 355687428096000.0,
                             -1.0 / 121645100408832000.0};
  double x2 = r.hi * r.hi;
  double tail = r.hi * x2 * poly(x2, c, 9);
  return fast_two_sum(r.hi, tail + r.lo * (1 - 0.5 * x2));
}

static dd cos_dd(dd r) {
  static const double c[] = {1.0 / 24,
                             -1.0 / 720,
                             1.0 / 40320,
                             -1.0 / 3628800,
                             1.0 / 479001600,
                             -1.0 / 87178291200.0,
                             1.0 / 20922789888000.0,
                             -1.0 / 6402373705728000.0,
                             1.0 / 2432902008176640000.0};
  double x2 = r.hi * r.hi;
  dd h = two_prod(r.hi, r.hi);
  h = dd_scale(h, 0.5);
  dd w = two_sum(1, -h.hi);
  return fast_two_sum(w.hi, w.lo + ((x2 * x2 * poly(x2, c, 9) - h.lo) - r.hi * r.lo));
}

/* |x| = (4j + k) * pi/2 + r. */
static int reduced(double ax, dd* r) {
  if (ax <= 0x1.921fb54442d18p-1) {
    *r = dd_of(ax);
    return 0;
  }
  return reduce(ax, r);
}

double teval_sin(double x) {
  if (is_nan(x) || abs_of(x) == INF)
    return x - x;
  if (x == 0)
    return x;
  dd r;
  int k = reduced(abs_of(x), &r);
  dd v = k & 1 ? cos_dd(r) : sin_dd(r);
  double s = v.hi + v.lo;
  if (k & 2)
    s = -s;
  return sign_bit(x) ? -s : s;
}

double teval_cos(double x) {
  if (is_nan(x) || abs_of(x) == INF)
    return x - x;
  dd r;
  int k = reduced(abs_of(x), &r);
  dd v = k & 1 ? sin_dd(r) : cos_dd(r);
  double c = v.hi + v.lo;
  return k == 1 || k == 2 ? -c : c;
}

double teval_tan(double x) {
  if (is_nan(x) || abs_of(x) == INF)
    return x - x;
  if (x == 0)
    return x;
  dd r;
  int k = reduced(abs_of(x), &r);
  dd s = sin_dd(r), c = cos_dd(r);
  dd t = k & 1 ? dd_neg(dd_div(c, s)) : dd_div(s, c);
  double v = t.hi + t.lo;
  return sign_bit(x) ? -v : v;
}

/* --- atan, asin, acos ----------------------------------------------------- */

/* atan(j / 8), j = 0 ... 21. */
static const dd ATAN_TABLE[] = {{0x0.0p+0, 0x0.0p+0},
                                {0x1.fd5ba9aac2f6ep-4, -0x1.cd37686760c17p-59},
                                {0x1.f5b75f92c80ddp-3, 0x1.8ab6e3cf7afbdp-57},
                                {0x1.6f61941e4def1p-2, -0x1.c63aae6f6e918p-56},
                                {0x1.dac670561bb4fp-2, 0x1.a2b7f222f65e2p-56},
                                {0x1.1e00babdefeb4p-1, -0x1.928df287a668fp-58},
                                {0x1.4978fa3269ee1p-1, 0x1.2419a87f2a458p-56},
                                {0x1.700a7c5784634p-1, -0x1.8c34d25aadef6p-56},
                                {0x1.921fb54442d18p-1, 0x1.1a62633145c07p-55},
                                {0x1.b034f38649c88p-1, -0x1.be88d6936f833p-55},
                                {0x1.cac7c57846f9ep-1, 0x1.0dae13ad18a6bp-55},
                                {0x1.e24dd44c855d1p-1, 0x1.f7ac612ab33d8p-55},
                                {0x1.f730bd281f69bp-1, 0x1.007887af0cbbdp-56},
                                {0x1.04e67277a01d7p+0, 0x1.7115496c13eb6p-57},
                                {0x1.0d38f2c5ba09fp+0, -0x1.bd0dc231bfd70p-54},
                                {0x1.14b1dd5f90ce1p+0, -0x1.212d570a63fa2p-56},
                                {0x1.1b6e192ebbe44p+0, 0x1.b1b466a88828ep-54},
                                {0x1.21862f3fade36p+0, 0x1.4887628d68748p-54},
                                {0x1.270ef55a53a25p+0, -0x1.a66b1af5f84fbp-54},
                                {0x1.2c1a241d66dc3p+0, 0x1.82b2d58b6a8e9p-54},
                                {0x1.30b6d796a4da8p+0, 0x1.6254cb03bb199p-54},
                                {0x1.34f1fbb19eb09p+0, 0x1.80d79b4cf61d5p-55}};

/* atan(t) for 0 <= t.hi <= 2.6: atan(c) + atan((t - c) / (1 + t c)) with
   c = j / 8 the nearest eighth, the second argument below 1/16. */
static dd atan_small(dd t) {
  static const double c[] = {-1.0 / 3,  1.0 / 5,  -1.0 / 7,  1.0 / 9,
                             -1.0 / 11, 1.0 / 13, -1.0 / 15, 1.0 / 17};
  int j = nearest_int(t.hi * 8);
  double cj = j * 0.125;
  dd u = t;
  if (j > 0) {
    dd num = fast_two_sum(t.hi - cj, t.lo); /* t.hi - cj is exact (Sterbenz) */
    dd tc = two_prod(t.hi, cj);
    dd den = dd_add(dd_of(1), fast_two_sum(tc.hi, tc.lo + t.lo * cj));
    u = dd_div(num, den);
  }
  double u2 = u.hi * u.hi;
  dd a = fast_two_sum(u.hi, u.hi * u2 * poly(u2, c, 8) + u.lo * (1 - u2));
  return dd_add(ATAN_TABLE[j], a);
}

/* atan(n / d) for n, d >= 0, not both zero. */
static dd atan_ratio(dd n, dd d) {
  if (n.hi <= 2.5 * d.hi)
    return atan_small(dd_div(n, d));
  return dd_add(PIO2, dd_neg(atan_small(dd_div(d, n))));
}

double teval_atan(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  double v;
  if (ax > 0x1p60)
    v = PIO2.hi + (PIO2.lo - 1 / ax);
  else {
    dd r = atan_ratio(dd_of(ax), dd_of(1));
    v = r.hi + r.lo;
  }
  return sign_bit(x) ? -v : v;
}

/* sqrt(1 - x^2) for |x| <= 1, from (1 - |x|)(1 + |x|) without cancellation. */
static dd cathetus(double ax) {
  dd one_minus = dd_of(1 - ax); /* exact for ax >= 1/2 */
  if (ax < 0.5) {
    dd sq = two_prod(ax, ax);
    one_minus = dd_add(dd_of(1), dd_neg(sq));
    return dd_sqrt(one_minus);
  }
  return dd_sqrt(dd_mul(one_minus, two_sum(1, ax)));
}

double teval_asin(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  if (ax > 1)
    return quiet_nan();
  if (ax == 0)
    return x;
  dd r = atan_ratio(dd_of(ax), cathetus(ax));
  double v = r.hi + r.lo;
  return sign_bit(x) ? -v : v;
}

double teval_acos(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  if (ax > 1)
    return quiet_nan();
  dd r = atan_ratio(cathetus(ax), dd_of(ax));
  if (x < 0)
    r = dd_add(PI, dd_neg(r));
  return r.hi + r.lo;
}

/* --- sinh, cosh, tanh ------------------------------------------------------ */

double teval_sinh(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  double v;
  if (ax < 0x1p-28)
    return x;
  if (ax > 22) {
    v = exp_scaled(dd_of(ax), -1);
  } else {
    /* (t + t / (t + 1)) / 2 with t = e^|x| - 1 */
    dd t = expm1_dd(ax);
    dd s = dd_add(t, dd_div(t, dd_add(t, dd_of(1))));
    v = 0.5 * (s.hi + s.lo);
  }
  return sign_bit(x) ? -v : v;
}

double teval_cosh(double x) {
  if (is_nan(x))
    return x + x;
  double ax = abs_of(x);
  if (ax < 0x1p-27)
    return 1;
  if (ax > 22)
    return exp_scaled(dd_of(ax), -1);
  dd t = expm1_dd(ax);
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
    dd t = expm1_dd(2 * ax);
    dd r = dd_div(t, dd_add(t, dd_of(2)));
    v = r.hi + r.lo;
  }
  return sign_bit(x) ? -v : v;
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
  dd e = exp_parts(dd_neg(sq), k);
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
  return sign_bit(x) ? -v : v;
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
    return finish(y, k);
  }
  if (x <= -6)
    return 2;
  int k;
  dd c = erfc_parts(ax, &k);
  c = dd_scale(c, pow2(k));
  dd r = dd_add(dd_of(2), dd_neg(c));
  return r.hi + r.lo;
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
  return sign_bit(x) ? -v : v;
}

/* --- float32: the float64 function, rounded ----------------------------- */

#define TEVAL_TMATH_FLOAT(name)                                                                    \
  float teval_##name##f(float x) {                                                                 \
    return (float)teval_##name((double)x);                                                         \
  }
TEVAL_TMATH_UNARY(TEVAL_TMATH_FLOAT)
#undef TEVAL_TMATH_FLOAT

float teval_powf(float x, float y) {
  return (float)teval_pow((double)x, (double)y);
}
