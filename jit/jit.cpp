// The host JIT (see jit.h).
#include "jit/jit.h"

#include "core/schedule.h"

#include "core/fault.h"
#include "core/interrupt.h"
#include "core/lower.h"
#include "core/schedule.h"
#include "core/tmath.h"
#include "jit/codegen.h"
#include "jit/llvm_support.h"
#include "jit/team.h"

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
#include <csetjmp>
#include <csignal>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include <pthread.h>

namespace teval::jit {

namespace orc = llvm::orc;

namespace {

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
  /// Kernels share the main JITDylib, so each entry point has its own name.
  uint64_t kernels = 0;

  explicit Impl(JitOptions o)
      : options(o), machine(check(orc::JITTargetMachineBuilder::detectHost(), "host detection")) {
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
  core::LoopNest scheduled(const core::LoopNest& nest) const {
    core::ScheduleOptions scheduling = options.scheduling;
    scheduling.any_order = options.any_order;
    return options.schedule ? core::schedule(nest, scheduling) : nest;
  }

  // Code for \p nest as it is (scheduled by the caller).
  Built build(const core::LoopNest& nest, const std::string& entry) {
    auto context = std::make_unique<llvm::LLVMContext>();
    Generated g = generate(nest, entry, *context, target->getTargetCPU().str(),
                           target->getTargetFeatureString().str(), options.statements_per_function,
                           {options.any_order, options.fma});
    g.module->setDataLayout(target->createDataLayout());
    g.module->setTargetTriple(target->getTargetTriple().str());
    optimize(*g.module);
    return {std::move(context), std::move(g)};
  }

  void optimize(llvm::Module& m) {
    jit::optimize(m, *target, options.opt_level);
  }

  // Target machines for the threads that compile a kernel's pieces (the
  // first is `target`): a TargetMachine serves one thread at a time.
  std::vector<std::unique_ptr<llvm::TargetMachine>> helpers;

  // Code for \p nest added to \p tracker; returns its error sites. On a
  // machine of several cores, a kernel with a heavy statement and others
  // comes in pieces (generate_pieces), each optimised and compiled to an
  // object on a thread of its own, the largest first (the 56-wide
  // convolution: 39-42 -> 23-24 ms, the 32-wide one 27 -> 18 ms); a kernel
  // of one piece is added as IR, compiled when looked up.
  std::vector<Site> add(const core::LoopNest& nest, const std::string& entry,
                        const orc::ResourceTrackerSP& tracker) {
    if (std::thread::hardware_concurrency() < 2) { // pieces would only cost
      Built b = build(nest, entry);
      check(jit->addIRModule(tracker, orc::ThreadSafeModule(std::move(b.generated.module),
                                                            std::move(b.context))),
            "adding the module");
      return std::move(b.generated.sites);
    }
    GeneratedPieces g = generate_pieces(
        nest, entry, target->getTargetCPU().str(), target->getTargetFeatureString().str(),
        options.statements_per_function, {options.any_order, options.fma});
    for (Piece& p : g.pieces) {
      p.module->setDataLayout(target->createDataLayout());
      p.module->setTargetTriple(target->getTargetTriple().str());
    }
    if (g.pieces.size() == 1) {
      optimize(*g.pieces[0].module);
      check(jit->addIRModule(tracker, orc::ThreadSafeModule(std::move(g.pieces[0].module),
                                                            std::move(g.pieces[0].context))),
            "adding the module");
      return std::move(g.sites);
    }
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
          jit::optimize(*g.pieces[i].module, tm, options.opt_level);
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
    for (size_t i = 0; i < objects.size(); ++i)
      check(jit->addObjectFile(tracker, llvm::MemoryBuffer::getMemBufferCopy(
                                            objects[i], entry + ".piece" + std::to_string(i))),
            "adding an object");
    return std::move(g.sites);
  }
};

struct CompiledKernel::State {
  core::LoopNest nest;
  bool watermarks = true;
  int threads = 1;
  std::vector<Site> sites;
  orc::ResourceTrackerSP tracker;
  int32_t (*entry)(void**, RunContext*) = nullptr;
  // Sets of temp buffers kept between runs (Spares).
  std::mutex scratch_mutex;
  std::vector<std::vector<core::Tensor>> scratch;
};

CompiledKernel::CompiledKernel(std::unique_ptr<State> state) : state_(std::move(state)) {}

CompiledKernel::~CompiledKernel() {
  if (state_ && state_->tracker)
    check(state_->tracker->remove(), "freeing compiled code");
}

namespace {

// Bytes of watermark before and after every buffer compiled code sees.
constexpr size_t kPad = 64;
constexpr std::byte kWatermark{0xA5};

// A buffer between two watermarked pads.
struct Padded {
  std::vector<std::byte> bytes;
  std::byte* data() { return bytes.data() + kPad; }
  size_t size() const { return bytes.size() - 2 * kPad; }
  bool intact() const {
    for (size_t i = 0; i < kPad; ++i)
      if (bytes[i] != kWatermark || bytes[bytes.size() - 1 - i] != kWatermark)
        return false;
    return true;
  }
};

Padded padded(std::span<const std::byte> contents) {
  Padded p;
  p.bytes.assign(contents.size() + 2 * kPad, kWatermark);
  std::copy(contents.begin(), contents.end(), p.bytes.begin() + kPad);
  return p;
}

// --- leaving a kernel on request ----------------------------------------
//
// Compiled loops do not poll (a poll in every loop would stop LLVM from
// vectorizing them). Instead, while a kernel runs under an Interrupt, the
// Interrupt's waker sends the running thread kWakeSignal, and the handler
// jumps out of the kernel back to call_kernel(). That is safe because
// generated code holds no locks and owns no resources: its frames, libm's
// and the pure runtime functions' can be abandoned. The one runtime function
// that allocates, teval_rt_fail, is followed by the kernel's return, so a
// signal meeting it is ignored.

constexpr int kWakeSignal = SIGUSR2;

thread_local sigjmp_buf* escape = nullptr;
// The Interrupt of the kernel this thread is running, for parallel loops.
thread_local core::Interrupt* kernel_interrupt = nullptr;
struct sigaction previous_action;

void on_wake(int signal, siginfo_t* info, void* context) {
  if (escape && !in_runtime_call)
    siglongjmp(*escape, 1);
  // Not ours: the signal belongs to whoever handled it before teval.
  if (previous_action.sa_flags & SA_SIGINFO) {
    if (previous_action.sa_sigaction)
      previous_action.sa_sigaction(signal, info, context);
  } else if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler(signal);
  }
}

void install_wake_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = on_wake;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(kWakeSignal, &action, &previous_action);
  });
}

