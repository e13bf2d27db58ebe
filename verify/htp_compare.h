// How the verifier compares a graph's output before and after a rewrite:
// the first differing element, and the error of a rule that lowers
// precision on purpose.
#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace teval::verify::htp {

/// "out[0, 1, 0, 2]: before 0.25, after 0.5" for element \p i of \p a
/// (before) and \p b (after), of one shape.
std::string element_difference(const core::Tensor& a, const core::Tensor& b, int64_t i);

/// The first difference between \p a and \p b, bit for bit: a change of
/// dtype or shape, else the first element that differs (element_difference);
/// empty when they are identical.
std::string describe_difference(const core::Tensor& a, const core::Tensor& b);

/// The largest difference between two outputs, relative to the largest
/// magnitude among them and the graph's inputs (at least 2^-14, float16's
/// smallest normal), and its flat position.
struct RelativeError {
  double error = 0;
  int64_t at = 0;
  /// The largest difference itself, and the magnitude it is relative to.
  double absolute = 0;
  double scale = 0;
};

/// The relative error of \p b against \p a, the magnitudes of \p inputs
/// counted too; nothing unless both are floats of one dtype and shape with
/// NaN and infinities in the same places (or all of them are 0).
std::optional<RelativeError> relative_error(const core::Tensor& a, const core::Tensor& b,
                                            const std::map<int, core::Tensor>& inputs);

} // namespace teval::verify::htp
