// dot_general (and dot, a dot_general of fixed dimension numbers): its
// native reference and its einstein_v2 statement, kept side by side so the
// two say the same thing (StableHLO specification, "dot_general";
// docs/SEMANTICS.md, "StableHLO's contractions"). Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <string>

namespace teval::ops::detail {

/// The result of \p n (attributes lhs_batch, rhs_batch, lhs_contract,
/// rhs_contract) of type \p result: each element the sum, from zero in the
/// result's element type, of the products of the operands' elements (each
/// converted to that type first when it differs) over the contracting
/// dimensions in row-major order of their listed order.
core::Tensor dot_general(const core::GraphNode& n, const core::Tensor& lhs, const core::Tensor& rhs,
                         const core::ValueType& result);

/// The einstein_v2 statement giving \p target the same values from the
/// tensors \p lhs and \p rhs: `target[D...] +=! lhs[...] * rhs[...] where
/// D0 in ..., K0 in ...`, the reduce axes K in the contracting order.
std::string dot_general_statement(const core::GraphNode& n, const core::ValueType& lhs,
                                  const std::string& lhs_name, const core::ValueType& rhs,
                                  const std::string& rhs_name, const core::ValueType& result,
                                  const std::string& target);

} // namespace teval::ops::detail
