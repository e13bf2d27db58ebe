// The rigorous bound of one floating sum over every legal evaluation: any
// order and association, in the output dtype or a wider format, for any
// number of terms (docs/ORACLE.md, "Sums: the bound and its proof").
#pragma once

#include "oracle/bounds.h"

#include <cmath>
#include <cstdint>

namespace teval::oracle {

/// The largest power of two dividing finite nonzero \p v.
double lowest_bit(double v);

/// The terms of one float sum, each known to an interval, added in any
/// order; finish() gives the interval of every legal result.
class SumBound {
public:
  /// One more term.
  void add(const Interval& v);
  /// No term that may be a number was added (only NaN terms, or none; a
  /// term that may be anything counts).
  bool empty() const { return s_.terms == 0 && !s_.any; }
  /// Some term may be NaN.
  bool nan() const { return s_.nan; }
  /// Every legal result in floating dtype \p t: values of t inside the
  /// proven range, or with \p outward (excess precision: the result may be
  /// float32's) the values of t around it.
  Interval finish(core::DType t, bool outward) const;

  /// What add() keeps. Public so that a loop over many sums at once (the
  /// fast check, oracle/fast_sum.cpp) can add finite terms to each exactly
  /// as add() does: the same directed additions in the same order.
  struct State {
    // Directed sums of the terms' ends and magnitudes, and of their
    // positive and negative parts.
    double lo = 0, hi = 0, magnitude = 0, positive = 0, negative = 0;
    // The terms that may be numbers, and those of them that may be nonzero.
    int64_t terms = 0, nonzero = 0;
    bool nan = false, any = false, plus_inf = false, minus_inf = false;
    // The terms' signs, the largest lower end and the smallest upper end.
    bool nonnegative = true, nonpositive = true;
    double largest_lo = -INFINITY, smallest_hi = INFINITY;
    // While every term is one value: the largest power of two dividing
    // them all (infinite before the first); 0 once a term is an interval.
    double quantum = INFINITY;
  };
  State& state() { return s_; }
  const State& state() const { return s_; }

private:
  State s_;
};

} // namespace teval::oracle
