// The text of an ops file's definitions (see htp_ops.h): the $ fields,
// the functions $real, $quantize and $encode, and $(...) arithmetic, as
// they are replaced for one node before its program is read. Internal to
// rules/.
#pragma once

#include "rules/htp_ops.h"

#include <regex>
#include <string>
#include <vector>

namespace teval::rules::detail {

/// `$(expr)` fields of \p text evaluated: + - * / (truncating) and
/// parentheses over integer literals. Throws IllTyped for a malformed or
/// unclosed field, a division by zero or an overflow (\p op names the op).
std::string evaluate_arithmetic(const std::string& text, const std::string& op);

/// The pattern of a $ field: $inK[d], $inK.zero, .step, .dtype, .float,
/// .rank, .qmin, .qmax, and the same of $out0.
const std::regex& field_pattern();

/// \p program with $real(...), $quantize(...) and $encode(...) expanded for
/// a node whose output is quantized or not (\p quantized_output). Throws
/// the reason (a std::string) a use is malformed.
std::string expand_functions(const std::string& program, bool quantized_output);

/// The definition's program with its functions expanded and its $ fields
/// replaced for a node with inputs \p in and output \p out. Throws
/// IllTyped.
std::string instantiate(const OpDef& def, const std::vector<const TensorType*>& in,
                        const TensorType* out);

} // namespace teval::rules::detail
