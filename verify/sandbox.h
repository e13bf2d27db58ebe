// Running code under test in a child process, so that its crash or hang is
// a finding of a campaign and never the campaign's end. The child says
// which stage it is in and how long that stage may take; the parent kills
// it when a stage runs past its deadline, and tells a crash from a result.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace teval::verify {

/// The child's side: announces stages to the parent.
class Stage {
public:
  explicit Stage(int fd) : fd_(fd) {}
  /// \p what starts now and may take \p budget; the parent kills the child
  /// when it is still running after that (plus sandbox_grace()).
  void begin(const std::string& what, std::chrono::milliseconds budget);

private:
  int fd_;
};

/// How a sandboxed run ended.
struct ChildResult {
  enum class End {
    Returned, ///< the body returned; payload holds its result
    Crashed,  ///< the child died without a result (a signal, or an exit)
    Hung,     ///< a stage ran past its deadline and the child was killed
  };
  End end = End::Returned;
  std::string payload;
  /// The stage that was running when the child crashed or hung ("" before
  /// the first stage).
  std::string stage;
  /// For a crash: "killed by signal 11 (Segmentation fault)", or "exited
  /// with status 3 before reporting a result"; for a hang, the budget.
  std::string detail;
};

/// The time added to every stage's budget before the parent kills: stages
/// that can stop themselves (an interrupted evaluation) get to do so.
std::chrono::milliseconds sandbox_grace();

/// Runs \p body in a forked child and returns what it returned, or how it
/// died. The child's stdout and stderr go to /dev/null, it ignores SIGINT
/// (the parent decides when to stop) and is killed when the parent dies.
/// \p first_budget bounds the time before the body's first stage. Call it
/// from a single-threaded process: the child continues after fork().
ChildResult run_in_child(const std::function<std::string(Stage&)>& body,
                         std::chrono::milliseconds first_budget);

/// The wait status \p status in words: "killed by signal 11 (Segmentation
/// fault)", "exited with status 3".
std::string describe_wait_status(int status);

} // namespace teval::verify
