// Interpreter throughput: index points per second on a matmul, a padded
// convolution and an elementwise chain. Run with `scripts/dev bench`.
#include "interp/interpreter.h"
#include "interp/random_inputs.h"
#include "parser/antares.h"

#include <benchmark/benchmark.h>

namespace {

using namespace teval;

struct Prepared {
  std::shared_ptr<const core::SourceFile> file;
  core::Kernel kernel;
  std::vector<core::Tensor> inputs;
  int64_t points = 0;
};

Prepared prepare(const std::string& text) {
  Prepared p;
  p.file = core::SourceFile::make("<bench>", text);
  parser::AntaresSource source = parser::read_antares(*p.file);
  p.kernel = parser::elaborate_antares(source, parser::declared_inputs(source));
  p.inputs = interp::make_inputs(p.kernel, {}, 1);
  for (const core::Statement& s : p.kernel.statements) {
    int64_t n = 1;
    for (const core::IndexVar& v : s.vars)
      n *= v.end - v.begin;
    p.points += n;
  }
  return p;
}

// state.range(0) == 0 walks every point one at a time (the definitional
// evaluator); 1 evaluates blocks of points (the default).
void run(benchmark::State& state, const std::string& text) {
  Prepared p = prepare(text);
  interp::Options options{.blocks = state.range(0) != 0};
  for (auto _ : state)
    benchmark::DoNotOptimize(interp::run(p.kernel, p.inputs, options));
  state.counters["points/s"] = benchmark::Counter(static_cast<double>(p.points),
                                                  benchmark::Counter::kIsIterationInvariantRate);
  state.counters["points"] = static_cast<double>(p.points);
}

void BM_Matmul(benchmark::State& state) {
  run(state, R"X(- einstein_v2("output0[N, M] +=! input0[N, K] * input1[K, M]", {
      "input0": {"dtype": "float32", "shape": [64, 64]},
      "input1": {"dtype": "float32", "shape": [64, 64]}}))X");
}
BENCHMARK(BM_Matmul)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_Conv2dPadded(benchmark::State& state) {
  run(state,
      R"X(- einstein_v2("output0[N, F, HO, WO] +=! input0[N, C, HO + KH - 1, WO + KW - 1].when([HO + KH - 1 >= 0, HO + KH - 1 < 16, WO + KW - 1 >= 0, WO + KW - 1 < 16], 0.0) * input1[F, C, KH, KW] where HO in 16, WO in 16", {
      "input0": {"dtype": "float32", "shape": [1, 16, 16, 16]},
      "input1": {"dtype": "float32", "shape": [16, 16, 3, 3]}}))X");
}
BENCHMARK(BM_Conv2dPadded)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_ElementwiseChain(benchmark::State& state) {
  run(state,
      R"X(- einstein_v2("output0[N, C] = (input0[N, C] * 2.0 + input1[N, C]).call(`exp`) / (1.0 + input1[N, C] * input1[N, C])", {
      "input0": {"dtype": "float32", "shape": [256, 256]},
      "input1": {"dtype": "float32", "shape": [256, 256]}}))X");
}
BENCHMARK(BM_ElementwiseChain)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
