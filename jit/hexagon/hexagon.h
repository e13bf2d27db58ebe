// The Hexagon DSP target: loop nests compiled by LLVM 19 for Hexagon v67
// with HVX vectors of 128 bytes, the DSP the HTP op packages of seed 001
// run on. This first step emits the code (LLVM IR, assembly, an ELF
// object); running it under qemu-hexagon comes with its runtime.
// Floating-point contraction is off, as on the host.
#pragma once

#include "core/loopnest.h"
#include "jit/jit.h"

#include <memory>
#include <string>

namespace teval::jit {

class HexagonCompiler {
public:
  explicit HexagonCompiler(JitOptions options = {});
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

  /// "hexagon-unknown-linux-musl hexagonv67 +hvxv67,+hvx-length128b".
  std::string target() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace teval::jit
