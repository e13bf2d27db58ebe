// The host JIT (see jit.h).
#include "jit/jit.h"

#include "core/fault.h"
#include "core/lower.h"
#include "core/schedule.h"
#include "core/tmath.h"
#include "jit/codegen.h"
#include "jit/compiled_kernel.h"
#include "jit/kernel_cache.h"
#include "jit/llvm_support.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <thread>

namespace teval::jit {

namespace orc = llvm::orc;

namespace {

/// Every kernel's entry point: each kernel has a JITDylib of its own, so
/// its code is the same in every process and a cached object fits.
constexpr const char* kEntry = "teval_kernel";

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

} // namespace

struct Jit::Impl {
  JitOptions options;
  orc::JITTargetMachineBuilder machine;
  std::unique_ptr<llvm::TargetMachine> target;
  std::unique_ptr<orc::LLJIT> jit;
  /// The kernels' JITDylibs are numbered.
  uint64_t kernels = 0;
  /// Compiled objects on disk (JitOptions::cache), or nothing.
  std::optional<KernelCache> cache;

  explicit Impl(JitOptions o)
      : options(o), machine(check(orc::JITTargetMachineBuilder::detectHost(), "host detection")) {
    if (o.cache)
      cache = KernelCache::from_environment();
    // Results must be bit-exact with IREval: no contraction into FMA.
    machine.getOptions().AllowFPOpFusion =
        planted(11) ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Strict; // fault 11: FMA
    machine.setCodeGenOptLevel(o.opt_level >= 3 ? llvm::CodeGenOptLevel::Aggressive
                                                : llvm::CodeGenOptLevel::Default);
    target = check(machine.createTargetMachine(), "target machine");
    jit = check(orc::LLJITBuilder().setJITTargetMachineBuilder(machine).create(), "LLJIT");
    orc::JITDylib& lib = jit->getMainJITDylib();
    // Whatever else LLVM's code calls (memcpy, memset) from the process.
    lib.addGenerator(check(orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                               jit->getDataLayout().getGlobalPrefix()),
                           "process symbols"));
    orc::SymbolMap runtime;
    auto add = [&](const char* name, auto* fn) {
      runtime[jit->mangleAndIntern(name)] = {orc::ExecutorAddr::fromPtr(fn),
                                             llvm::JITSymbolFlags::Exported};
    };
    add("teval_rt_fail", &teval_rt_fail);
    add("teval_rt_parallel_for", &teval_rt_parallel_for);
    add("teval_rt_round_f16", &teval_rt_round_f16);
    add("teval_rt_round_bf16", &teval_rt_round_bf16);
    add("teval_rt_i64_to_f16", &teval_rt_i64_to_f16);
    add("teval_rt_i64_to_bf16", &teval_rt_i64_to_bf16);
    // teval's math library: the functions the interpreter calls.
#define TEVAL_TMATH_ADD(name)                                                                      \
  add("teval_" #name, &teval_##name);                                                              \
  add("teval_" #name "f", &teval_##name##f);
    TEVAL_TMATH_UNARY(TEVAL_TMATH_ADD)
#undef TEVAL_TMATH_ADD
    add("teval_pow", &teval_pow);
    add("teval_powf", &teval_powf);
    add("teval_atan2", &teval_atan2);
    add("teval_atan2f", &teval_atan2f);
    add("teval_fmod", &teval_fmod);
    check(lib.define(orc::absoluteSymbols(std::move(runtime))), "runtime symbols");
  }

  // The context is declared first so that it outlives the module.
  struct Built {
    std::unique_ptr<llvm::LLVMContext> context;
    Generated generated;
  };

  // Generated and optimised code for \p nest in a fresh context.
  // \p nest scheduled for speed (results unchanged), unless switched off.
  core::LoopNest scheduled(const core::LoopNest& nest, std::string* log = nullptr) const {
    core::ScheduleOptions scheduling = options.scheduling;
    scheduling.any_order = options.any_order;
    VectorRegisters vectors = x86_vector_registers(target->getTargetFeatureString().str());
    scheduling.vector_bytes = vectors.bytes;
    scheduling.vector_registers = vectors.count;
    return options.schedule ? core::schedule(nest, scheduling, log) : nest;
  }

  // Code for \p nest as it is (scheduled by the caller).
  Built build(const core::LoopNest& nest, const std::string& entry) {
    auto context = std::make_unique<llvm::LLVMContext>();
    Generated g = generate(nest, entry, *context, target->getTargetCPU().str(),
                           target->getTargetFeatureString().str(), options.statements_per_function,
                           {options.any_order, options.fma});
    g.module->setDataLayout(target->createDataLayout());
    g.module->setTargetTriple(target->getTargetTriple().str());
    optimize(*g.module, *target, slp_is_sound(nest));
    return {std::move(context), std::move(g)};
  }

  void optimize(llvm::Module& m, llvm::TargetMachine& tm, bool slp) {
    jit::optimize(m, tm, options.opt_level, /*vectorize=*/true, slp);
  }

  // Target machines for the threads that compile a kernel's pieces (the
  // first is `target`): a TargetMachine serves one thread at a time.
  std::vector<std::unique_ptr<llvm::TargetMachine>> helpers;

  // The code of \p nest in pieces, for this target. On a machine of
  // several cores, a kernel with a heavy statement and others comes in
  // pieces (generate_pieces), each optimised and compiled to an object on a
  // thread of its own, the largest first (the 56-wide convolution: 39-42
  // -> 23-24 ms, the 32-wide one 27 -> 18 ms); on one core, in one.
  GeneratedPieces generated(const core::LoopNest& nest, const std::string& entry) {
    std::string cpu = target->getTargetCPU().str();
    std::string features = target->getTargetFeatureString().str();
    FloatFreedom freedom{options.any_order, options.fma};
    GeneratedPieces g;
    if (std::thread::hardware_concurrency() < 2) { // pieces would only cost
      auto context = std::make_unique<llvm::LLVMContext>();
      Generated one =
          generate(nest, entry, *context, cpu, features, options.statements_per_function, freedom);
      g.pieces.push_back({std::move(context), std::move(one.module)});
      g.sites = std::move(one.sites);
    } else {
      g = generate_pieces(nest, entry, cpu, features, options.statements_per_function, freedom);
    }
    for (Piece& p : g.pieces) {
      p.module->setDataLayout(target->createDataLayout());
      p.module->setTargetTriple(target->getTargetTriple().str());
    }
    return g;
  }

  // Each piece optimised and compiled to an object, on as many threads as
  // there are pieces and cores.
  std::vector<std::string> objects_of(GeneratedPieces& g, bool slp) {
    const size_t threads =
        std::min<size_t>(g.pieces.size(), std::max(1u, std::thread::hardware_concurrency()));
    while (helpers.size() + 1 < threads)
      helpers.push_back(check(machine.createTargetMachine(), "target machine"));
    std::vector<std::string> objects(g.pieces.size());
    std::vector<std::exception_ptr> failures(threads);
    // The largest pieces first (by their instructions before optimisation),
    // so that the threads finish together.
    std::vector<size_t> order(g.pieces.size()), size(g.pieces.size());
    std::iota(order.begin(), order.end(), 0);
    for (size_t i = 0; i < g.pieces.size(); ++i)
      for (const llvm::Function& f : *g.pieces[i].module)
        size[i] += f.getInstructionCount();
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return size[a] > size[b]; });
    std::atomic<size_t> next{0};
    auto work = [&](size_t t) {
      llvm::TargetMachine& tm = t == 0 ? *target : *helpers[t - 1];
      try {
        for (size_t k; (k = next++) < g.pieces.size();) {
          size_t i = order[k];
          optimize(*g.pieces[i].module, tm, slp);
          objects[i] = emit_file(*g.pieces[i].module, tm, llvm::CodeGenFileType::ObjectFile);
        }
      } catch (...) {
        failures[t] = std::current_exception();
      }
    };
    std::vector<std::thread> team;
    for (size_t t = 1; t < threads; ++t)
      team.emplace_back(work, t);
    work(0);
    for (std::thread& th : team)
      th.join();
    for (const std::exception_ptr& f : failures)
      if (f)
        std::rethrow_exception(f);
    return objects;
  }

