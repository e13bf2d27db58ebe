// gather (StableHLO specification, "gather"): its native reference and its
// einstein_v2 statement side by side (docs/SEMANTICS.md, "StableHLO's
// gather"). Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <string>

namespace teval::ops::detail {

/// The result of \p n (the attributes parser/mlir/mlir_ops.h lists) of type
/// \p result: result[i] = operand[full_start_index + full_batching_index +
/// full_offset_index], each start index clamped to [0, dim - slice size].
core::Tensor gather(const core::GraphNode& n, const core::Tensor& operand,
                    const core::Tensor& indices, const core::ValueType& result);

/// The einstein_v2 statement giving \p target the same values:
/// `target[D...] = operand[(indices[D0, 0].cast(`int64`).call(`max`, ...)
/// .call(`min`, ...)) + D1, ...] where D0 in ...`.
std::string gather_statement(const core::GraphNode& n, const core::ValueType& operand,
                             const std::string& operand_name, const core::ValueType& indices,
                             const std::string& indices_name, const core::ValueType& result,
                             const std::string& target);

} // namespace teval::ops::detail
