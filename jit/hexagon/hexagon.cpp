// The Hexagon DSP target (see hexagon.h).
#include "jit/hexagon/hexagon.h"

#include "core/fault.h"
#include "core/interrupt.h"
#include "core/lower.h"
#include "core/shape.h"
#include "jit/codegen.h"
#include "jit/hexagon/dsp_runner.h"
#include "jit/llvm_support.h"
#include "jit/runtime.h"

#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Signals.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <optional>

#include <unistd.h>

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
constexpr const char* kFeatures = "+hvxv67,+hvx-length128b,+long-calls";

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
    // No small-data section: its GP-relative relocations are ones ld.lld
    // cannot resolve (and the runtime sets up no GP).
    auto small = options.find("hexagon-small-data-threshold");
    TEVAL_ASSERT(small != options.end(),
                 "LLVM's Hexagon backend has no -hexagon-small-data-threshold option");
    static_cast<llvm::cl::opt<unsigned>*>(small->second)->setValue(0);
  });
}

// LLVM 19's Hexagon code generator loses the NaN half of some float
// comparisons: a float64 select on `fcmp ult` (or `one`) becomes one
// dfcmp.gt (or dfcmp.eq) and a vmux, wrong when an operand is NaN
// (`teval diff --engine hexagon` found it: `select(-2.0 <= O % O, O, -O)`
// with O % O NaN). Which forms are safe is the code generator's business,
// so the DSP's code has no float comparison left for it: after the
// optimiser, every fcmp becomes integer arithmetic on the bits — NaN is a
// magnitude above infinity's, and sign-magnitude keys order the rest with
// -0 equal to +0.
void compare_floats_as_integers(llvm::Module& m) {
  std::vector<llvm::FCmpInst*> compares;
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& i : block)
        if (auto* c = llvm::dyn_cast<llvm::FCmpInst>(&i))
          compares.push_back(c);
  for (llvm::FCmpInst* c : compares) {
    llvm::IRBuilder<> b(c);
    llvm::Type* type = c->getOperand(0)->getType();
    unsigned width = type->getScalarSizeInBits();
    llvm::Type* bits = b.getIntNTy(width);
    if (auto* v = llvm::dyn_cast<llvm::VectorType>(type))
      bits = llvm::VectorType::get(bits, v->getElementCount());
    auto constant = [&](const llvm::APInt& value) { return llvm::ConstantInt::get(bits, value); };
    llvm::APInt magnitude_mask = llvm::APInt::getSignedMaxValue(width);
    llvm::APInt infinity =
        llvm::APInt::getBitsSetFrom(width, type->getScalarType()->getFPMantissaWidth() - 1) &
        magnitude_mask;
    auto key = [&](llvm::Value* x, llvm::Value*& nan) {
      llvm::Value* raw = b.CreateBitCast(x, bits);
      llvm::Value* magnitude = b.CreateAnd(raw, constant(magnitude_mask));
      nan = b.CreateICmpUGT(magnitude, constant(infinity));
      llvm::Value* negative = b.CreateICmpSLT(raw, constant(llvm::APInt(width, 0)));
      return b.CreateSelect(negative, b.CreateNeg(magnitude), magnitude);
    };
    llvm::Value *nan_x, *nan_y;
    llvm::Value* x = key(c->getOperand(0), nan_x);
    llvm::Value* y = key(c->getOperand(1), nan_y);
    llvm::Value* unordered = b.CreateOr(nan_x, nan_y);
    llvm::Value* ordered = b.CreateNot(unordered);
    using P = llvm::CmpInst::Predicate;
    auto integer = [&](P p) { return b.CreateICmp(p, x, y); };
    llvm::Value* r = nullptr;
    switch (c->getPredicate()) {
    case P::FCMP_FALSE:
      r = llvm::ConstantInt::getFalse(c->getType());
      break;
    case P::FCMP_TRUE:
      r = llvm::ConstantInt::getTrue(c->getType());
      break;
    case P::FCMP_ORD:
      r = ordered;
      break;
    case P::FCMP_UNO:
      r = unordered;
      break;
    case P::FCMP_OEQ:
      r = b.CreateAnd(ordered, integer(P::ICMP_EQ));
      break;
    case P::FCMP_ONE:
      r = b.CreateAnd(ordered, integer(P::ICMP_NE));
      break;
    case P::FCMP_OGT:
      r = b.CreateAnd(ordered, integer(P::ICMP_SGT));
      break;
    case P::FCMP_OGE:
      r = b.CreateAnd(ordered, integer(P::ICMP_SGE));
      break;
    case P::FCMP_OLT:
      r = b.CreateAnd(ordered, integer(P::ICMP_SLT));
      break;
    case P::FCMP_OLE:
      r = b.CreateAnd(ordered, integer(P::ICMP_SLE));
      break;
    case P::FCMP_UEQ:
      r = b.CreateOr(unordered, integer(P::ICMP_EQ));
      break;
    case P::FCMP_UNE:
      r = b.CreateOr(unordered, integer(P::ICMP_NE));
      break;
    case P::FCMP_UGT:
      r = b.CreateOr(unordered, integer(P::ICMP_SGT));
      break;
    case P::FCMP_UGE:
      r = b.CreateOr(unordered, integer(P::ICMP_SGE));
      break;
    case P::FCMP_ULT:
      r = b.CreateOr(unordered, integer(P::ICMP_SLT));
      break;
    case P::FCMP_ULE:
      r = b.CreateOr(unordered, integer(P::ICMP_SLE));
      break;
    default:
      TEVAL_UNREACHABLE("not a float comparison predicate");
    }
    c->replaceAllUsesWith(r);
    c->eraseFromParent();
  }
}

} // namespace