  // The cache's key of \p g: its code before optimisation and everything
  // else its object depends on.
  std::string key_of(const GeneratedPieces& g, bool slp) {
    std::string content = target->getTargetTriple().str() + " " + target->getTargetCPU().str() +
                          " " + target->getTargetFeatureString().str() + " O" +
                          std::to_string(options.opt_level) + (slp ? " slp" : " no-slp") +
                          (planted(11) ? " fault11" : "") + "\n";
    for (const Piece& p : g.pieces)
      content += print_module(*p.module);
    return KernelCache::key(content);
  }

  // Code for \p nest added to \p tracker; returns its error sites. With a
  // cache, a kernel compiled before (by any process) is loaded instead.
  std::vector<Site> add(const core::LoopNest& nest, const std::string& entry,
                        const orc::ResourceTrackerSP& tracker) {
    GeneratedPieces g = generated(nest, entry);
    bool slp = slp_is_sound(nest);
    std::string key = cache ? key_of(g, slp) : "";
    std::optional<std::vector<std::string>> objects;
    if (cache)
      objects = cache->load(key);
    if (!objects && !cache && g.pieces.size() == 1) {
      // Compiled when looked up.
      optimize(*g.pieces[0].module, *target, slp);
      check(jit->addIRModule(tracker, orc::ThreadSafeModule(std::move(g.pieces[0].module),
                                                            std::move(g.pieces[0].context))),
            "adding the module");
      return std::move(g.sites);
    }
    if (!objects) {
      objects = objects_of(g, slp);
      if (cache)
        cache->store(key, *objects);
    }
    for (size_t i = 0; i < objects->size(); ++i)
      check(jit->addObjectFile(tracker, llvm::MemoryBuffer::getMemBufferCopy(
                                            (*objects)[i], entry + ".piece" + std::to_string(i))),
            "adding an object");
    return std::move(g.sites);
  }
};

