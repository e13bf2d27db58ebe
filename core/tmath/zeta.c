/* teval's math library: the Hurwitz zeta function, polygamma and the
   exponentially scaled modified Bessel function of order 1 (CHLO's zeta,
   polygamma and bessel_i1e; see core/tmath.h), summed in double-double and
   rounded once. Host only: the interpreter's native references call them. */
#include "core/tmath.h"
#include "core/tmath/dd.h"

/* B_2j / (2j)! for j = 1 ... 12: the Euler-Maclaurin series' coefficients. */
static const double BERNOULLI[] = {
    0x1.5555555555555p-4,  -0x1.6c16c16c16c17p-10, 0x1.1566abc011567p-15, -0x1.bbd779334ef0bp-21,
    0x1.66a8f2bf70ebep-26, -0x1.22805d644267fp-31, 0x1.d6db2c4e09162p-37, -0x1.7da4e1f79955cp-42,
    0x1.355871d652e9ep-47, -0x1.f57d968caacf1p-53, 0x1.967e1f09c376fp-58, -0x1.497d9033a2b5cp-63};

/* Whether v (finite or infinite) is an integer: every double of magnitude
   2^52 or more is. */
static int is_integer(double v) {
  return abs_of(v) >= 0x1p52 || v == (double)(long long)v;
}

/* e^scale a^-x for a double-double a (a.lo small against a.hi, a.hi
   nonzero; x an integer where a < 0), through the logarithm of |a| in
   double-double, as teval_pow. */
static double scaled_power(dd a, double x, dd scale) {
  const double sign = a.hi < 0 && abs_of(x) < 0x1p53 && (long long)x % 2 != 0 ? -1 : 1;
  const dd l = dd_add(teval_tm_log(abs_of(a.hi)), dd_of(a.lo / a.hi));
  return sign * teval_tm_exp_scaled(dd_add(dd_mul(dd_of(-x), l), scale), 0);
}

/* e^scale zeta(x, q) for x > 1 finite and q finite, q > 0 or x an integer
   and q no pole. */
static double zeta_scaled(double x, double q, dd scale) {
  /* The first terms (q + k)^-x directly, until q + k reaches 2 (x + 24),
     where the Euler-Maclaurin series' terms shrink at least 100-fold each
     ((x + 2j)^2 / (2 pi a)^2 <= 1/(16 pi^2)), or 2^22, where a^-x
     underflows for x that large; stopped early where the tail of positive
     terms, below a^-x + a^(1-x) / (x - 1), is below 2^-60 of the sum. */
  const double big = x < 0x1p21 ? 2 * (x + 24) : 0x1p22;
  dd sum = dd_of(0);
  long long k = 0;
  dd a = dd_of(q);
  while (a.hi < big) {
    sum = dd_add(sum, dd_of(scaled_power(a, x, scale)));
    ++k;
    a = two_sum(q, (double)k);
    if (a.hi > 0) {
      const double next = scaled_power(a, x, scale);
      if (next + next * a.hi / (x - 1) <= abs_of(sum.hi) * 0x1p-60)
        return sum.hi + sum.lo;
    }
  }
  /* sum + a^(1-x) / (x - 1) + a^-x / 2 + a^-x sum_j B_2j / (2j)! x (x + 1)
     ... (x + 2j - 2) / a^(2j - 1). */
  const double p = scaled_power(a, x, scale);
  const double inv2 = 1 / (a.hi * a.hi);
  double factor = x / a.hi, series = 0;
  for (int j = 1; j <= 12; ++j) {
    series += BERNOULLI[j - 1] * factor;
    factor *= (x + 2 * j - 1) * (x + 2 * j) * inv2;
  }
  dd tail = dd_div(dd_of(scaled_power(a, x - 1, scale)), dd_of(x - 1));
  tail = dd_add(tail, dd_of(0.5 * p));
  tail = dd_add(tail, dd_of(p * series));
  const dd r = dd_add(sum, tail);
  return r.hi + r.lo;
}