void wake(void* thread) {
  pthread_kill(reinterpret_cast<pthread_t>(thread), kWakeSignal);
}

// Clang's -fsanitize=function (part of -fsanitize=undefined) checks an
// indirect call by reading a type signature from the words before the
// callee's entry. Code LLVM compiled at run time has none, and its entry may
// start a page, so the check reads unmapped memory: exempt the one call into
// it, so that teval built or linked with clang's sanitizers runs kernels.
#if defined(__clang__)
#define TEVAL_CALLS_JIT_CODE __attribute__((no_sanitize("function")))
#else
#define TEVAL_CALLS_JIT_CODE
#endif

// Calls the kernel; -1 when \p interrupt stopped it. Nothing with a
// destructor lives in this frame, since siglongjmp may return into it.
TEVAL_CALLS_JIT_CODE int32_t call_kernel(int32_t (*entry)(void**, RunContext*), void** pointers,
                                         RunContext* ctx, core::Interrupt* interrupt) {
  if (!interrupt)
    return entry(pointers, ctx);
  install_wake_handler();
  sigjmp_buf here;
  if (sigsetjmp(here, 1)) {
    escape = nullptr;
    kernel_interrupt = nullptr;
    interrupt->set_waker(nullptr, nullptr);
    return -1;
  }
  escape = &here;
  kernel_interrupt = interrupt;
  interrupt->set_waker(wake, reinterpret_cast<void*>(pthread_self()));
  int32_t status = interrupt->requested() ? -1 : entry(pointers, ctx);
  interrupt->set_waker(nullptr, nullptr);
  kernel_interrupt = nullptr;
  escape = nullptr;
  return status;
}

