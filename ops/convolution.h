// convolution (StableHLO specification, "convolution"): its native
// reference and its einstein_v2 statement side by side (docs/SEMANTICS.md,
// "StableHLO's contractions"). Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <string>

namespace teval::ops::detail {

/// The result of \p n (the attributes parser/mlir/mlir_ops.h lists) of type
/// \p result: each element the sum, from zero in the result's element type,
/// over the kernel's spatial positions in row-major order and then its
/// input features, of the products of the window's element of lhs (0 where
/// the window lies in padding or between dilated elements) and the
/// kernel's, each converted to the result's type first when it differs.
core::Tensor convolution(const core::GraphNode& n, const core::Tensor& lhs, const core::Tensor& rhs,
                         const core::ValueType& result);

/// The einstein_v2 statement giving \p target the same values:
/// `target[D...] +=! lhs[...].when([inside], 0) * rhs[...] where D0 in ...,
/// K0 in ...`, the reduce axes the kernel's spatial dimensions in order,
/// then its input feature.
std::string convolution_statement(const core::GraphNode& n, const core::ValueType& lhs,
                                  const std::string& lhs_name, const core::ValueType& rhs,
                                  const std::string& rhs_name, const core::ValueType& result,
                                  const std::string& target);

} // namespace teval::ops::detail
