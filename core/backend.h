// The one interface of every way teval evaluates a kernel: the interpreter,
// IREval of the lowered loop nest, and compiled code. Differential tests
// take backends as parameters.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"

#include <memory>
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

} // namespace teval::core
