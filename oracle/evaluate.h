// Everything `teval check` compares a candidate with: for every output of
// a program, the interpreter's sequential result, the exact result and the
// rigorous bound of every legal evaluation.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"
#include "oracle/bounds.h"

#include <span>
#include <vector>

namespace teval::oracle {

/// The three values of every output, in kernel.outputs order.
struct Evaluation {
  std::vector<core::Tensor> sequential;
  std::vector<core::Tensor> exact;
  std::vector<BoundTensor> bounds;
};

/// How evaluate() computes them; every choice gives the same values.
struct EvaluateOptions {
  /// Compute each contraction over the inputs (oracle/fast_sum.h) from its
  /// terms, on every core; false walks every statement point by point
  /// (interp::run without blocks, run_exact, bounds), the definition.
  bool fast = true;
  /// Workers of the fast check (0: one per core, fewer for a small
  /// statement).
  int threads = 0;
};

/// Evaluates \p kernel on \p inputs (one per input, in declaration order)
/// three ways; throws the interpreter's errors as interp::run does.
Evaluation evaluate(const core::Kernel& kernel, std::span<const core::Tensor> inputs,
                    const BoundOptions& options, const EvaluateOptions& how = {});

} // namespace teval::oracle
