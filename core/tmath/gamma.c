/* teval's math library: lgamma, the logarithm of |Gamma(x)| (see
   core/tmath.h). In double-double where the result cancels: a Taylor series
   about the zeros at 1 and 2, elsewhere Stirling's series at x + n >= 13
   less the logarithm of the product x (x + 1) ... (x + n - 1), and the
   reflection formula below 0. Host only: the interpreter's native
   references call it. */
#include "core/tmath.h"
#include "core/tmath/dd.h"

static const dd EULER = {0x1.2788cfc6fb619p-1, -0x1.6cb90701fbfabp-58};
static const dd ONE_MINUS_EULER = {0x1.b0ee6072093cep-2, 0x1.6cb90701fbfabp-58};
static const dd HALF_LOG_2PI = {0x1.d67f1c864beb5p-1, -0x1.65b5a1b7ff5dfp-55};

/* (-1)^k zeta(k) / k for k = 2, 3, ...: lgamma(1 + z) = -euler z + sum c_k z^k. */
static const double AT_ONE[] = {
    0x1.a51a6625307d3p-1, -0x1.9a4d55beab2d7p-2, 0x1.151322ac7d848p-2, -0x1.a8b9c17aa6149p-3,
    0x1.5b40cb100c306p-3, -0x1.2703a1dcea3aep-3, 0x1.010b36af86397p-3, -0x1.c806706d57db4p-4,
    0x1.9a01e385d5f8fp-4, -0x1.748c33114c6d6p-4, 0x1.556ad63243bc4p-4, -0x1.3b1d971fc5985p-4,
    0x1.2496df8320c5fp-4, -0x1.11133476e7fe0p-4, 0x1.00010064cdeb2p-4, -0x1.e1e2d311e8abdp-5,
    0x1.c71ce3a20b419p-5, -0x1.af28a1b5688a0p-5, 0x1.9999b3352d5bap-5, -0x1.86186db77bfbfp-5,
    0x1.745d1d1778df9p-5, -0x1.642c88591b66dp-5, 0x1.555556aaafdcdp-5, -0x1.47ae151eb9fb7p-5,
    0x1.3b13b189d925ep-5, -0x1.2f684c00002bcp-5, 0x1.24924936db7bcp-5, -0x1.1a7b961a7b9aap-5};
/* (-1)^k (zeta(k) - 1) / k: lgamma(2 + z) = (1 - euler) z + sum d_k z^k. */
static const double AT_TWO[] = {
    0x1.4a34cc4a60fa6p-2,  -0x1.13e001a557607p-4,  0x1.51322ac7d8483p-6,  -0x1.e404fc218f5f2p-8,
    0x1.7add6eadb6c30p-9,  -0x1.38ac5c2bf8e08p-10, 0x1.0b36af86396e9p-11, -0x1.d3fd4c76d2fc8p-13,
    0x1.a127b0f17d65ap-14, -0x1.78de5bd7c81efp-15, 0x1.580dcee66eb02p-16, -0x1.3cbc963ce2243p-17,
    0x1.2597a39f34aacp-18, -0x1.11b2eb7679541p-19, 0x1.0064cdeb22f0fp-20, -0x1.e2600d93cfd2fp-22,
    0x1.c76bbb3f07a4dp-23, -0x1.af5a6cbbf8a97p-24, 0x1.99b93c2070b0fp-25, -0x1.862c734df3eacp-26,
    0x1.7469daccfadcdp-27, -0x1.6434a8447aeadp-28};
/* B_2k / (2k (2k - 1)): Stirling's series in 1/y. */
static const double STIRLING[] = {
    0x1.5555555555555p-4,  -0x1.6c16c16c16c17p-9,  0x1.a01a01a01a01ap-11, -0x1.3813813813814p-11,
    0x1.b951e2b18ff23p-11, -0x1.f6ab0d9993c7dp-10, 0x1.a41a41a41a41ap-8,  -0x1.e4286cb0f5398p-6};

