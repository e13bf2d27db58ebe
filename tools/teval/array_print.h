// Printing tensors the way numpy prints arrays.
#pragma once

#include "core/tensor.h"

#include <string>

namespace teval::tools {

/// numpy's repr of \p t: `array([[1.0, 2.5], [...]], dtype=float32)`, one
/// row per line, values right-aligned; tensors of more than 1000 elements
/// are summarised with the first and last 3 entries of each dimension and
/// `...` between, as numpy does.
std::string format_array(const core::Tensor& t);

} // namespace teval::tools
