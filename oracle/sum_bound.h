// The rigorous bound of one floating sum over every legal evaluation: any
// order and association, in the output dtype or a wider format, for any
// number of terms (docs/ORACLE.md, "Sums: the bound and its proof").
#pragma once

#include "oracle/bounds.h"

#include <cmath>
#include <cstdint>

namespace teval::oracle {

/// The terms of one float sum, each known to an interval, added in any
/// order; finish() gives the interval of every legal result.
class SumBound {
public:
  /// One more term.
  void add(const Interval& v);
  /// No term that may be a number was added (only NaN terms, or none; a
  /// term that may be anything counts).
  bool empty() const { return terms_ == 0 && !any_; }
  /// Some term may be NaN.
  bool nan() const { return nan_; }
  /// Every legal result in floating dtype \p t: values of t inside the
  /// proven range, or with \p outward (excess precision: the result may be
  /// float32's) the values of t around it.
  Interval finish(core::DType t, bool outward) const;

private:
  // Directed sums of the terms' ends and magnitudes, and of their positive
  // and negative parts.
  double lo_ = 0, hi_ = 0, magnitude_ = 0, positive_ = 0, negative_ = 0;
  // The terms that may be numbers, and those of them that may be nonzero.
  int64_t terms_ = 0, nonzero_ = 0;
  bool nan_ = false, any_ = false, plus_inf_ = false, minus_inf_ = false;
  // The terms' signs, the largest lower end and the smallest upper end.
  bool nonnegative_ = true, nonpositive_ = true;
  double largest_lo_ = -INFINITY, smallest_hi_ = INFINITY;
  // While every term is one value: the largest power of two dividing them
  // all (infinite before the first); 0 once a term is an interval.
  double quantum_ = INFINITY;
};

} // namespace teval::oracle
