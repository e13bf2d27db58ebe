// The fast check's loops over many sums at once (see fast_sum_kernels.h).
// Compiled with -frounding-math: accumulate() runs rounding upward.
#include "oracle/fast_sum_kernels.h"

#include <cfloat>
#include <cstring>

namespace teval::oracle::detail {

namespace {

#define TEVAL_INLINE __attribute__((always_inline)) inline

TEVAL_INLINE Doubles splat(double x) {
  Doubles r;
  for (int j = 0; j < kWidth; ++j)
    r[j] = x;
  return r;
}
TEVAL_INLINE Masks splat_mask(int64_t x) {
  Masks r;
  for (int j = 0; j < kWidth; ++j)
    r[j] = x;
  return r;
}
TEVAL_INLINE Masks bits(Doubles x) {
  return (Masks)x;
}
TEVAL_INLINE Masks less(Doubles a, Doubles b) {
  return (Masks)(a < b);
}
// m ? a : b, lane by lane.
TEVAL_INLINE Masks pick(Masks m, Masks a, Masks b) {
  return (m & a) | (~m & b);
}
TEVAL_INLINE Doubles pick(Masks m, Doubles a, Doubles b) {
  return (Doubles)pick(m, bits(a), bits(b));
}
TEVAL_INLINE Doubles magnitude(Doubles x) {
  return (Doubles)(bits(x) & splat_mask(INT64_MAX));
}
// std::max(a, b) and std::min(a, b), as SumBound::add() takes them.
TEVAL_INLINE Doubles max(Doubles a, Doubles b) {
  return pick(less(a, b), b, a);
}
TEVAL_INLINE Doubles min(Doubles a, Doubles b) {
  return pick(less(b, a), b, a);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TEVAL_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TEVAL_VECTOR_CLONES
#endif

typedef float Floats __attribute__((vector_size(4 * kWidth)));

} // namespace

TEVAL_VECTOR_CLONES
void accumulate(Lanes* groups, int count_groups, const double* lo, const double* hi,
                const double* rounded, const int64_t* count, int64_t n) {
  Doubles counts[kLanes / kWidth];
  for (int v = 0; v < count_groups; ++v)
    for (int j = 0; j < kWidth; ++j)
      counts[v][j] = static_cast<double>(count[v * kWidth + j]);
  const Doubles zero = splat(0.0);
  // The groups are independent chains of additions, interleaved so that
  // one's latency hides another's.
  for (int64_t k = 0; k < n; ++k) {
    const Doubles at = splat(static_cast<double>(k));
    for (int v = 0; v < count_groups; ++v) {
      Lanes& s = groups[v];
      Masks on = less(at, counts[v]);
      Doubles x, y;
      std::memcpy(&x, lo + k * kLanes + v * kWidth, sizeof x);
      std::memcpy(&y, hi + k * kLanes + v * kWidth, sizeof y);
      // SumBound::add() of [x, y]: the sums of the ends, the magnitudes,
      // the positive and the negative parts (all nonnegative exactly when
      // the sum of the negative parts is 0, nonpositive when that of the
      // positive parts is), the extreme ends and the nonzero terms.
      s.low = pick(on, s.low + -x, s.low);
      s.hi = pick(on, s.hi + y, s.hi);
      s.magnitude = pick(on, s.magnitude + max(magnitude(x), magnitude(y)), s.magnitude);
      s.positive = pick(on, s.positive + max(y, zero), s.positive);
      s.negative = pick(on, s.negative + max(-x, zero), s.negative);
      s.largest_lo = pick(on, max(s.largest_lo, x), s.largest_lo);
      s.smallest_hi = pick(on, min(s.smallest_hi, y), s.smallest_hi);
      s.nonzero -= on & ~((Masks)(x == zero) & (Masks)(y == zero));
      s.plus_zeros &= ~on | (Masks)(bits(y) == splat_mask(0));
      if (rounded) {
        Doubles r;
        std::memcpy(&r, rounded + k * kLanes + v * kWidth, sizeof r);
        s.exact_low = pick(on, s.exact_low + -r, s.exact_low);
        s.exact_hi = pick(on, s.exact_hi + r, s.exact_hi);
      }
    }
  }
}

TEVAL_VECTOR_CLONES
void round_points(Lanes* groups, int count_groups, const double* a, const double* b,
                  double* rounded, bool single, const int64_t* count, int64_t n) {
  Doubles counts[kLanes / kWidth];
  for (int v = 0; v < count_groups; ++v)
    for (int j = 0; j < kWidth; ++j)
      counts[v][j] = static_cast<double>(count[v * kWidth + j]);
  const Doubles zero = splat(0.0);
  auto round = [single](Doubles x) {
    return single ? __builtin_convertvector(__builtin_convertvector(x, Floats), Doubles) : x;
  };
  for (int64_t k = 0; k < n; ++k) {
    const Doubles at = splat(static_cast<double>(k));
    for (int v = 0; v < count_groups; ++v) {
      Lanes& s = groups[v];
      Masks on = less(at, counts[v]);
      Doubles r;
      std::memcpy(&r, a + k * kLanes + v * kWidth, sizeof r);
      if (b) {
        Doubles y;
        std::memcpy(&y, b + k * kLanes + v * kWidth, sizeof y);
        r = round(r * y);
      }
      std::memcpy(rounded + k * kLanes + v * kWidth, &r, sizeof r);
      s.sequential = pick(on, round(s.sequential + r), s.sequential);
      Doubles ar = magnitude(r);
      s.finite &= ~on | (Masks)(ar <= splat(DBL_MAX));
      s.negative_zeros &= ~on | (Masks)(bits(r) == splat_mask(INT64_MIN));
      // lowest_bit(r): |r| less |r| with its lowest fraction bit cleared
      // (exact: one binade), or |r| itself when it is a power of two.
      Masks abits = bits(ar);
      Masks fraction = abits & splat_mask((int64_t{1} << 52) - 1);
      Doubles low = ar - (Doubles)(abits - (fraction & -fraction));
      low = pick((Masks)(low == zero), ar, low);
      Masks counted = on & ~(Masks)(ar == zero) & (Masks)(ar <= splat(DBL_MAX));
      s.quantum = pick(counted & less(low, s.quantum), low, s.quantum);
    }
  }
}

} // namespace teval::oracle::detail