// Runs \p chunk on this thread; -1 when a wake signal left it, or when a
// stop (\p stop, or this thread's kernel_interrupt) was asked before the
// signal could reach it.
TEVAL_CALLS_JIT_CODE int32_t run_chunk(ParallelChunk chunk, void** buffers, RunContext* ctx,
                                       int64_t begin, int64_t end, const std::atomic<bool>* stop) {
  sigjmp_buf here;
  sigjmp_buf* outer = escape;
  if (sigsetjmp(here, 1)) {
    escape = outer;
    return -1;
  }
  escape = &here;
  bool stopped = (stop && stop->load()) || (kernel_interrupt && kernel_interrupt->requested());
  int32_t status = stopped ? -1 : chunk(buffers, ctx, begin, end);
  escape = outer;
  return status;
}

} // namespace

// A parallel loop: the range in ctx->threads consecutive parts, the first
// run by this thread, the others by the process's Team (or by a team of
// their own while another thread's loop has it). A request to stop reaches
// this thread as the wake signal while it runs its part; outside its part
// (setting up the team, which allocates and locks, and waiting for it) the
// signal is ignored and the Interrupt's flag, polled, is seen instead. It
// then signals the others, each of which leaves its part the same way.
// Nothing is left running when this returns.
int32_t teval_rt_parallel_for(ParallelChunk chunk, void** buffers, RunContext* ctx, int64_t begin,
                              int64_t end) {
  int64_t n = end - begin;
  int64_t parts = std::min<int64_t>(std::max(ctx->threads, 1), std::max<int64_t>(n, 1));
  if (parts <= 1)
    return run_chunk(chunk, buffers, ctx, begin, end, nullptr) < 0 ? (ctx->interrupted = true, 1)
                                                                   : 0;
  sigjmp_buf* outer = escape;
  escape = nullptr;
  auto from = [&](int64_t k) { return begin + n / parts * k + std::min(k, n % parts); };
  std::atomic<bool> stop{false};
  std::vector<int32_t> status(static_cast<size_t>(parts), 0);
  Team* shared = Team::claim();
  std::optional<Team> own;
  Team& team = shared ? *shared : own.emplace();
  team.start(parts, [&](int64_t k) {
    status[k] = run_chunk(chunk, buffers, ctx, from(k), from(k + 1), &stop);
  });
  status[0] = run_chunk(chunk, buffers, ctx, from(0), from(1), nullptr);
  core::Interrupt* interrupt = kernel_interrupt;
  auto stop_team = [&] {
    if (!stop.exchange(true))
      team.signal(kWakeSignal);
  };
  if (status[0] < 0)
    stop_team();
  while (!team.wait_for(std::chrono::milliseconds(1)))
    if (interrupt && interrupt->requested())
      stop_team();
  if (shared)
    shared->release();
  escape = outer;
  for (int32_t s : status)
    if (s < 0) {
      ctx->interrupted = true;
      return 1;
    }
  return 0;
}

