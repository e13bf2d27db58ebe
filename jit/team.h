// The threads that run the parts of parallel loops. Starting a thread per
// part and polling for its end cost a 1 ms kernel a tenth of its time, so
// one team is kept for the process: its threads wait between loops,
// spinning for a while and then asleep on a condition variable, and the
// loop's caller waits for the last part the same way.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace teval::jit {

/// Threads running parts 1 .. parts-1 of one parallel loop at a time (the
/// loop's caller runs part 0). The process's team is shared(); a loop that
/// finds it in use by another thread's loop makes a team of its own, whose
/// threads end with it.
class Team {
public:
  Team() = default;
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  /// Ends and joins the threads.
  ~Team();

  /// The process's team, claimed for one loop; null while another loop has
  /// it. A forked child gets a team of its own (the parent's threads are
  /// not in it). Hand it back with release().
  static Team* claim();
  void release();

  /// Starts part(k) for every k in [1, parts) on the team's threads (started
  /// as needed) and returns at once. The previous loop must have finished.
  void start(int64_t parts, std::function<void(int64_t)> part);
  /// Waits at most \p timeout for the started parts to end; true if they all
  /// have.
  bool wait_for(std::chrono::microseconds timeout);
  /// Sends \p signal to the threads of the started parts.
  void signal(int signal);

private:
  // Thread \p index's life: it waits for a loop after \p seen (one started
  // during a loop takes part in that loop).
  void work(int64_t index, uint64_t seen);

  std::mutex busy_; // held from claim() to release()
  std::mutex mutex_;
  std::condition_variable started_;
  std::condition_variable finished_;
  std::vector<std::thread> threads_; // threads_[k - 1] runs part k
  std::function<void(int64_t)> part_;
  int64_t parts_ = 0;
  // Parts not finished; loops started; set when the team ends. Read while
  // spinning, outside mutex_ (whose holder changes them).
  std::atomic<int64_t> running_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> quit_{false};
  pid_t owner_ = 0;
};

} // namespace teval::jit
