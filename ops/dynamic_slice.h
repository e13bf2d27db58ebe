// dynamic_slice and dynamic_update_slice: their native references and
// their einstein_v2 statements, side by side so the two say the same thing
// (StableHLO specification, the sections of those names; docs/SEMANTICS.md,
// "StableHLO's dynamic slices"). Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <string>
#include <vector>

namespace teval::ops::detail {

/// \p operands: the operand, (for dynamic_update_slice) the update, then
/// one rank-0 start index per dimension. Each start is clamped into
/// [0, extent - size] (size: the slice's, or the update's extent).
core::Tensor dynamic_slice(const core::GraphNode& n,
                           const std::vector<const core::Tensor*>& operands,
                           const core::ValueType& result);

/// The einstein_v2 statement giving \p target the same values from the
/// tensors \p names (the operands' names, in order), of types \p types.
std::string dynamic_slice_statement(const core::GraphNode& n, const std::vector<std::string>& names,
                                    const std::vector<core::ValueType>& types,
                                    const core::ValueType& result, const std::string& target);

} // namespace teval::ops::detail
