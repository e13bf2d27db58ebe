// The interpreter and IREval as Backends (core/backend.h).
#pragma once

#include "core/backend.h"
#include "interp/interpreter.h"

#include <memory>

namespace teval::interp {

/// The ground-truth interpreter.
std::unique_ptr<core::Backend> interpreter_backend(Options options = {});

/// Lowering to a loop nest, then IREval.
std::unique_ptr<core::Backend> ireval_backend();

} // namespace teval::interp
