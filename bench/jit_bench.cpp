// Compiled code against the interpreter: JIT compile time per kernel, run
// time of every backend on a matmul, a padded convolution and an
// elementwise chain, and differential cases per second. Run with
// `scripts/dev bench`.
#include "bench/programs.h"
#include "core/lower.h"
#include "interp/backends.h"
#include "jit/jit.h"
#include "verify/generators.h"

#include <benchmark/benchmark.h>

namespace {

using namespace teval;

const char* const kPrograms[] = {bench::kMatmul, bench::kConv2dPadded, bench::kElementwise};
const char* const kNames[] = {"matmul", "conv2d", "elementwise"};

jit::Jit& shared_jit() {
  static jit::Jit j;
  return j;
}

// Lowering, code generation, optimisation at O2, machine code, and freeing
// it again: one kernel's whole life in the JIT.
void BM_JitCompile(benchmark::State& state) {
  bench::Prepared p = bench::prepare(kPrograms[state.range(0)]);
  core::LoopNest nest = core::lower(p.kernel);
  for (auto _ : state)
    benchmark::DoNotOptimize(shared_jit().compile(nest));
  state.SetLabel(kNames[state.range(0)]);
}
BENCHMARK(BM_JitCompile)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

// Compile time of a chain of range(0) elementwise statements: it should grow
// linearly (the time per statement stays flat), because the statements are
// compiled in functions of 16 (JitOptions::statements_per_function).
void BM_JitCompileStatements(benchmark::State& state) {
  std::string program = "t0[N] = input0[N] + 1.0";
  for (int64_t i = 1; i < state.range(0); ++i)
    program +=
        "; t" + std::to_string(i) + "[N] = t" + std::to_string(i - 1) + "[N] * 0.5 + input0[N]";
  bench::Prepared p =
      bench::prepare("- einstein_v2(\"" + program +
                     "\", {\"input0\": {\"dtype\": \"float32\", \"shape\": [64]}})");
  core::LoopNest nest = core::lower(p.kernel);
  for (auto _ : state)
    benchmark::DoNotOptimize(shared_jit().compile(nest));
  state.counters["per_statement"] =
      benchmark::Counter(double(state.range(0)), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
}
BENCHMARK(BM_JitCompileStatements)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond);

// Run time only (the kernel is prepared once): range(0) picks the program,
// range(1) the backend: 0 interpreter (blocks), 1 IREval, 2 JIT.
void BM_Backend(benchmark::State& state) {
  bench::Prepared p = bench::prepare(kPrograms[state.range(0)]);
  // The JIT without watermarks: the copies would be measured too.
  std::unique_ptr<core::Backend> backend = state.range(1) == 0 ? interp::interpreter_backend()
                                           : state.range(1) == 1
                                               ? interp::ireval_backend()
                                               : jit::jit_backend({.watermarks = false});
  std::unique_ptr<core::Executable> e = backend->prepare(p.kernel);
  for (auto _ : state)
    benchmark::DoNotOptimize(e->run(p.inputs));
  state.counters["points/s"] = benchmark::Counter(static_cast<double>(p.points),
                                                  benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(kNames[state.range(0)]) + " on " + backend->name());
}
BENCHMARK(BM_Backend)->ArgsProduct({{0, 1, 2}, {0, 1, 2}})->Unit(benchmark::kMillisecond);

// The differential check of random programs on every backend, as
// `teval diff` runs it.
void BM_DifferentialCases(benchmark::State& state) {
  auto interp = interp::interpreter_backend();
  auto definitional = interp::interpreter_backend({.blocks = false});
  auto ireval = interp::ireval_backend();
  auto jit = jit::jit_backend();
  std::vector<core::Backend*> all{interp.get(), definitional.get(), ireval.get(), jit.get()};
  rc::Gen<verify::Program> gen = verify::antares_program();
  rc::Random random(1);
  int i = 0;
  for (auto _ : state) {
    verify::Program p = gen(random.split(), i++ % 100).value();
    benchmark::DoNotOptimize(verify::disagreement(p, 1, all));
  }
  state.counters["cases/s"] = benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_DifferentialCases)->Unit(benchmark::kMillisecond);

} // namespace
