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

/// \p ref as an internal C-order tensor: a view of the caller's memory
/// when it is in C order and aligned, else a copy (any strides).
core::Tensor internal_tensor(const TensorRef& ref);
/// \p t as a public tensor, its storage moved (a borrowed tensor copied).
Tensor move_out(core::Tensor&& t);

} // namespace teval::api