/* zeta(x, q) where x or q is NaN, x <= 1, q <= 0, an argument is
   infinite or q is below -2^22 (as XLA's expansion gives it: teval_zeta),
   into *r; 0 where zeta_scaled computes it. */
static int zeta_edge(double x, double q, double* r) {
  if (x == 1) /* the harmonic series diverges, whatever q */
    *r = INF;
  else if (is_nan(x) || is_nan(q))
    *r = x + q;
  else if (x < 1)
    *r = quiet_nan();
  else if (q <= 0 && (!is_integer(x) || q == -INF))
    *r = quiet_nan();               /* defined for integer x only */
  else if (q <= 0 && is_integer(q)) /* a pole: +inf for even x, both signs for odd */
    *r = x >= 0x1p53 || (long long)x % 2 == 0 ? INF : quiet_nan();
  else if (q == INF)
    *r = 0;
  else if (x == INF) /* (q + n)^-x: 1 at q = 1, else 0 or +inf */
    *r = q > 1 ? 0 : q == 1 ? 1 : q > 0 ? INF : quiet_nan();
  else if (q < -0x1p22) /* teval sums at most 2^22 terms */
    *r = quiet_nan();
  else
    return 0;
  return 1;
}

double teval_zeta(double x, double q) {
  double r;
  return zeta_edge(x, q, &r) ? r : zeta_scaled(x, q, dd_of(0));
}

double teval_polygamma(double n, double x) {
  /* n must be a natural number. */
  if (is_nan(n) || n < 0 || n == INF || !is_integer(n))
    return quiet_nan();
  if (n == 0)
    return teval_digamma(x);
  /* (-1)^(n + 1) n! zeta(n + 1, x), the sum's terms scaled by n! (its
     logarithm in double-double: the sum may underflow where the result
     does not). */
  const double sign = n < 0x1p53 && (long long)n % 2 == 1 ? 1 : -1;
  double r;
  if (zeta_edge(n + 1, x, &r)) /* the poles and the domain's edges */
    return sign * r;
  return sign * zeta_scaled(n + 1, x, teval_tm_lgamma(dd_of(n + 1)));
}

double teval_bessel_i1e(double x) {
  if (is_nan(x))
    return x + x;
  const double ax = abs_of(x);
  if (ax == INF) /* I1(x) e^-|x| ~ 1 / sqrt(2 pi |x|) */
    return with_sign_of(x, 0);
  if (ax <= 32) {
    /* e^-|x| sum_k (|x|/2)^(2k + 1) / (k! (k + 1)!): positive terms. */
    const dd half = two_prod(ax, 0.5);
    const dd h2 = dd_mul(half, half);
    dd term = half, sum = half;
    for (int k = 0; k < 200 && term.hi > sum.hi * 0x1p-110; ++k) {
      term = dd_div(dd_mul(term, h2), dd_of((double)((k + 1) * (k + 2))));
      sum = dd_add(sum, term);
    }
    int e = 0;
    const dd y = teval_tm_exp_parts(dd_of(-ax), &e);
    return with_sign_of(x, teval_tm_finish(dd_mul(sum, y), e));
  }
  /* The asymptotic series: e^-|x| I1(|x|) = (1 - 3/(8|x|) - 15/(2 (8|x|)^2)
     ...) / sqrt(2 pi |x|), t_k = t_(k-1) ((2k - 1)^2 - 4) / (8 k |x|),
     summed while the terms shrink (past 32 they reach 2^-60 of the sum). */
  dd sum = dd_of(1);
  double term = 1;
  for (int k = 1; k < 100; ++k) {
    const double next = term * ((double)((2 * k - 1) * (2 * k - 1)) - 4) / (8.0 * k * ax);
    if (abs_of(next) >= abs_of(term) || abs_of(next) < 0x1p-60)
      break;
    term = next;
    sum = dd_add(sum, dd_of(term));
  }
  const dd root = dd_sqrt(dd_mul(dd_scale(PI, 2), dd_of(ax)));
  const dd r = dd_div(sum, root);
  return with_sign_of(x, r.hi + r.lo);
}