namespace {

// The address compiled code is given for a buffer without elements: not
// null (nothing is read or written there, but no pointer the code holds is
// null either), aligned for any dtype and vector.
alignas(64) std::byte no_elements[64];

// Bytes a buffer's storage holds.
size_t storage_bytes(const core::Buffer& b) {
  std::optional<int64_t> numel = core::checked_numel(b.shape);
  TEVAL_ASSERT(numel, "a buffer's size overflows");
  return static_cast<size_t>(*numel) * core::size_bytes(b.dtype);
}

// A set of the kernel's spare temps, taken for one run (or made when none is
// free) and given back when the run ends, whatever its outcome: a kernel run
// again does not allocate its temps (padded copies, row buffers) and fault
// their pages in again, and runs at once each have a set of their own.
class Spares {
public:
  Spares(std::mutex& mutex, std::vector<std::vector<core::Tensor>>& free, size_t buffers)
      : mutex_(mutex), free_(free) {
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        temps_ = std::move(free_.back());
        free_.pop_back();
      }
    }
    temps_.resize(buffers);
  }
  ~Spares() {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(temps_));
  }
  Spares(const Spares&) = delete;
  Spares& operator=(const Spares&) = delete;

  // The storage of temp \p id: what the last run of this set left there, or,
  // the first time, the unwritten pattern (an Allocate that zeroes it zeroes
  // it; one that does not leaves these bytes, as IREval's do).
  std::span<std::byte> temp(size_t id, const core::Buffer& b) {
    core::Tensor& t = temps_[id];
    if (t.dtype() != b.dtype || t.shape() != b.shape)
      t = core::Tensor::filled(b.dtype, b.shape, core::kUnwrittenOutput);
    return t.bytes();
  }

private:
  std::mutex& mutex_;
  std::vector<std::vector<core::Tensor>>& free_;
  std::vector<core::Tensor> temps_;
};

} // namespace

// One path for every run: the storage of each buffer is provided the same
// way whatever the options (the caller's inputs and destinations, the
// kernel's spare temps, fresh outputs), and every buffer is checked to hold
// its whole size before compiled code sees it. Watermarks are a check layered
// over that path: the code then works on copies of the same storage between
// watermarked pads, which are checked, and copied back.
std::vector<core::Tensor> CompiledKernel::run(std::span<const core::Tensor> inputs, int threads,
                                              std::span<std::byte* const> destinations) const {
  const core::LoopNest& n = state_->nest;
  TEVAL_ASSERT(inputs.size() == n.inputs.size(), "wrong number of inputs");
  TEVAL_ASSERT(destinations.empty() || destinations.size() == n.outputs.size(),
               "wrong number of destinations");
  // Output buffer id -> the caller's memory for it, or null.
  auto destination = [&](size_t buffer) -> std::byte* {
    for (size_t k = 0; k < destinations.size(); ++k)
      if (static_cast<size_t>(n.outputs[k]) == buffer &&
          n.buffers[buffer].kind == core::BufferKind::Output)
        return destinations[k];
    return nullptr;
  };

  // Where each buffer lives.
  Spares spares(state_->scratch_mutex, state_->scratch, n.buffers.size());
  std::vector<core::Tensor> fresh(n.buffers.size());
  std::vector<std::span<std::byte>> memory(n.buffers.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const core::Buffer& b = n.buffers[n.inputs[i]];
    core::check_input(b.name, b.dtype, b.shape, b.span, inputs[i]);
    // Generated code never stores to an input buffer.
    std::span<const std::byte> bytes = inputs[i].bytes();
    memory[n.inputs[i]] = {const_cast<std::byte*>(bytes.data()), bytes.size()};
  }
  for (size_t i = 0; i < n.buffers.size(); ++i) {
    const core::Buffer& b = n.buffers[i];
    if (b.kind == core::BufferKind::Input)
      continue;
    if (std::byte* given = destination(i)) {
      memory[i] = {given, storage_bytes(b)};
    } else if (b.kind == core::BufferKind::Temp) {
      memory[i] = spares.temp(i, b);
    } else { // a fresh output starts unspecified, as in IREval
      fresh[i] = core::Tensor::filled(b.dtype, b.shape, core::kUnwrittenOutput);
      memory[i] = fresh[i].bytes();
    }
  }
  for (size_t i = 0; i < n.buffers.size(); ++i)
    if (memory[i].size() != storage_bytes(n.buffers[i]))
      throw core::Error(core::ErrorKind::Range, n.buffers[i].span,
                        "internal error: buffer `" + n.buffers[i].name + "` was given " +
                            std::to_string(memory[i].size()) + " bytes of storage, not " +
                            std::to_string(storage_bytes(n.buffers[i])));

  // What compiled code sees: that storage, or a copy of it between pads.
  const bool watermarks = state_->watermarks;
  std::vector<Padded> pads(watermarks ? n.buffers.size() : 0);
  std::vector<void*> pointers(n.buffers.size(), nullptr);
  for (size_t i = 0; i < n.buffers.size(); ++i) {
    if (watermarks)
      pads[i] = padded(memory[i]);
    std::byte* p = watermarks ? pads[i].data() : memory[i].data();
    pointers[i] = memory[i].empty() ? no_elements : p;
  }
  RunContext ctx;
  ctx.threads = threads > 0 ? threads : state_->threads;
  int32_t status = call_kernel(state_->entry, pointers.data(), &ctx, core::current_interrupt());
  if (status < 0 || ctx.interrupted)
    core::throw_interrupted();
  // A damaged watermark is a code generation bug; it is reported as an
  // error so that differential checks see it as a disagreement.
  for (size_t i = 0; i < pads.size(); ++i) {
    if (!pads[i].intact())
      throw core::Error(core::ErrorKind::Range, n.buffers[i].span,
                        "internal error: compiled code wrote outside buffer `" + n.buffers[i].name +
                            "`");
    if (n.buffers[i].kind != core::BufferKind::Input)
      std::copy(pads[i].data(), pads[i].data() + pads[i].size(), memory[i].data());
  }
  if (status != 0) {
    TEVAL_ASSERT(ctx.site >= 0 && static_cast<size_t>(ctx.site) < state_->sites.size(),
                 "compiled code failed without an error site");
    throw site_error(n, state_->sites[ctx.site], ctx.values);
  }
  std::vector<core::Tensor> out;
  for (int o : n.outputs) {
    const core::Buffer& b = n.buffers[o];
    if (b.kind == core::BufferKind::Input) { // an input returned as it is
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (n.inputs[i] == o)
          out.push_back(inputs[i]);
      continue;
    }
    std::byte* given = destination(o);
    out.push_back(given ? core::Tensor::borrow(b.dtype, b.shape, given) : std::move(fresh[o]));
  }
  return out;
}

