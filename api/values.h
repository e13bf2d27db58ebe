// Conversions between the public API's values and the internal ones.
#pragma once

#include "core/error.h"
#include "core/tensor.h"
#include "teval/teval.h"

namespace teval::api {

core::DType internal(DType t);
DType public_dtype(core::DType t);

/// The public Error for an internal one: its diagnostics with file, line
/// and column, and the rendered text.
Error public_error(const core::Error& e);

/// An Error with no position (an API misuse or a missing input).
[[noreturn]] void fail(const std::string& message);

/// A copy of \p ref (any strides) as an internal C-order tensor.
core::Tensor copy_in(const TensorRef& ref);
/// A copy of \p t as a public tensor.
Tensor copy_out(const core::Tensor& t);

} // namespace teval::api
