// The teval::jit component: Engine::Jit through jit/ (ORC LLJIT).
#include "api/jit_engine.h"

#include "core/bounds.h"
#include "jit/jit.h"

namespace teval::api {
namespace {

// The session owns the compiled code, so it lives as long as the program.
// A user's run: no watermark copies of the buffers (teval's own tests and
// campaigns run with them).
class Compiled final : public JitProgram {
public:
  Compiled(const core::LoopNest& nest, bool any_order, bool fma)
      : session_(std::make_unique<jit::Jit>(
            jit::JitOptions{.watermarks = false, .any_order = any_order, .fma = fma})),
        kernel_(session_->compile(nest)),
        cannot_fail_(!nest.root || core::cannot_fail(nest, nest.root)) {}
  std::vector<core::Tensor> run(std::span<const core::Tensor> inputs, int threads,
                                std::span<std::byte* const> destinations) const override {
    return kernel_->run(inputs, threads, destinations);
  }
  bool cannot_fail() const override { return cannot_fail_; }

private:
  std::unique_ptr<jit::Jit> session_;
  std::unique_ptr<jit::CompiledKernel> kernel_;
  bool cannot_fail_;
};

} // namespace
} // namespace teval::api

extern "C" teval::api::JitProgram* teval_api_compile_jit(const teval::core::LoopNest& nest,
                                                         bool any_order, bool fma) {
  return new teval::api::Compiled(nest, any_order, fma);
}

extern "C" std::string teval_api_emit_jit(const teval::core::LoopNest& nest, bool assembly) {
  teval::jit::Jit session;
  return assembly ? session.emit_asm(nest) : session.emit_llvm(nest);
}
