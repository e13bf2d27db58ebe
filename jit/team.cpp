// The threads of parallel loops (see team.h).
#include "jit/team.h"

#include <atomic>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

namespace teval::jit {

Team::~Team() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  started_.notify_all();
  for (std::thread& t : threads_)
    t.join();
}

Team* Team::claim() {
  // Never destroyed: its threads wait for loops until the process ends.
  static std::atomic<Team*> shared{nullptr};
  Team* team = shared.load();
  if (!team || team->owner_ != getpid()) {
    // First use, or a forked child: the parent's threads do not exist here,
    // and its team's mutexes may have been held at the fork, so the child
    // leaves that team untouched.
    auto* fresh = new Team;
    fresh->owner_ = getpid();
    if (shared.compare_exchange_strong(team, fresh))
      team = fresh;
    else
      delete fresh; // another thread made one; team is now that one
  }
  return team->busy_.try_lock() ? team : nullptr;
}

void Team::release() {
  busy_.unlock();
}

void Team::start(int64_t parts, std::function<void(int64_t)> part) {
  std::lock_guard lock(mutex_);
  while (static_cast<int64_t>(threads_.size()) < parts - 1) {
    int64_t index = static_cast<int64_t>(threads_.size()) + 1;
    threads_.emplace_back([this, index, seen = generation_] { work(index, seen); });
  }
  part_ = std::move(part);
  parts_ = parts;
  running_ = parts - 1;
  ++generation_;
  started_.notify_all();
}

bool Team::wait_for(std::chrono::microseconds timeout) {
  std::unique_lock lock(mutex_);
  return finished_.wait_for(lock, timeout, [&] { return running_ == 0; });
}

void Team::signal(int signal) {
  std::lock_guard lock(mutex_);
  for (int64_t k = 1; k < parts_; ++k)
    pthread_kill(threads_[k - 1].native_handle(), signal);
}

void Team::work(int64_t index, uint64_t seen) {
  std::unique_lock lock(mutex_);
  for (;;) {
    started_.wait(lock, [&] { return quit_ || generation_ != seen; });
    if (quit_)
      return;
    seen = generation_;
    if (index >= parts_)
      continue;
    lock.unlock();
    part_(index);
    lock.lock();
    if (--running_ == 0)
      finished_.notify_all();
  }
}

} // namespace teval::jit
