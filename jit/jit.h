// The host JIT: loop nests compiled by LLVM 19 (ORC LLJIT) for the machine
// teval runs on, with its CPU's features (AVX2, AVX-512 where present).
// Compiled code computes bit for bit what IREval computes, and reports the
// same errors through a runtime error channel (jit/runtime.h); floating
// point contraction is off, so no fused multiply-add changes a result.
#pragma once

#include "core/backend.h"
#include "core/loopnest.h"
#include "core/schedule.h"
#include "core/tensor.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace teval::jit {

/// How code is optimised.
struct JitOptions {
  /// 0 to 3: the new pass manager's O0-O3 pipelines (loop and SLP
  /// vectorization from O2).
  int opt_level = 2;
  /// A check layered over the one run path (CompiledKernel::run): the
  /// buffers are provided exactly as without it, and compiled code then
  /// works on copies of them between watermarked pads, checked and copied
  /// back afterwards, as NNC's padded buffers do: a stray write is reported
  /// (as an internal error) instead of corrupting memory. Costs two copies
  /// of every buffer per run.
  bool watermarks = true;
  /// A loop nest's top-level statements are compiled into functions of at
  /// most this many (at least 1), so compile time grows linearly with the
  /// program; every split computes the same.
  size_t statements_per_function = 16;
  /// Schedules each loop nest for speed before code generation
  /// (core/schedule.h: results bit for bit the same), as \p scheduling says.
  bool schedule = true;
  core::ScheduleOptions scheduling;
  /// Threads a parallel loop runs on (at least 1; results are the same
  /// with any number).
  int threads = 1;
  /// Freedoms beyond the interpreter's bits (`teval run --order any`,
  /// `--fma`; docs/SEMANTICS.md, "Relaxed float arithmetic"): each float32
  /// or float64 reduction accumulated in any order and association, and
  /// products fused into the + or - they feed. Results then lie within
  /// teval check's bound (with --fma for fma) instead of equalling the
  /// interpreter's.
  bool any_order = false;
  bool fma = false;
  /// Keep compiled objects in the on-disk cache the environment names
  /// (jit/kernel_cache.h, docs/PERFORMANCE.md) and load them from it
  /// instead of compiling again.
  bool cache = false;
};

class Jit;

/// One compiled kernel. Its machine code is freed with it.
class CompiledKernel {
public:
  ~CompiledKernel();
  CompiledKernel(const CompiledKernel&) = delete;
  CompiledKernel& operator=(const CompiledKernel&) = delete;

  /// Runs the kernel: \p inputs as for interp::ireval; returns the outputs.
  /// Throws Error exactly where IREval would. Under a core::Interrupt
  /// (core/interrupt.h) a request stops the run with Error{Interrupted}:
  /// compiled loops do not poll, so teval installs a SIGUSR2 handler
  /// (chaining to an earlier one) and the request signals the running
  /// thread, which leaves the kernel. A program that uses SIGUSR2 itself
  /// should not run kernels under an Interrupt. Parallel loops run on
  /// \p threads threads (0: as the Jit's options say).
  ///
  /// \p destinations, when not empty, has one entry per output: where not
  /// null, the code writes that output there (C order, its size, aligned
  /// for its dtype, overlapping no input or other destination; the
  /// contents on entry do not matter) and returns a view of it (an output
  /// that is an input returned as it is ignores its destination).
  /// The caller owns what a failed or interrupted run leaves there.
  std::vector<core::Tensor> run(std::span<const core::Tensor> inputs, int threads = 0,
                                std::span<std::byte* const> destinations = {}) const;

private:
  friend class Jit;
  struct State;
  explicit CompiledKernel(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// A JIT session. Kernels compiled by one session may run concurrently
/// with each other; compile() itself is not thread-safe.
class Jit {
public:
  explicit Jit(JitOptions options = {});
  ~Jit();
  Jit(const Jit&) = delete;
  Jit& operator=(const Jit&) = delete;

  /// Compiles \p nest (which is copied; its spans must outlive the result).
  std::unique_ptr<CompiledKernel> compile(const core::LoopNest& nest);

  /// The optimised LLVM IR of \p nest, as `teval jit --emit llvm` prints it.
  std::string emit_llvm(const core::LoopNest& nest);
  /// The host assembly of \p nest.
  std::string emit_asm(const core::LoopNest& nest);
  /// The host object file (ELF) of \p nest: its function teval_kernel and
  /// undefined references to the runtime and the math library.
  std::string emit_obj(const core::LoopNest& nest);

  /// The target triple, CPU name and features code is compiled for.
  std::string target() const;

  /// \p nest as compile() schedules it for this target (JitOptions::
  /// scheduling with the target's vector registers); \p log, when given,
  /// receives the schedule's steps (`teval lower --schedule`).
  core::LoopNest schedule(const core::LoopNest& nest, std::string* log = nullptr) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The JIT as a Backend: lower, compile, run.
std::unique_ptr<core::Backend> jit_backend(JitOptions options = {});

} // namespace teval::jit
