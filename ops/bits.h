// StableHLO's bit-level ops of integers — and, or, xor, shift_left,
// shift_right_arithmetic, shift_right_logical, popcnt and
// count_leading_zeros — as a native reference and as einstein_v2
// statements, side by side so the two say the same thing (StableHLO
// specification, the sections of the same names; docs/SEMANTICS.md,
// "StableHLO's bit operations"). Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <functional>
#include <string>
#include <vector>

namespace teval::ops::detail {

/// True for the ops this module gives a meaning: the shifts, popcnt and
/// count_leading_zeros, and and/or/xor when \p t is an integer dtype.
bool is_bit_op(core::GraphOp op, core::DType t);

/// The result of \p n, of type \p result, from its operands \p x and (for
/// the binary ops) \p y, all of one integer dtype: each element computed on
/// the two's complement bits of the dtype's width.
core::Tensor bit_op(const core::GraphNode& n, const core::Tensor& x, const core::Tensor* y,
                    const core::ValueType& result);

/// The einstein_v2 statements giving \p target the same values from the
/// tensors \p x_name and \p y_name (empty for the unary ops) of type
/// \p result; \p helper names a helper tensor from a suffix.
std::vector<std::string>
bit_op_statements(const core::GraphNode& n, const std::string& x_name, const std::string& y_name,
                  const core::ValueType& result, const std::string& target,
                  const std::function<std::string(const std::string&)>& helper);

} // namespace teval::ops::detail
