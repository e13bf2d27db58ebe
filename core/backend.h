// The one interface of every way teval evaluates a kernel: the interpreter,
// IREval of the lowered loop nest, and compiled code. Differential tests
// take backends as parameters.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace teval::core {

/// A kernel made ready by one backend.
class Executable {
public:
  virtual ~Executable() = default;
  /// Runs on \p inputs (one per input tensor, in declaration order) and
  /// returns the outputs in the kernel's output order. Throws Error for
  /// every condition the semantics call an error.
  virtual std::vector<Tensor> run(std::span<const Tensor> inputs) = 0;
  /// Whether a run leaves state that the next run starts from (compiled
  /// code's spare buffers, which users' repeated calls reuse): evaluate()
  /// then runs such an executable twice, and the second run must repeat
  /// the first.
  virtual bool keeps_state() const { return false; }
};

/// A way to evaluate kernels.
class Backend {
public:
  virtual ~Backend() = default;
  /// "interp", "ireval" or "jit".
  virtual std::string name() const = 0;
  /// Prepares \p kernel (copied; its spans must outlive the result).
  virtual std::unique_ptr<Executable> prepare(const Kernel& kernel) = 0;
};

/// What one backend made of one kernel and its inputs.
struct Outcome {
  std::vector<Tensor> outputs;
  /// The rendered diagnostic; empty on success.
  std::string error;
  /// The run was stopped because it went past its budget.
  bool hang = false;
  /// Wall time of the run, preparation (compilation) excluded.
  double seconds = 0;
  /// The backend cannot run this kernel (its preparation threw
  /// Error{Unsupported}, as the DSP does for what its runtime lacks): no
  /// verdict either way.
  bool unsupported = false;
};

/// Prepares \p kernel on \p backend and runs it on \p inputs (twice, on an
/// executable that keeps state: a second run that gives other outputs or
/// another error makes the outcome an internal error saying so). With a
/// \p budget, a run still going when it ends is interrupted and is a hang
/// (outputs and error empty). Preparation is not under the budget: a slow
/// compile is not a hang. Only Error is caught; internal assertions abort.
Outcome evaluate(Backend& backend, const Kernel& kernel, std::span<const Tensor> inputs,
                 std::optional<std::chrono::milliseconds> budget = std::nullopt);

/// How long a backend may run where a reference backend took
/// \p reference_seconds: max(1 s, 50 times as long). Generous on purpose:
/// it tells a backend that never stops from one that is slow.
std::chrono::milliseconds hang_budget(double reference_seconds);

} // namespace teval::core
