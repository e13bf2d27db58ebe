// pad (StableHLO specification, "pad"): its native reference and its
// einstein_v2 statement side by side. Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <string>

namespace teval::ops::detail {

/// The result of \p n (attributes low, high, interior) of type \p result:
/// result[low + j * (interior + 1)] = x[j], the padding value elsewhere.
core::Tensor pad(const core::GraphNode& n, const core::Tensor& x, const core::Tensor& value,
                 const core::ValueType& result);

/// `target[D...] = x[(D - low) / (interior + 1), ...].when([the index is
/// one of x's], value[]) where D0 in ...`.
std::string pad_statement(const core::GraphNode& n, const core::ValueType& x,
                          const std::string& x_name, const std::string& value_name,
                          const core::ValueType& result, const std::string& target);

} // namespace teval::ops::detail
