// The run path of compiled kernels (see jit.h, CompiledKernel::run): the
// buffers a run gives the code, watermarks layered over them, leaving a
// kernel on request, and parallel loops.
#include "core/interrupt.h"
#include "jit/compiled_kernel.h"
#include "jit/team.h"

#include <algorithm>
#include <atomic>
#include <csetjmp>
#include <csignal>
#include <mutex>
#include <optional>
#include <thread>

#include <pthread.h>

namespace teval::jit {

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
      memory[i] = {given, core::storage_bytes(b)};
    } else if (b.kind == core::BufferKind::Temp) {
      memory[i] = spares.temp(i, b);
    } else { // a fresh output starts unspecified, as in IREval
      fresh[i] = core::Tensor::filled(b.dtype, b.shape, core::kUnwrittenOutput);
      memory[i] = fresh[i].bytes();
    }
  }
  for (size_t i = 0; i < n.buffers.size(); ++i)
    if (memory[i].size() != core::storage_bytes(n.buffers[i]))
      throw core::Error(core::ErrorKind::Range, n.buffers[i].span,
                        "internal error: buffer `" + n.buffers[i].name + "` was given " +
                            std::to_string(memory[i].size()) + " bytes of storage, not " +
                            std::to_string(core::storage_bytes(n.buffers[i])));

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

} // namespace teval::jit
