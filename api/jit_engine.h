// The JIT behind Engine::Jit, in its own library (the CMake component
// teval::jit) so that a consumer who needs only the interpreter does not
// link LLVM. The public API finds it through a weak reference: linking
// teval::jit defines it (and its link options make the linker pull it in).
#pragma once

#include "core/loopnest.h"
#include "core/tensor.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace teval::api {

/// One program compiled by the JIT: runnable from several threads.
class JitProgram {
public:
  virtual ~JitProgram() = default;
  /// Runs on \p threads threads where loops are parallel, writing each
  /// output whose \p destinations entry is not null there (see
  /// jit::CompiledKernel::run: a written output comes back as a view of
  /// its destination).
  virtual std::vector<core::Tensor> run(std::span<const core::Tensor> inputs, int threads,
                                        std::span<std::byte* const> destinations) const = 0;
  /// Whether the program provably never raises an error (core/bounds.h).
  virtual bool cannot_fail() const = 0;
};

} // namespace teval::api

/// Compiles \p nest, with the float freedoms of RunOptions (any_order:
/// Order::Any); defined by the teval::jit component only. The name is
/// unmangled so that the component's link option can name it.
extern "C" __attribute__((weak)) teval::api::JitProgram*
teval_api_compile_jit(const teval::core::LoopNest& nest, bool any_order, bool fma);

/// The optimised LLVM IR (\p assembly false) or the host assembly of
/// \p nest; defined by the teval::jit component only.
extern "C" __attribute__((weak)) std::string teval_api_emit_jit(const teval::core::LoopNest& nest,
                                                                bool assembly);