struct HexagonCompiler::Impl {
  JitOptions options;
  std::string features;
  std::unique_ptr<llvm::TargetMachine> target;

  Impl(JitOptions o, bool hvx) : options(o), features(hvx ? kFeatures : "-hvx,+long-calls") {
    initialize_hexagon();
    std::string error;
    const llvm::Target* t = llvm::TargetRegistry::lookupTarget(kTriple, error);
    TEVAL_ASSERT(t, "LLVM has no Hexagon target: " + error);
    llvm::TargetOptions to;
    // Results must be bit-exact with IREval: no contraction into FMA.
    to.AllowFPOpFusion = llvm::FPOpFusion::Strict;
    target.reset(t->createTargetMachine(
        kTriple, kCpu, features, to, llvm::Reloc::Static, std::nullopt,
        o.opt_level >= 3 ? llvm::CodeGenOptLevel::Aggressive : llvm::CodeGenOptLevel::Default));
    TEVAL_ASSERT(target, "LLVM cannot make a Hexagon target machine");
  }

  struct Built {
    std::unique_ptr<llvm::LLVMContext> context;
    Generated generated;
  };

  // The kernel's IR for the DSP, not yet optimised.
  Generated generate_ir(const core::LoopNest& nest, llvm::LLVMContext& context) {
    Generated g = generate(nest, "teval_kernel", context, kCpu, features,
                           options.statements_per_function, {options.any_order, options.fma});
    g.module->setDataLayout(target->createDataLayout());
    g.module->setTargetTriple(kTriple);
    return g;
  }

  // The optimiser's pipeline, then what the DSP's code generator needs.
  // No SLP vectorization: LLVM 19's Hexagon backend miscompiles some of the
  // HVX shuffles it makes of straight-line stores (output0[N, M, P, Q] =
  // input0[Q, Q, 1 - N] over 2x3x2x3 int32 stored garbage, 0xF9F9F9F9, in
  // every Q = 0 lane of a 32-lane store built from insertelement and
  // shufflevector), and it is where vector legalization crashed before
  // (see compile below). Loops are still vectorized for HVX.
  void optimize_for_dsp(llvm::Module& m, bool vectorize = true) {
    optimize(m, *target, options.opt_level, vectorize, /*slp=*/false);
    compare_floats_as_integers(m);
  }

  Built build(const core::LoopNest& nest) {
    auto context = std::make_unique<llvm::LLVMContext>();
    Generated g = generate_ir(nest, *context);
    optimize_for_dsp(*g.module);
    return {std::move(context), std::move(g)};
  }
};

HexagonCompiler::HexagonCompiler(JitOptions options, bool hvx)
    : impl_(std::make_unique<Impl>(options, hvx)) {}

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

struct DspKernel::State {
  core::LoopNest nest;
  std::vector<Site> sites;
  std::unique_ptr<dsp::Executable> executable;
};

DspKernel::DspKernel(std::unique_ptr<State> state) : state_(std::move(state)) {}
DspKernel::~DspKernel() = default;

std::unique_ptr<DspKernel> HexagonCompiler::compile(const core::LoopNest& nest,
                                                    const std::string& name) {
  // The IR here; optimisation and code generation in a child process.
  auto context = std::make_unique<llvm::LLVMContext>();
  Generated generated = impl_->generate_ir(nest, *context);
  auto object_code = [&](bool vectorize) {
    return dsp::isolated(
        [&] {
          // A crash in LLVM says where, in the kernel's error.
          llvm::sys::PrintStackTraceOnErrorSignal("teval");
          impl_->optimize_for_dsp(*generated.module, vectorize);
          return emit_file(*generated.module, *impl_->target, llvm::CodeGenFileType::ObjectFile);
        },
        name, std::chrono::seconds(120));
  };
  std::string object;
  try {
    object = object_code(true);
  } catch (const dsp::CompileFailure&) {
    // LLVM 19's Hexagon vector legalization reads memory it never wrote on
    // some kernels (a segmentation fault in SelectionDAG::LegalizeVectors,
    // depending on the compiling process's history, on a 64-byte vector
    // store the SLP vectorizer made): such a kernel is compiled again
    // without vectorization, in a fresh child, and runs as scalar code.
    object = object_code(false);
  }
  // Every symbol the kernel leaves undefined must come from the runtime.
  auto buffer = llvm::MemoryBuffer::getMemBuffer(object, "kernel.o", false);
  auto file = check(llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef()),
                    "reading the kernel's object");
  for (const llvm::object::SymbolRef& symbol : file->symbols()) {
    uint32_t flags = check(symbol.getFlags(), "a symbol's flags");
    if (!(flags & llvm::object::SymbolRef::SF_Undefined))
      continue;
    std::string s = check(symbol.getName(), "a symbol's name").str();
    const auto& have = dsp::runtime_symbols();
    if (!s.empty() && std::find(have.begin(), have.end(), s) == have.end())
      throw core::Error(core::ErrorKind::Unsupported, name,
                        "the kernel calls " + s + ", which teval's DSP runtime does not define");
  }
  auto state = std::make_unique<DspKernel::State>();
  state->nest = nest;
  state->sites = std::move(generated.sites);
  state->executable = std::make_unique<dsp::Executable>(object, name);
  return std::unique_ptr<DspKernel>(new DspKernel(std::move(state)));
}

