// The Hexagon DSP target (see hexagon.h).
#include "jit/hexagon/hexagon.h"

#include "jit/codegen.h"
#include "jit/llvm_support.h"

#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <mutex>
#include <optional>

extern "C" {
void LLVMInitializeHexagonTargetInfo();
void LLVMInitializeHexagonTarget();
void LLVMInitializeHexagonTargetMC();
void LLVMInitializeHexagonAsmPrinter();
}

namespace teval::jit {

namespace {

constexpr const char* kTriple = "hexagon-unknown-linux-musl";
constexpr const char* kCpu = "hexagonv67";
constexpr const char* kFeatures = "+hvxv67,+hvx-length128b";

void initialize_hexagon() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeHexagonTargetInfo();
    LLVMInitializeHexagonTarget();
    LLVMInitializeHexagonTargetMC();
    LLVMInitializeHexagonAsmPrinter();
    // The loop vectorizer uses HVX only when asked, as clang's -mhvx asks
    // (the option is the Hexagon backend's own; no other target reads it).
    auto& options = llvm::cl::getRegisteredOptions();
    auto it = options.find("hexagon-autohvx");
    TEVAL_ASSERT(it != options.end(), "LLVM's Hexagon backend has no -hexagon-autohvx option");
    auto* autohvx = static_cast<llvm::cl::opt<bool>*>(it->second);
    autohvx->setValue(true);
  });
}

} // namespace

struct HexagonCompiler::Impl {
  JitOptions options;
  std::unique_ptr<llvm::TargetMachine> target;

  explicit Impl(JitOptions o) : options(o) {
    initialize_hexagon();
    std::string error;
    const llvm::Target* t = llvm::TargetRegistry::lookupTarget(kTriple, error);
    TEVAL_ASSERT(t, "LLVM has no Hexagon target: " + error);
    llvm::TargetOptions to;
    // Results must be bit-exact with IREval: no contraction into FMA.
    to.AllowFPOpFusion = llvm::FPOpFusion::Strict;
    target.reset(t->createTargetMachine(
        kTriple, kCpu, kFeatures, to, llvm::Reloc::Static, std::nullopt,
        o.opt_level >= 3 ? llvm::CodeGenOptLevel::Aggressive : llvm::CodeGenOptLevel::Default));
    TEVAL_ASSERT(target, "LLVM cannot make a Hexagon target machine");
  }

  struct Built {
    std::unique_ptr<llvm::LLVMContext> context;
    Generated generated;
  };

  Built build(const core::LoopNest& nest) {
    auto context = std::make_unique<llvm::LLVMContext>();
    Generated g =
        generate(nest, "teval_kernel", *context, kCpu, kFeatures, options.statements_per_function);
    g.module->setDataLayout(target->createDataLayout());
    g.module->setTargetTriple(kTriple);
    optimize(*g.module, *target, options.opt_level);
    return {std::move(context), std::move(g)};
  }
};

HexagonCompiler::HexagonCompiler(JitOptions options) : impl_(std::make_unique<Impl>(options)) {}

HexagonCompiler::~HexagonCompiler() = default;

std::string HexagonCompiler::emit_llvm(const core::LoopNest& nest) {
  auto [context, generated] = impl_->build(nest);
  return print_module(*generated.module);
}

std::string HexagonCompiler::emit_asm(const core::LoopNest& nest) {
  auto [context, generated] = impl_->build(nest);
  return emit_file(*generated.module, *impl_->target, llvm::CodeGenFileType::AssemblyFile);
}

std::string HexagonCompiler::emit_obj(const core::LoopNest& nest) {
  auto [context, generated] = impl_->build(nest);
  return emit_file(*generated.module, *impl_->target, llvm::CodeGenFileType::ObjectFile);
}

std::string HexagonCompiler::target() const {
  return std::string(kTriple) + " " + kCpu + " " + kFeatures;
}

} // namespace teval::jit
