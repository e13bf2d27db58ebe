// Every engine on the shapes of bench/peers.py (docs/PERFORMANCE.md): float32
// matmuls 256^3 and 512^3, the two padded convolutions, exp(2x + 1) over
// 2048^2. range(0) picks the shape, range(1) the engine: 0 the interpreter,
// 1 the JIT on one thread, 2 the JIT on every core, 3 the JIT on every core
// with --order any --fma (results within teval check's bound, not the
// interpreter's bits). The counter is G MAC/s
// (G elements/s for exp), as the peers script prints it; the peers
// themselves are in the script. Run with `scripts/dev bench`.
#include "bench/programs.h"
#include "core/lower.h"
#include "interp/interpreter.h"
#include "jit/jit.h"

#include <benchmark/benchmark.h>

#include <thread>

namespace {

using namespace teval;

std::string matmul(int n) {
  std::string s = std::to_string(n);
  return "- einstein_v2(\"output0[N, M] +=! input0[N, K] * input1[K, M]\", {\"input0\": "
         "{\"dtype\": \"float32\", \"shape\": [" +
         s + ", " + s + "]}, \"input1\": {\"dtype\": \"float32\", \"shape\": [" + s + ", " + s +
         "]}})";
}

std::string conv(int n, int c, int h, int w, int f) {
  auto i = [](int v) { return std::to_string(v); };
  return "- einstein_v2(\"output0[N, F, HO, WO] +=! input0[N, C, HO + KH - 1, WO + KW - 1]"
         ".when([HO + KH - 1 >= 0, HO + KH - 1 < " +
         i(h) + ", WO + KW - 1 >= 0, WO + KW - 1 < " + i(w) + "], 0.0) * input1[F, C, KH, KW] " +
         "where HO in " + i(h) + ", WO in " + i(w) +
         "\", {\"input0\": {\"dtype\": \"float32\", \"shape\": [" + i(n) + ", " + i(c) + ", " +
         i(h) + ", " + i(w) + "]}, \"input1\": {\"dtype\": \"float32\", \"shape\": [" + i(f) +
         ", " + i(c) + ", 3, 3]}})";
}

const char* const kExp =
    "- einstein_v2(\"output0[N, M] = (input0[N, M] * 2.0 + 1.0).call(`exp`)\", "
    "{\"input0\": {\"dtype\": \"float32\", \"shape\": [2048, 2048]}})";

struct Shape {
  const char* name;
  std::string text;
  double work; // multiply-adds, or elements
};

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {
      {"matmul 256^3", matmul(256), 256.0 * 256 * 256},
      {"matmul 512^3", matmul(512), 512.0 * 512 * 512},
      {"conv 4x64x32x32 * 64x64x3x3", conv(4, 64, 32, 32, 64), 4.0 * 64 * 32 * 32 * 64 * 9},
      {"conv 1x64x56x56 * 64x64x3x3", conv(1, 64, 56, 56, 64), 1.0 * 64 * 56 * 56 * 64 * 9},
      {"exp(2x+1) 2048^2", kExp, 2048.0 * 2048},
  };
  return s;
}

void BM_Engine(benchmark::State& state) {
  const Shape& shape = shapes().at(static_cast<size_t>(state.range(0)));
  bench::Prepared p = bench::prepare(shape.text);
  const char* engine = "interp";
  if (state.range(1) == 0) {
    for (auto _ : state)
      benchmark::DoNotOptimize(interp::run(p.kernel, p.inputs));
  } else {
    jit::JitOptions options;
    options.watermarks = false; // the user's path
    options.threads = state.range(1) == 1
                          ? 1
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    options.any_order = options.fma = state.range(1) == 3;
    engine = state.range(1) == 1   ? "jit, 1 thread"
             : state.range(1) == 2 ? "jit, every core"
                                   : "jit --order any --fma, every core";
    jit::Jit jit(options);
    auto kernel = jit.compile(core::lower(p.kernel));
    for (auto _ : state)
      benchmark::DoNotOptimize(kernel->run(p.inputs));
  }
  state.counters["G/s"] =
      benchmark::Counter(shape.work / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(shape.name) + ", " + engine);
}
BENCHMARK(BM_Engine)
    ->ArgsProduct({{0, 1, 2, 3, 4}, {0, 1, 2, 3}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The JIT's compile time on the same shapes (the goal: 30 ms per kernel):
// scheduling, code generation, optimisation and machine code, freed again.
void BM_EngineCompile(benchmark::State& state) {
  const Shape& shape = shapes().at(static_cast<size_t>(state.range(0)));
  bench::Prepared p = bench::prepare(shape.text);
  core::LoopNest nest = core::lower(p.kernel);
  jit::Jit jit(jit::JitOptions{.watermarks = false});
  for (auto _ : state)
    benchmark::DoNotOptimize(jit.compile(nest));
  state.SetLabel(shape.name);
}
BENCHMARK(BM_EngineCompile)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

} // namespace
