// Interpreter throughput: index points per second on a matmul, a padded
// convolution, an elementwise chain and a Tile contraction with a
// constraint. Run with `scripts/dev bench`.
#include "interp/interpreter.h"
#include "interp/random_inputs.h"
#include "parser/antares.h"
#include "parser/tile.h"
#include "parser/tile_source.h"

#include <benchmark/benchmark.h>

namespace {

using namespace teval;

struct Prepared {
  std::shared_ptr<const core::SourceFile> file;
  core::Kernel kernel;
  std::vector<core::Tensor> inputs;
  int64_t points = 0;
};

void count_points(Prepared& p) {
  for (const core::Statement& s : p.kernel.statements) {
    int64_t n = 1;
    for (const core::IndexVar& v : s.vars)
      n *= v.end - v.begin;
    p.points += n;
  }
}

Prepared prepare(const std::string& text) {
  Prepared p;
  p.file = core::SourceFile::make("<bench>", text);
  parser::AntaresSource source = parser::read_antares(*p.file);
  p.kernel = parser::elaborate_antares(source, parser::declared_inputs(source));
  p.inputs = interp::make_inputs(p.kernel, {}, 1);
  count_points(p);
  return p;
}

Prepared prepare_tile(const std::string& text, const std::map<std::string, core::Tensor>& inputs) {
  Prepared p;
  p.file = core::SourceFile::make("<bench>", text);
  std::map<std::string, parser::InputType> types;
  for (const auto& [name, t] : inputs)
    types[name] = {t.dtype(), t.shape(), {}};
  p.kernel = parser::elaborate_tile(parser::read_tile(*p.file), "", types, {});
  p.inputs = interp::make_inputs(p.kernel, inputs, 1);
  count_points(p);
  return p;
}

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