/* lead z + sum c[i] z^(i + 2) for |z| <= 1/4, the lead in double-double. */
static dd about_a_zero(double z, dd lead, const double* c, int n) {
  double tail = c[n - 1];
  for (int i = n - 2; i >= 0; --i)
    tail = c[i] + z * tail;
  return dd_add(dd_mul(lead, dd_of(z)), dd_mul(two_prod(z, z), dd_of(tail)));
}

/* log of a double-double: the double's, plus lo / hi. */
static dd dd_log(dd v) {
  dd l = teval_tm_log(v.hi);
  return dd_add(l, dd_of(v.lo / v.hi));
}

/* Stirling: (y - 1/2) log y - y + log(2 pi) / 2 + sum B_2k / (2k (2k-1) y^(2k-1)), y >= 13. */
static dd stirling(dd y) {
  const double inv = 1 / y.hi, inv2 = inv * inv;
  double series = STIRLING[7];
  for (int i = 6; i >= 0; --i)
    series = STIRLING[i] + inv2 * series;
  dd r = dd_mul(dd_add(y, dd_of(-0.5)), dd_log(y));
  r = dd_add(r, dd_neg(y));
  r = dd_add(r, HALF_LOG_2PI);
  return dd_add(r, dd_of(series * inv));
}

/* lgamma of x > 0 (a double-double, as 1 - x of a negative x is): about
   the zeros at 1 and 2 their series, else Stirling's at x + n >= 13 less
   log(x (x + 1) ... (x + n - 1)). */
static dd positive(dd x) {
  const double z1 = dd_add(x, dd_of(-1)).hi, z2 = dd_add(x, dd_of(-2)).hi;
  if (abs_of(z1) <= 0.25)
    return about_a_zero(z1, dd_neg(EULER), AT_ONE, 28);
  if (abs_of(z2) <= 0.25)
    return about_a_zero(z2, ONE_MINUS_EULER, AT_TWO, 22);
  if (x.hi >= 0x1p60) { /* x (log x - 1) - log(x) / 2 + log(2 pi) / 2 in double:
                          no cancellation, and Dekker's split would overflow */
    const double lg = teval_log(x.hi);
    return dd_of(x.hi * (lg - 1) - 0.5 * lg + HALF_LOG_2PI.hi);
  }
  if (x.hi >= 13)
    return stirling(x);
  dd y = x, product = x;
  for (;;) {
    y = dd_add(y, dd_of(1));
    if (y.hi >= 13)
      break;
    product = dd_mul(product, y);
  }
  return dd_add(stirling(y), dd_neg(dd_log(product)));
}

double teval_lgamma(double x) {
  if (is_nan(x))
    return x + x;
  if (x == INF || x == -INF || x == 0)
    return INF;
  if (x > 0) {
    if (x < 0x1p-60) /* -log x - euler x: the second term is below an ulp */
      return -teval_log(x);
    dd r = positive(dd_of(x));
    return r.hi + r.lo;
  }
  /* x < 0: Gamma(x) Gamma(1 - x) = pi / sin(pi x), so lgamma(x) =
     log(pi / |sin(pi x)|) - lgamma(1 - x), 1 - x exact in double-double;
     the poles at the integers (every double at or below -2^52 is one). */
  if (x <= -0x1p52)
    return INF;
  double r = x - (double)(long long)x; /* exact, in (-1, 0] */
  if (r == 0)
    return INF;
  if (r < -0.5)
    r += 1; /* |sin(pi x)| is |sin(pi r)| */
  const double s = abs_of(teval_sin(PI.hi * r));
  dd result = dd_add(dd_log(dd_div(PI, dd_of(s))), dd_neg(positive(two_sum(1, -x))));
  return result.hi + result.lo;
}

dd teval_tm_lgamma(dd x) {
  return positive(x);
}

/* --- digamma ------------------------------------------------------------ */

/* The positive zero of digamma, in double-double, and digamma's Taylor
   coefficients there: polygamma(k, x0) / k! for k = 1, 2, .... */
