// Interpreter throughput: index points per second on a matmul, a padded
// convolution, an elementwise chain and a Tile contraction with a
// constraint. Run with `scripts/dev bench`.
#include "bench/programs.h"
#include "interp/interpreter.h"

#include <benchmark/benchmark.h>

namespace {

using namespace teval;
using bench::prepare;
using bench::prepare_tile;
using bench::Prepared;

// state.range(0) == 0 walks every point one at a time (the definitional
// evaluator); 1 evaluates blocks of points (the default).

void measure(benchmark::State& state, const Prepared& p) {
  interp::Options options{.blocks = state.range(0) != 0};
  for (auto _ : state)
    benchmark::DoNotOptimize(interp::run(p.kernel, p.inputs, options));
  state.counters["points/s"] = benchmark::Counter(static_cast<double>(p.points),
                                                  benchmark::Counter::kIsIterationInvariantRate);
  state.counters["points"] = static_cast<double>(p.points);
}

void run(benchmark::State& state, const std::string& text) {
  measure(state, prepare(text));
}

void BM_Matmul(benchmark::State& state) {
  run(state, bench::kMatmul);
}
BENCHMARK(BM_Matmul)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_Conv2dPadded(benchmark::State& state) {
  run(state, bench::kConv2dPadded);
}
BENCHMARK(BM_Conv2dPadded)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_ElementwiseChain(benchmark::State& state) {
  run(state, bench::kElementwise);
}
BENCHMARK(BM_ElementwiseChain)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// A Tile contraction with a constraint: max pool 2 / stride 2 over a padded
// range (TensorOutput rounds up), its points filtered by validity.
void BM_TileMaxPoolConstrained(benchmark::State& state) {
  core::Tensor input = interp::random_tensor(core::DType::Float32, {100001}, 1, "I");
  measure(state, prepare_tile(R"X(
Tensor max_pool_1d(const Tensor& I) {
  TensorDim N;
  TensorIndex i, j;
  I.bind_dims(N);
  auto O = TensorOutput((N + 1) / 2);
  O(i) >= I(2 * i + j);
  O.add_constraint(j < 2);
  return O;
})X",
                              {{"I", input}}));
}
BENCHMARK(BM_TileMaxPoolConstrained)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
