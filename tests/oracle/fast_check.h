// The oracle's properties share one check of the fast check
// (fast_sum_test.cpp).
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"
#include "oracle/bounds.h"

#include <vector>

namespace teval::oracle {

/// Inside a property: oracle::evaluate() of \p k on \p inputs gives the same
/// sequential and exact results (bit for bit, NaNs alike) and the same
/// bounds with the fast check, on one thread and on two, as the walks; or
/// the same error. A failure names the first element that differs.
void expect_fast_is_walk(const core::Kernel& k, const std::vector<core::Tensor>& inputs,
                         const BoundOptions& options);

} // namespace teval::oracle
