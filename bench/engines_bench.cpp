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
#include "oracle/evaluate.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
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

// The same with the kernel cache warm (JitOptions::cache, in a directory of
// its own): generating the IR the key is computed from, reading the
// object and linking it, in place of optimisation and code generation.
void BM_EngineCompileCached(benchmark::State& state) {
  const Shape& shape = shapes().at(static_cast<size_t>(state.range(0)));
  bench::Prepared p = bench::prepare(shape.text);
  core::LoopNest nest = core::lower(p.kernel);
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "teval-bench-cache";
  setenv("TEVAL_CACHE_DIR", dir.c_str(), 1);
  jit::Jit jit(jit::JitOptions{.watermarks = false, .cache = true});
  jit.compile(nest); // stored
  for (auto _ : state)
    benchmark::DoNotOptimize(jit.compile(nest));
  std::filesystem::remove_all(dir);
  state.SetLabel(shape.name);
}
BENCHMARK(BM_EngineCompileCached)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

// What `teval check` computes besides the sequential run, on shapes the
// walk finishes in seconds: the exact result and the rigorous bound of
// every element (G MAC/s of the program's work). range(0): a 64³ matmul,
// a padded 16-channel 18×18 convolution.
// What teval check computes besides the candidate (oracle::evaluate: the
// sequential and exact results and every element's bound): argument 0 the
// layer (0: matmul 64³, 1: a padded 16-channel convolution, 2: matmul
// 512³, 3: the padded 1×64×56×56 ⊛ 64×64×3×3 convolution), argument 1 the
// fast check (1) or the walk (0; the small layers only).
void BM_CheckOracle(benchmark::State& state) {
  const int64_t layer = state.range(0);
  const char* labels[] = {"matmul 64^3", "conv 1x16x18x18 * 16x16x3x3", "matmul 512^3",
                          "conv 1x64x56x56 * 64x64x3x3"};
  std::string text = layer == 0   ? matmul(64)
                     : layer == 1 ? conv(1, 16, 18, 18, 16)
                     : layer == 2 ? matmul(512)
                                  : conv(1, 64, 56, 56, 64);
  double work = layer == 0   ? 64.0 * 64 * 64
                : layer == 1 ? 16.0 * 18 * 18 * 16 * 9
                : layer == 2 ? 512.0 * 512 * 512
                             : 64.0 * 56 * 56 * 64 * 9;
  bench::Prepared p = bench::prepare(text);
  oracle::EvaluateOptions how{.fast = state.range(1) != 0};
  for (auto _ : state)
    benchmark::DoNotOptimize(oracle::evaluate(p.kernel, p.inputs, {}, how));
  state.counters["G MAC/s"] =
      benchmark::Counter(work * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(labels[layer]) + (how.fast ? ", fast" : ", walk"));
}
BENCHMARK(BM_CheckOracle)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Args({2, 1})
    ->Args({3, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace
