// Printing tensors the way numpy prints arrays.
#pragma once

#include "core/tensor.h"

#include <string>

namespace teval::tools {

/// How format_array() prints, after numpy's print options.
struct PrintOptions {
  /// Floating values: at most this many digits after the decimal point
  /// (rounded to nearest, trailing zeros dropped; in exponent form, digits
  /// of the mantissa). Negative: the shortest text that reads back as the
  /// value, exactly.
  int precision = -1;
  /// Tensors of more elements than this are summarised.
  int64_t threshold = 1000;
  /// A summarised dimension shows this many entries at each end.
  int64_t edge_items = 3;
};

/// numpy's repr of \p t: `array([[1.0, 2.5], [...]], dtype=float32)`, one
/// row per line, values right-aligned; tensors of more than
/// \p options.threshold elements are summarised with the first and last
/// entries of each dimension and `...` between, as numpy does.
std::string format_array(const core::Tensor& t, const PrintOptions& options = {});

/// One value as format_array() prints it.
std::string format_value(const core::Scalar& v, int precision);

} // namespace teval::tools
