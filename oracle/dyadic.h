// Exact binary rationals m·2^e: the accumulator of the oracle's exact
// reductions and the one place where an exact value is rounded to a dtype.
#pragma once

#include "core/dtype.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace teval::oracle {

/// An exact sum or product of doubles, with IEEE's special values: the
/// result of adding (or multiplying) every term with no rounding at all.
/// Rounded once, to any floating dtype, by round_to().
///
/// Zeros: an exact zero sum is +0 unless every term was -0 (what
/// round-to-nearest addition gives in any order); a product's sign is the
/// parity of its negative terms. Specials: any NaN, or +inf with -inf in a
/// sum, or 0 with an infinity in a product, makes NaN; otherwise an
/// infinity wins over every finite term.
class Dyadic {
public:
  /// The empty sum, 0 (for add()); use one() to start a product.
  Dyadic();
  ~Dyadic();
  Dyadic(const Dyadic&);
  Dyadic& operator=(const Dyadic&);
  Dyadic(Dyadic&&) noexcept;
  Dyadic& operator=(Dyadic&&) noexcept;

  /// The exact value of \p x (any double).
  static Dyadic of(double x);
  /// The empty product, 1 (for multiply()).
  static Dyadic one();

  /// Adds \p x exactly.
  void add(double x);
  /// Multiplies by \p x exactly. The mantissa grows by up to 53 bits per
  /// factor; beyond kMaxProductBits the product is too long to keep exactly
  /// and multiply() throws core::Error(Limit).
  void multiply(double x);

  /// The value rounded to nearest (ties to even) in floating dtype \p t,
  /// with t's subnormals and overflow to infinity: one rounding, from the
  /// exact value.
  double round_to(core::DType t) const;

  /// The bytes a sum takes on the heap, with a mantissa of up to 512 bits
  /// (terms within 2^450 of each other); more for wider sums.
  static size_t typical_heap_bytes();

  /// The most mantissa bits an exact product keeps (about 40 000 float32 factors).
  static constexpr int64_t kMaxProductBits = int64_t{1} << 20;

private:
  struct Big;
  std::unique_ptr<Big> big_; // the finite part m·2^e
  bool nan_ = false;
  int inf_ = 0; // +1, -1 or 0
  bool any_term_ = false;
  bool all_negative_zero_ = true;
  bool negative_ = false; // a product's sign (for zero and infinite products)
  bool product_ = false;
  bool zero_factor_ = false;
};

/// The IEEE parameters of a floating dtype: precision in bits (with the
/// hidden bit), the exponent of the smallest normal and of the largest
/// finite value.
struct FloatFormat {
  int precision;
  int min_exponent;
  int max_exponent;
};
FloatFormat format_of(core::DType t);

} // namespace teval::oracle
