// Stopping evaluations: the public StopToken and time limits over
// core/interrupt.
#include "api/control.h"

#include "api/values.h"

#include <cmath>
#include <optional>
#include <sstream>

namespace teval {

StopToken::StopToken() : impl_(std::make_unique<Impl>()) {}
StopToken::~StopToken() = default;

void StopToken::request() noexcept {
  impl_->interrupt.request();
}

bool StopToken::requested() const noexcept {
  return impl_->interrupt.requested();
}

void StopToken::reset() noexcept {
  impl_->interrupt.reset();
}

namespace api {

struct Access {
  static core::Interrupt& interrupt(StopToken& t) { return t.impl_->interrupt; }
};

void controlled(double timeout, StopToken* stop, const std::function<void()>& work) {
  if (!(timeout >= 0) || !std::isfinite(timeout))
    fail("a timeout is a non-negative number of seconds");
  core::Interrupt local;
  core::Interrupt& interrupt = stop ? Access::interrupt(*stop) : local;
  core::InterruptScope scope(interrupt);
  if (timeout == 0) {
    work();
    return;
  }
  bool timed_out = false;
  {
    auto budget = std::chrono::milliseconds(std::max<int64_t>(1, std::llround(timeout * 1000)));
    core::Watchdog watchdog(interrupt, budget);
    try {
      work();
    } catch (const core::Error& e) {
      if (e.kind() != core::ErrorKind::Interrupted || !watchdog.fired())
        throw;
      timed_out = true;
    }
    // The watchdog's request is not the caller's: a token is left as it was.
    if (watchdog.fired())
      interrupt.reset();
  }
  if (timed_out) {
    std::ostringstream seconds;
    seconds << timeout;
    fail("the evaluation did not finish within the timeout of " + seconds.str() + " s");
  }
}

} // namespace api
} // namespace teval