static const dd DIGAMMA_ZERO = {0x1.762d86356be3fp+0, 0x1.b86a722197829p-54};
static const double AT_DIGAMMA_ZERO[] = {
    0x1.ef72bc8ee38acp-1,  -0x1.c563b54aa1a35p-2,  0x1.08b4294d50381p-2,  -0x1.4fc1317257da8p-3,
    0x1.b9a5b6370f3abp-4,  -0x1.27baba261cc2cp-4,  0x1.8fce02b239ca7p-5,  -0x1.0fa7ec36a7d8fp-5,
    0x1.723d6807edcc0p-6,  -0x1.f970508e1b6a2p-7,  0x1.5955caaa962f3p-7,  -0x1.d828079282eb8p-8,
    0x1.42e1acf81d8dcp-8,  -0x1.b9afc7cee8a14p-9,  0x1.2e23345f79aafp-9,  -0x1.9d626f71d1f7ap-10,
    0x1.1acebbd761089p-10, -0x1.82f6345c65b35p-11, 0x1.08bdae1a261d4p-11, -0x1.6a3fddea11304p-12,
    0x1.efacab6fb8985p-13, -0x1.531f5dc5eb563p-13, 0x1.d0080f810fab5p-14};
/* B_2k / 2k: digamma(y) = log y - 1/(2y) - sum B_2k / (2k y^2k). */
static const double DIGAMMA_SERIES[] = {
    0x1.5555555555555p-4, -0x1.1111111111111p-7, 0x1.0410410410410p-8, -0x1.1111111111111p-8,
    0x1.f07c1f07c1f08p-8, -0x1.5995995995996p-6, 0x1.5555555555555p-4, -0x1.c5e5e5e5e5e5ep-2,
    0x1.86e7f9b9fe6e8p+1, -0x1.a74ca514ca515p+4};

/* digamma of x > 0 (a double-double): its Taylor series about its zero
   near 1.46, else the asymptotic series at x + n >= 12 less 1/x + ... +
   1/(x + n - 1). */
static dd digamma_positive(dd x) {
  const dd d = dd_add(x, dd_neg(DIGAMMA_ZERO));
  if (abs_of(d.hi) <= 0.2) {
    const double z = d.hi + d.lo;
    double tail = AT_DIGAMMA_ZERO[22];
    for (int i = 21; i >= 1; --i)
      tail = AT_DIGAMMA_ZERO[i] + z * tail;
    return dd_add(dd_mul(dd_of(AT_DIGAMMA_ZERO[0]), d), dd_mul(two_prod(z, z), dd_of(tail)));
  }
  if (x.hi >= 0x1p52) /* the series' terms are below an ulp of log x */
    return dd_of(teval_log(x.hi) - 0.5 / x.hi);
  dd y = x, reciprocals = dd_of(0);
  while (y.hi < 12) {
    reciprocals = dd_add(reciprocals, dd_div(dd_of(1), y));
    y = dd_add(y, dd_of(1));
  }
  const double inv2 = 1 / (y.hi * y.hi);
  double series = DIGAMMA_SERIES[9];
  for (int i = 8; i >= 0; --i)
    series = DIGAMMA_SERIES[i] + inv2 * series;
  dd r = dd_add(dd_log(y), dd_neg(dd_div(dd_of(0.5), y)));
  r = dd_add(r, dd_of(-series * inv2));
  return dd_add(r, dd_neg(reciprocals));
}

double teval_digamma(double x) {
  if (is_nan(x))
    return x + x;
  if (x == INF)
    return INF;
  if (x == 0) /* the limit from the side of the zero's sign */
    return sign_bit(x) ? INF : -INF;
  if (x > 0) {
    dd r = digamma_positive(dd_of(x));
    return r.hi + r.lo;
  }
  /* x < 0: digamma(x) = digamma(1 - x) - pi / tan(pi x), 1 - x exact in
     double-double; the negative integers (every double at or below
     -2^52) are poles with limits of both signs: NaN. */
  if (x == -INF || x <= -0x1p52)
    return quiet_nan();
  double r = x - (double)(long long)x; /* exact, in (-1, 0] */
  if (r == 0)
    return quiet_nan();
  if (r < -0.5)
    r += 1; /* tan(pi x) = tan(pi r), with pi r near 0 where tan is small */
  const double t = teval_tan(PI.hi * r);
  dd result = dd_add(digamma_positive(two_sum(1, -x)), dd_neg(dd_div(PI, dd_of(t))));
  return result.hi + result.lo;
}
