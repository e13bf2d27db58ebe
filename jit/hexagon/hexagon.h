// The Hexagon DSP target: loop nests compiled by LLVM 19 for Hexagon v67
// with HVX vectors of 128 bytes, the DSP the HTP op packages of seed 001
// run on. The code is emitted (LLVM IR, assembly, an ELF object) and runs
// under qemu-hexagon on teval's freestanding runtime (dsp_runner.h).
// Floating-point contraction is off, as on the host.
#pragma once

#include "core/backend.h"
#include "core/loopnest.h"
#include "jit/jit.h"

#include "core/tensor.h"

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace teval::jit {

namespace dsp {
class Executable;
struct Outcome;
} // namespace dsp

/// A kernel linked for the DSP, run in this process's resident simulator.
class DspKernel {
public:
  ~DspKernel();
  DspKernel(const DspKernel&) = delete;
  DspKernel& operator=(const DspKernel&) = delete;

  /// Runs the kernel: \p inputs as for interp::ireval; returns the outputs
  /// or throws the Error IREval would, or an Error naming the kernel when
  /// the simulator fails or runs past \p budget.
  std::vector<core::Tensor> run(std::span<const core::Tensor> inputs,
                                std::chrono::milliseconds budget = std::chrono::seconds(60)) const;
  /// As run(), in a qemu-hexagon of its own: what a run costs without the
  /// resident simulator (for measurements).
  std::vector<core::Tensor>
  run_alone(std::span<const core::Tensor> inputs,
            std::chrono::milliseconds budget = std::chrono::seconds(60)) const;

  /// What the kernel executes on \p inputs: VLIW packets and instruction
  /// words, counted from qemu-hexagon's trace of the run (slow: every
  /// executed block is logged).
  struct Executed {
    uint64_t packets = 0;
    uint64_t words = 0;
  };
  Executed executed(std::span<const core::Tensor> inputs) const;

private:
  friend class HexagonCompiler;
  struct State;
  std::vector<std::vector<std::byte>> buffers(std::span<const core::Tensor> inputs) const;
  std::vector<core::Tensor> outputs(const dsp::Outcome& o) const;
  explicit DspKernel(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

class HexagonCompiler {
public:
  /// \p hvx false compiles for the scalar core only (to measure what the
  /// vector unit brings).
  explicit HexagonCompiler(JitOptions options = {}, bool hvx = true);
  ~HexagonCompiler();
  HexagonCompiler(const HexagonCompiler&) = delete;
  HexagonCompiler& operator=(const HexagonCompiler&) = delete;

  /// The optimised LLVM IR of \p nest for the DSP.
  std::string emit_llvm(const core::LoopNest& nest);
  /// Its Hexagon assembly.
  std::string emit_asm(const core::LoopNest& nest);
  /// Its ELF relocatable object (EM_HEXAGON): the function teval_kernel,
  /// with undefined references to the runtime and the math functions.
  std::string emit_obj(const core::LoopNest& nest);

  /// Compiles \p nest (copied; its spans must outlive the result) and
  /// links it with the DSP runtime. \p name names the kernel in errors.
  /// Throws Error(Unsupported) for code the runtime cannot serve yet (math
  /// functions, float16/bfloat16 arithmetic) or a missing
  /// tool chain.
  std::unique_ptr<DspKernel> compile(const core::LoopNest& nest, const std::string& name);

  /// "hexagon-unknown-linux-musl hexagonv67 +hvxv67,+hvx-length128b".
  std::string target() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Starts this process's resident DSP simulator, or replaces it when it
/// died or was left in mid-conversation, so that processes forked from
/// this one next (a campaign's sandboxed cases) run their kernels in it
/// rather than each in a qemu-hexagon of its own. Does nothing when
/// qemu-hexagon is not installed: the kernels' runs say so.
void prepare_dsp_simulator();

/// The DSP as a backend for differential checks: "hexagon". prepare()
/// throws Error(Unsupported) for a kernel the runtime cannot serve yet.
std::unique_ptr<core::Backend> hexagon_backend(JitOptions options = {});

} // namespace teval::jit