std::vector<std::vector<std::byte>> DspKernel::buffers(std::span<const core::Tensor> inputs) const {
  const core::LoopNest& n = state_->nest;
  TEVAL_ASSERT(inputs.size() == n.inputs.size(), "wrong number of inputs");
  std::vector<std::vector<std::byte>> buffers(n.buffers.size());
  std::vector<bool> given(n.buffers.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const core::Buffer& b = n.buffers[n.inputs[i]];
    core::check_input(b.name, b.dtype, b.shape, b.span, inputs[i]);
    buffers[n.inputs[i]].assign(inputs[i].bytes().begin(), inputs[i].bytes().end());
    given[n.inputs[i]] = true;
  }
  for (size_t i = 0; i < n.buffers.size(); ++i) {
    if (given[i])
      continue;
    buffers[i].assign(core::storage_bytes(n.buffers[i]), std::byte{0});
  }
  return buffers;
}

DspKernel::Executed DspKernel::executed(std::span<const core::Tensor> inputs) const {
  std::string pattern = (std::filesystem::temp_directory_path() / "teval-trace-XXXXXX").string();
  int fd = ::mkstemp(pattern.data());
  TEVAL_ASSERT(fd >= 0, "cannot make a temporary file");
  ::close(fd);
  std::filesystem::path trace = pattern;
  struct Remove {
    std::filesystem::path p;
    ~Remove() {
      std::error_code ignored;
      std::filesystem::remove(p, ignored);
    }
  } remove{trace};
  state_->executable->run(buffers(inputs), std::chrono::minutes(10), &trace);
  return dsp::executed(trace);
}

std::vector<core::Tensor> DspKernel::run(std::span<const core::Tensor> inputs,
                                         std::chrono::milliseconds budget) const {
  core::poll_interrupt();
  return outputs(state_->executable->run(buffers(inputs), budget));
}

std::vector<core::Tensor> DspKernel::run_alone(std::span<const core::Tensor> inputs,
                                               std::chrono::milliseconds budget) const {
  core::poll_interrupt();
  return outputs(state_->executable->run_standalone(buffers(inputs), budget));
}

std::vector<core::Tensor> DspKernel::outputs(const dsp::Outcome& o) const {
  const core::LoopNest& n = state_->nest;
  if (!o.ok) {
    TEVAL_ASSERT(o.site >= 0 && static_cast<size_t>(o.site) < state_->sites.size(),
                 "the DSP kernel failed without an error site");
    throw site_error(n, state_->sites[static_cast<size_t>(o.site)], o.values);
  }
  std::vector<core::Tensor> out;
  for (int id : n.outputs) {
    core::Tensor t(n.buffers[id].dtype, n.buffers[id].shape);
    size_t keep = o.buffers[id].size();
    if (planted(38)) // fault: whole 128-byte vectors only, the tail lost
      keep = keep / 128 * 128;
    std::copy(o.buffers[id].begin(), o.buffers[id].begin() + static_cast<std::ptrdiff_t>(keep),
              t.bytes().begin());
    out.push_back(std::move(t));
  }
  return out;
}

std::string HexagonCompiler::target() const {
  return std::string(kTriple) + " " + kCpu + " " + impl_->features;
}

namespace {

class DspExecutable : public core::Executable {
public:
  DspExecutable(HexagonCompiler& compiler, const core::Kernel& k)
      : kernel_(compiler.compile(core::lower(k), "the kernel")) {}
  std::vector<core::Tensor> run(std::span<const core::Tensor> inputs) override {
    return kernel_->run(inputs);
  }

private:
  std::unique_ptr<DspKernel> kernel_;
};

class DspBackend : public core::Backend {
public:
  explicit DspBackend(JitOptions o) : compiler_(o) {}
  std::string name() const override { return "hexagon"; }
  std::unique_ptr<core::Executable> prepare(const core::Kernel& k) override {
    return std::make_unique<DspExecutable>(compiler_, k);
  }

private:
  HexagonCompiler compiler_;
};

} // namespace

void prepare_dsp_simulator() {
  try {
    dsp::start_session();
  } catch (const core::Error& e) {
    if (e.kind() != core::ErrorKind::Unsupported)
      throw;
  }
}

std::unique_ptr<core::Backend> hexagon_backend(JitOptions options) {
  return std::make_unique<DspBackend>(options);
}

} // namespace teval::jit
