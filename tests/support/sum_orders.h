// The results of a floating sum in every evaluation order the oracle's
// tests run, computed here with plain loops (a value of the dtype after
// every addition), independently of the oracle.
#pragma once

#include "core/kernel.h"

#include <vector>

namespace teval::test {

/// The sums of \p terms (values of floating dtype \p t) in order, reversed,
/// pairwise, in blocks of 16, 128 and 1000 (each block in order, then the
/// blocks in order), and accumulated in float32 and in float64, rounded
/// once to \p t. Every addition in \p t rounds to nearest, ties to even.
std::vector<double> sum_orders(core::DType t, const std::vector<double>& terms);

} // namespace teval::test
