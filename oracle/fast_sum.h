// The fast check of a contraction: the interpreter's sequential result,
// the exact result and the rigorous bound of every output element of one
// sum statement, computed together from its terms (interp/contraction.h),
// several outputs at a time and on every core.
//
// Each value is the one the definitional walks give, by construction: the
// sequential sum adds the same terms in the same order with the same
// roundings; the bound's directed sums are SumBound::add's, in the same
// order, computed for several outputs at once with the same IEEE
// operations; the exact sum is rounded from an enclosure [lo, hi] of it
// when both ends round alike (Ziv's method) and otherwise accumulated as
// the walk does, exactly (Dyadic). Elements with a NaN or infinite term
// take the walk's own code. OracleProperty.TheFastCheckIsTheWalk runs
// both on random programs.
#pragma once

#include "core/tensor.h"
#include "interp/contraction.h"
#include "oracle/bounds.h"

#include <map>
#include <optional>
#include <span>
#include <vector>

namespace teval::oracle {

/// The three values of every element of one statement's target.
struct SumValues {
  core::Tensor sequential;
  core::Tensor exact;
  std::vector<Interval> bound;
};

/// Whether fast_sum() computes \p c under \p options: every tensor it reads
/// is one of the program's inputs (whose values are points), and no
/// float16 or bfloat16 rounding may be kept in float32 (excess precision
/// makes its terms intervals the loop does not keep).
bool fast_sum_applies(const interp::Contraction& c, const core::Kernel& kernel,
                      const BoundOptions& options);

/// The values of \p c's statement of \p kernel, or nothing when a point
/// reads out of range (the walks report the error). \p threads workers
/// (0: one per core, fewer for a small statement).
std::optional<SumValues> fast_sum(const interp::Contraction& c, const core::Kernel& kernel,
                                  const BoundOptions& options, int threads = 0);

/// Every statement of \p kernel that fast_sum() computes on \p inputs (one
/// per input, in declaration order), by target tensor: a contraction over
/// the inputs alone whose target no other statement writes. With \p before
/// >= 0, only the statements before the first that writes tensor
/// \p before. Nothing when a point reads out of range.
std::optional<std::map<int, SumValues>> fast_statements(const core::Kernel& kernel,
                                                        std::span<const core::Tensor> inputs,
                                                        const BoundOptions& options,
                                                        int threads = 0, int before = -1);

} // namespace teval::oracle
