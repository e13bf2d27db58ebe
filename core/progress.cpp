// Progress counters and the terminal line that shows them (see progress.h).
#include "core/progress.h"

#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace teval::core {

namespace {
thread_local Progress* installed = nullptr;
} // namespace

Progress* current_progress() noexcept {
  return installed;
}

ProgressScope::ProgressScope(Progress& progress) noexcept : previous_(installed) {
  installed = &progress;
}

ProgressScope::~ProgressScope() {
  installed = previous_;
}

std::string ProgressLine::text(const Progress& p, const std::string& prefix, double seconds) {
  std::string line = prefix + ": ";
  int64_t statement = p.statement.load(std::memory_order_relaxed);
  if (statement > 0) {
    int64_t done = p.done.load(std::memory_order_relaxed);
    int64_t total = p.total.load(std::memory_order_relaxed);
    line += "statement " + std::to_string(statement) + "/" +
            std::to_string(p.statements.load(std::memory_order_relaxed)) + ", ";
    int percent = total > 0 ? static_cast<int>(static_cast<double>(done) * 100 / total) : 0;
    line += std::to_string(percent) + "% of " + std::to_string(total) + " points, ";
  } else {
    line += "evaluating, ";
  }
  return line + std::to_string(static_cast<int64_t>(seconds)) + " s";
}

ProgressLine::ProgressLine(const Progress& progress, std::string prefix)
    : progress_(progress), prefix_(std::move(prefix)) {
  if (!isatty(STDERR_FILENO))
    return;
  thread_ = std::thread([this] {
    using namespace std::chrono;
    auto start = steady_clock::now();
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, seconds(1), [this] { return done_; }))
      return;
    do {
      double s = duration<double>(steady_clock::now() - start).count();
      // Erase to the end of the line: the new text may be shorter.
      std::string line = "\r" + text(progress_, prefix_, s) + "\033[K";
      std::fwrite(line.data(), 1, line.size(), stderr);
      std::fflush(stderr);
      shown_ = true;
    } while (!wake_.wait_for(lock, milliseconds(250), [this] { return done_; }));
  });
}

ProgressLine::~ProgressLine() {
  if (!thread_.joinable())
    return;
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (shown_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

} // namespace teval::core