CompiledKernel::CompiledKernel(std::unique_ptr<State> state) : state_(std::move(state)) {}

CompiledKernel::~CompiledKernel() {
  if (state_ && state_->tracker)
    check(state_->tracker->remove(), "freeing compiled code");
}

Jit::Jit(JitOptions options) {
  initialize_llvm();
  impl_ = std::make_unique<Impl>(options);
}

Jit::~Jit() = default;

std::unique_ptr<CompiledKernel> Jit::compile(const core::LoopNest& nest) {
  auto state = std::make_unique<CompiledKernel::State>();
  state->nest = impl_->scheduled(nest); // the code's error sites point into it
  state->watermarks = impl_->options.watermarks;
  state->threads = std::max(impl_->options.threads, 1);
  // A JITDylib of its own, which finds the runtime in the main one.
  orc::JITDylib& lib =
      check(impl_->jit->createJITDylib("kernel" + std::to_string(impl_->kernels++)),
            "a kernel's library");
  lib.addToLinkOrder(impl_->jit->getMainJITDylib());
  state->tracker = lib.createResourceTracker();
  state->sites = impl_->add(state->nest, kEntry, state->tracker);
  orc::ExecutorAddr entry = check(impl_->jit->lookup(lib, kEntry), "looking up the kernel");
  state->entry = entry.toPtr<int32_t (*)(void**, RunContext*)>();
  return std::unique_ptr<CompiledKernel>(new CompiledKernel(std::move(state)));
}

core::LoopNest Jit::schedule(const core::LoopNest& nest, std::string* log) const {
  return impl_->scheduled(nest, log);
}

std::string Jit::emit_llvm(const core::LoopNest& nest) {
  core::LoopNest scheduled = impl_->scheduled(nest);
  auto [context, generated] = impl_->build(scheduled, kEntry);
  return print_module(*generated.module);
}

std::string Jit::emit_asm(const core::LoopNest& nest) {
  core::LoopNest scheduled = impl_->scheduled(nest);
  auto [context, generated] = impl_->build(scheduled, kEntry);
  return emit_file(*generated.module, *impl_->target, llvm::CodeGenFileType::AssemblyFile);
}

std::string Jit::emit_obj(const core::LoopNest& nest) {
  core::LoopNest scheduled = impl_->scheduled(nest);
  auto [context, generated] = impl_->build(scheduled, kEntry);
  return emit_file(*generated.module, *impl_->target, llvm::CodeGenFileType::ObjectFile);
}

std::string Jit::target() const {
  return impl_->target->getTargetTriple().str() + " " + impl_->target->getTargetCPU().str() + " " +
         impl_->target->getTargetFeatureString().str();
}

namespace {

class JitExecutable : public core::Executable {
public:
  JitExecutable(Jit& jit, const core::Kernel& k) : kernel_(jit.compile(core::lower(k))) {}
  std::vector<core::Tensor> run(std::span<const core::Tensor> inputs) override {
    return kernel_->run(inputs);
  }
  bool keeps_state() const override { return true; } // its spare temps

private:
  std::unique_ptr<CompiledKernel> kernel_;
};

class JitBackend : public core::Backend {
public:
  explicit JitBackend(JitOptions o) : jit_(o) {}
  std::string name() const override { return "jit"; }
  std::unique_ptr<core::Executable> prepare(const core::Kernel& k) override {
    return std::make_unique<JitExecutable>(jit_, k);
  }

private:
  Jit jit_;
};

} // namespace

std::unique_ptr<core::Backend> jit_backend(JitOptions options) {
  return std::make_unique<JitBackend>(options);
}

} // namespace teval::jit
