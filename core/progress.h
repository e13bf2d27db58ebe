// How far a long evaluation has come: counters the interpreter updates as
// it goes, and a line on a terminal that shows them.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace teval::core {

/// Counters an evaluation updates and another thread reads. Statements
/// count from 1; 0 means none has started (or the engine does not say).
struct Progress {
  std::atomic<int64_t> statement{0};
  std::atomic<int64_t> statements{0};
  /// Index points of the current statement walked so far, and in all.
  std::atomic<int64_t> done{0};
  std::atomic<int64_t> total{0};
};

/// The Progress installed for this thread, or nullptr: evaluations report
/// to it when there is one.
Progress* current_progress() noexcept;

/// Installs \p progress for the current thread for the scope's lifetime.
class ProgressScope {
public:
  explicit ProgressScope(Progress& progress) noexcept;
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

private:
  Progress* previous_;
};

/// Shows \p progress on standard error while it lives, when standard error
/// is a terminal: after the first second, one line rewritten four times a
/// second — `PREFIX: statement 2/5, 37% of 2147483648 points, 12 s`
/// (elapsed time only while no statement is reported) — and erased at the
/// end, so that what follows starts on a clean line.
class ProgressLine {
public:
  ProgressLine(const Progress& progress, std::string prefix);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// The line for \p progress after \p seconds (without the leading
  /// carriage return), for tests.
  static std::string text(const Progress& progress, const std::string& prefix, double seconds);

private:
  const Progress& progress_;
  std::string prefix_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  bool shown_ = false;
  std::thread thread_;
};

} // namespace teval::core
