// Stopping an evaluation early: Ctrl-C in the REPL, and the time budget of
// differential checks, under which a backend that runs too long is a "hang".
//
// An Interrupt is installed for the current thread with an InterruptScope.
// The interpreter and IREval poll it at every point and loop iteration;
// compiled code cannot poll without slowing every loop, so a backend whose
// code runs outside teval's control registers a Waker that stops it (the
// JIT's sends its thread a signal that leaves the kernel). A stopped
// evaluation throws Error{ErrorKind::Interrupted} and leaves no output.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace teval::core {

/// A request to stop, made from any thread or from a signal handler.
class Interrupt {
public:
  /// Called by request() after the flag is set; must be async-signal-safe.
  using Waker = void (*)(void* arg);

  /// Asks the evaluation to stop. Async-signal-safe, callable from any
  /// thread; a request made while nothing runs stops the next evaluation
  /// at its first poll.
  void request() noexcept;
  /// Whether stopping was requested (and not reset since).
  bool requested() const noexcept { return flag_.load(std::memory_order_relaxed); }
  /// Withdraws a request.
  void reset() noexcept { flag_.store(false, std::memory_order_relaxed); }

  /// Registers \p waker for the code about to run (one at a time; nullptr
  /// removes it). A request already made is not re-delivered: the caller
  /// checks requested() after registering.
  void set_waker(Waker waker, void* arg) noexcept;

private:
  std::atomic<bool> flag_{false};
  // The waker is read in request(), possibly inside a signal handler, so it
  // is published as one pointer to a fixed pair.
  struct WakerCall {
    Waker fn;
    void* arg;
  };
  WakerCall call_{};
  std::atomic<WakerCall*> waker_{nullptr};
};

/// The Interrupt installed for this thread, or nullptr.
Interrupt* current_interrupt() noexcept;

/// Throws Error{Interrupted} when this thread's Interrupt was requested.
void poll_interrupt();

/// The error an interrupted evaluation throws.
[[noreturn]] void throw_interrupted();

/// Installs \p interrupt for the current thread for the scope's lifetime.
class InterruptScope {
public:
  explicit InterruptScope(Interrupt& interrupt) noexcept;
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

private:
  Interrupt* previous_;
};

/// Requests \p interrupt once \p budget has passed, unless destroyed first.
/// A deadline, not a measurement: it only bounds how long a stuck backend
/// can hold a test run.
class Watchdog {
public:
  Watchdog(Interrupt& interrupt, std::chrono::milliseconds budget);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  /// Whether the budget ran out (and the interrupt was requested).
  bool fired() const { return fired_.load(); }

private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::atomic<bool> fired_{false};
  std::thread thread_;
};

/// Runs \p work under a fresh Interrupt (installed for this thread) that a
/// Watchdog requests once \p budget has passed. Returns false when \p work
/// was stopped by it (it threw Error{Interrupted}), true when it finished;
/// any other exception propagates.
bool run_within(std::chrono::milliseconds budget, const std::function<void()>& work);

} // namespace teval::core
