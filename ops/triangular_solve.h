// triangular_solve of floats: its native reference and its einstein_v2
// statements, side by side so the two say the same thing (StableHLO
// specification, "triangular_solve"; docs/SEMANTICS.md, "StableHLO's
// triangular_solve and cholesky"); and cholesky's native reference. Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <functional>
#include <string>
#include <vector>

namespace teval::ops::detail {

/// The solution X of op(a) X = b (left_side) or X op(a) = b, batch by
/// batch, by substitution: each unknown row (or column) p is (b_p - s) /
/// the diagonal coefficient (no division for unit_diagonal), where s sums
/// from zero the products of p's other coefficients with the unknowns
/// solved before it, in ascending order of theirs.
core::Tensor triangular_solve(const core::GraphNode& n, const core::Tensor& a,
                              const core::Tensor& b, const core::ValueType& result);

/// cholesky of \p a (attribute lower), batch by batch: the lower factor L of
/// a = L·Lᵀ (the upper U = Lᵀ of a = Uᵀ·U, read from a's upper triangle, when
/// lower is false), column by column: L[j][j] = sqrt(a[j][j] - s) and
/// L[i][j] = (a[i][j] - s) / L[j][j] below it, where s sums from zero the
/// products L[j][k]·L[i][k] over k < j in ascending order, every operation
/// rounded to the type; 0 in the other triangle. A matrix that is not
/// symmetric, or whose pivot a[j][j] - s is not positive (not positive-
/// definite, in this arithmetic), is an error at \p where: the
/// specification leaves the result undefined.
core::Tensor cholesky(const core::GraphNode& n, const core::Tensor& a, core::Span where);

/// The einstein_v2 statements giving \p target the same values from the
/// tensors \p a_name and \p b_name; two per unknown row (or column): its
/// sum, and the solution so far with that row filled in.
std::vector<std::string>
triangular_solve_statements(const core::GraphNode& n, const std::string& a_name,
                            const std::string& b_name, const core::ValueType& result,
                            const std::string& target,
                            const std::function<std::string(const std::string&)>& helper);

} // namespace teval::ops::detail
