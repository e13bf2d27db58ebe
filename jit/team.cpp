// The threads of parallel loops (see team.h).
#include "jit/team.h"

#include <atomic>
#include <chrono>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

namespace teval::jit {

Team::~Team() {
  {
    std::lock_guard lock(mutex_);
    quit_.store(true);
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

namespace {

// How long a thread spins before it sleeps. Waking a sleeping thread costs
// tens of microseconds (more on a virtual machine, whose idle processor the
// host has descheduled), as much as a small loop's part: a kernel's
// parallel loops follow each other closely, and a loop's caller usually
// waits only briefly for the other parts.
constexpr auto kSpin = std::chrono::microseconds(200);

// Spins until done() or kSpin has passed; done()'s last value.
template <class F> bool spin(F done) {
  auto until = std::chrono::steady_clock::now() + kSpin;
  for (unsigned k = 1;; ++k) {
    if (done())
      return true;
    if (k % 64 == 0 && std::chrono::steady_clock::now() > until)
      return done();
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

} // namespace

void Team::start(int64_t parts, std::function<void(int64_t)> part) {
  std::lock_guard lock(mutex_);
  while (static_cast<int64_t>(threads_.size()) < parts - 1) {
    int64_t index = static_cast<int64_t>(threads_.size()) + 1;
    threads_.emplace_back([this, index, seen = generation_.load()] { work(index, seen); });
  }
  part_ = std::move(part);
  parts_ = parts;
  running_.store(parts - 1);
  generation_.store(generation_.load() + 1);
  started_.notify_all();
}

bool Team::wait_for(std::chrono::microseconds timeout) {
  auto finished = [&] { return running_.load() == 0; };
  if (spin(finished))
    return true;
  std::unique_lock lock(mutex_);
  return finished_.wait_for(lock, timeout, finished);
}

void Team::signal(int signal) {
  std::lock_guard lock(mutex_);
  for (int64_t k = 1; k < parts_; ++k)
    pthread_kill(threads_[k - 1].native_handle(), signal);
}

void Team::work(int64_t index, uint64_t seen) {
  for (;;) {
    auto started = [&] { return quit_.load() || generation_.load() != seen; };
    if (!spin(started)) {
      std::unique_lock lock(mutex_);
      started_.wait(lock, started);
    }
    bool mine = false;
    {
      // The loop's generation and parts together (start() changes both).
      std::lock_guard lock(mutex_);
      if (quit_)
        return;
      seen = generation_.load();
      mine = index < parts_;
    }
    if (!mine)
      continue;
    part_(index);
    if (running_.fetch_sub(1) == 1) {
      std::lock_guard lock(mutex_);
      finished_.notify_all();
    }
  }
}

} // namespace teval::jit
