// Stopping evaluations: the public StopToken and time limits over
// core/interrupt.
#pragma once

#include "core/interrupt.h"
#include "teval/teval.h"

#include <functional>

namespace teval {

struct StopToken::Impl {
  core::Interrupt interrupt;
};

namespace api {

/// Runs \p work so that \p stop (if any) stops it, and so that it stops
/// with an Error after \p timeout seconds (0: never).
void controlled(double timeout, StopToken* stop, const std::function<void()>& work);

} // namespace api
} // namespace teval