Jit::Jit(JitOptions options) {
  initialize_llvm();
  impl_ = std::make_unique<Impl>(options);
}

Jit::~Jit() = default;

std::unique_ptr<CompiledKernel> Jit::compile(const core::LoopNest& nest) {
  std::string entry_name = "teval_kernel_" + std::to_string(impl_->kernels++);
  auto state = std::make_unique<CompiledKernel::State>();
  state->nest = impl_->scheduled(nest); // the code's error sites point into it
  state->watermarks = impl_->options.watermarks;
  state->threads = std::max(impl_->options.threads, 1);
  state->tracker = impl_->jit->getMainJITDylib().createResourceTracker();
  state->sites = impl_->add(state->nest, entry_name, state->tracker);
  orc::ExecutorAddr entry = check(impl_->jit->lookup(entry_name), "looking up the kernel");
  state->entry = entry.toPtr<int32_t (*)(void**, RunContext*)>();
  return std::unique_ptr<CompiledKernel>(new CompiledKernel(std::move(state)));
}

std::string Jit::emit_llvm(const core::LoopNest& nest) {
  core::LoopNest scheduled = impl_->scheduled(nest);
  auto [context, generated] = impl_->build(scheduled, "teval_kernel");
  return print_module(*generated.module);
}

std::string Jit::emit_asm(const core::LoopNest& nest) {
  core::LoopNest scheduled = impl_->scheduled(nest);
  auto [context, generated] = impl_->build(scheduled, "teval_kernel");
  return emit_file(*generated.module, *impl_->target, llvm::CodeGenFileType::AssemblyFile);
}

std::string Jit::emit_obj(const core::LoopNest& nest) {
  core::LoopNest scheduled = impl_->scheduled(nest);
  auto [context, generated] = impl_->build(scheduled, "teval_kernel");
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
