// Stopping an evaluation early (see interrupt.h).
#include "core/interrupt.h"

#include "core/error.h"

namespace teval::core {

namespace {

thread_local Interrupt* installed = nullptr;

} // namespace

void Interrupt::request() noexcept {
  flag_.store(true, std::memory_order_relaxed);
  if (WakerCall* w = waker_.load(std::memory_order_acquire))
    w->fn(w->arg);
}

void Interrupt::set_waker(Waker waker, void* arg) noexcept {
  waker_.store(nullptr, std::memory_order_release);
  if (!waker)
    return;
  call_ = {waker, arg};
  waker_.store(&call_, std::memory_order_release);
}

Interrupt* current_interrupt() noexcept {
  return installed;
}

void throw_interrupted() {
  throw Error(ErrorKind::Interrupted, std::string(), "evaluation interrupted");
}

void poll_interrupt() {
  if (installed && installed->requested())
    throw_interrupted();
}

InterruptScope::InterruptScope(Interrupt& interrupt) noexcept : previous_(installed) {
  installed = &interrupt;
}

InterruptScope::~InterruptScope() {
  installed = previous_;
}

Watchdog::Watchdog(Interrupt& interrupt, std::chrono::milliseconds budget) {
  thread_ = std::thread([this, &interrupt, budget] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (wake_.wait_for(lock, budget, [this] { return done_; }))
      return;
    fired_ = true;
    interrupt.request();
  });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

bool run_within(std::chrono::milliseconds budget, const std::function<void()>& work) {
  Interrupt interrupt;
  InterruptScope scope(interrupt);
  try {
    Watchdog watchdog(interrupt, budget);
    work();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted && interrupt.requested())
      return false;
    throw;
  }
  return true;
}

} // namespace teval::core
