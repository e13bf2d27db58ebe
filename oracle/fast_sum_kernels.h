// Internal to the fast check (fast_sum.cpp): its loops over the terms of
// several sums at once, kWidth lanes to a vector.
#pragma once

#include "interp/contraction.h"

#include <cstdint>

namespace teval::oracle::detail {

constexpr int kLanes = interp::Contraction::kLanes;
constexpr int kWidth = 4;
typedef double Doubles __attribute__((vector_size(8 * kWidth)));
typedef int64_t Masks __attribute__((vector_size(8 * kWidth)));

/// The running state of kWidth sums: SumBound::State's finite part, the
/// exact sum's enclosure and, for terms that are points, the sequential
/// sum, whether every term is finite and every term -0, and the smallest
/// lowest_bit() of a nonzero term (the quantum). A true mask is -1.
struct Lanes {
  // SumBound's directed sums, computed rounding upward (accumulate()):
  // low holds -lo, exact_low -(the enclosure's lower end).
  Doubles low, hi, magnitude, positive, negative, largest_lo, smallest_hi;
  Masks nonzero;
  Masks plus_zeros; // every upper end added is +0
  Doubles exact_low, exact_hi;
  Doubles sequential, quantum;
  Masks finite, negative_zeros;
};

/// Adds term k of every lane with k < count[lane], in order: [lo[k], hi[k]]
/// to the bound's sums and, when \p rounded is not null, rounded[k] to the
/// exact sum's enclosure (else the bound's sums are the enclosure). Lane
/// j's terms are at [k * kLanes + j]; \p groups holds lanes kWidth at a
/// time, \p count_groups of them.
///
/// Must be called with the rounding mode upward (fesetround(FE_UPWARD)):
/// then each sum is one IEEE addition per term, RU(s + x), and -RU(-s - x)
/// is RD(s + x). These are SumBound::add()'s add_up() and add_down() but
/// for the sign of an exact zero and past the overflow threshold, which the
/// caller puts right (fast_sum.cpp).
void accumulate(Lanes* groups, int count_groups, const double* lo, const double* hi,
                const double* rounded, const int64_t* count, int64_t n);

/// Terms that are points of float32 or float64 (\p single): each a[k]
/// (times b[k], rounded, when \p b is not null) into rounded[k], added in
/// sequence in the dtype; whether each is finite and -0, and the quantum.
/// In the default rounding mode.
void round_points(Lanes* groups, int count_groups, const double* a, const double* b,
                  double* rounded, bool single, const int64_t* count, int64_t n);

} // namespace teval::oracle::detail
