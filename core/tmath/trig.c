/* teval's math library: sin, cos, tan, asin, acos and atan (see core/tmath.h; the method in
   dd.h). */
#include "core/tmath/dd.h"

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
  return with_sign_of(x, s);
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
  return with_sign_of(x, v);
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
  return with_sign_of(x, v);
}

/* C99's atan2 (Annex F): the angle of (x, y) in [-pi, pi], the sign of y's
   zero kept; atan(|y| / |x|) from the ratio in double-double, pi minus it
   for x < 0. Both are scaled by one power of two (exactly) so the larger is
   near 1; a ratio below 2^-40 is |y| / |x| (the cube term is below 2^-80 of
   it), divided unscaled so that subnormal results round once. */
double teval_atan2(double y, double x) {
  if (is_nan(x) || is_nan(y))
    return x + y;
  double ax = abs_of(x), ay = abs_of(y);
  double v;
  if (ay == 0)
    v = sign_bit(x) ? PI.hi + PI.lo : 0;
  else if (ax == INF && ay == INF)
    v = sign_bit(x) ? 3 * (PIO2.hi / 2) + 3 * (PIO2.lo / 2) : PIO2.hi / 2 + PIO2.lo / 2;
  else if (ay == INF || ax == 0)
    v = PIO2.hi + PIO2.lo;
  else if (ax == INF)
    v = sign_bit(x) ? PI.hi + PI.lo : 0;
  else if (ay < 0x1p-40 * ax && !sign_bit(x))
    v = ay / ax;
  else {
    int e = (int)((bits_of(ax > ay ? ax : ay) >> 52) & 0x7ff) - 1023;
    double s = pow2(e < -1000 ? 1000 : e > 1000 ? -1000 : -e);
    dd r = atan_ratio(dd_of(ay * s), dd_of(ax * s));
    if (sign_bit(x))
      r = dd_add(PI, dd_neg(r));
    v = r.hi + r.lo;
  }
  return with_sign_of(y, v);
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
  return with_sign_of(x, v);
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
