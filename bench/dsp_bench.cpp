// The Hexagon DSP target: compile and link time per kernel, qemu-hexagon's
// start-up against a run in the resident simulator, and HVX against the scalar core on integer
// kernels (int8 and int32 elementwise, an int8 dot product accumulated in int32), as wall time of
// whole runs under qemu. Run with `scripts/dev bench`.
#include "bench/programs.h"
#include "core/lower.h"
#include "jit/hexagon/hexagon.h"

#include <benchmark/benchmark.h>

namespace {

using namespace teval;

std::string elementwise(const char* dtype, int64_t n) {
  return std::string("- einstein_v2(\"output0[N] = input0[N] + input1[N] * input0[N]\", "
                     "{\"input0\": {\"dtype\": \"") +
         dtype + "\", \"shape\": [" + std::to_string(n) + "]}, \"input1\": {\"dtype\": \"" + dtype +
         "\", \"shape\": [" + std::to_string(n) + "]}})";
}

std::string dot(int64_t rows, int64_t k) {
  return "- einstein_v2(\"output0[N] +=! input0[N, K].cast(`int32`) * input1[K].cast(`int32`)\", "
         "{\"input0\": {\"dtype\": \"int8\", \"shape\": [" +
         std::to_string(rows) + ", " + std::to_string(k) +
         "]}, \"input1\": {\"dtype\": \"int8\", \"shape\": [" + std::to_string(k) + "]}})";
}

// Code generation in a child, object emission, and the link with the
// runtime: one kernel's preparation for the DSP.
void BM_DspCompileAndLink(benchmark::State& state) {
  bench::Prepared p = bench::prepare(elementwise("int32", 1024));
  core::LoopNest nest = core::lower(p.kernel);
  jit::HexagonCompiler compiler;
  for (auto _ : state)
    benchmark::DoNotOptimize(compiler.compile(nest, "bench"));
}
BENCHMARK(BM_DspCompileAndLink)->Unit(benchmark::kMillisecond)->UseRealTime();

// A run of a 16-element kernel: range(0) 0 in a qemu-hexagon of its own
// (qemu's start-up and the transfer), 1 in the resident simulator (a round
// trip); kernels/s in the counter.
void BM_DspRun(benchmark::State& state) {
  bench::Prepared p = bench::prepare(elementwise("int32", 16));
  jit::HexagonCompiler compiler;
  auto kernel = compiler.compile(core::lower(p.kernel), "bench");
  for (auto _ : state)
    benchmark::DoNotOptimize(state.range(0) ? kernel->run(p.inputs) : kernel->run_alone(p.inputs));
  state.counters["kernels/s"] =
      benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(state.range(0) ? "resident simulator" : "own qemu-hexagon");
}
BENCHMARK(BM_DspRun)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// range(0): 0 int8 elementwise, 1 int32 elementwise, 2 int8 dot products;
// range(1): 1 with HVX, 0 scalar only.
std::string kernel_text(int64_t which, int64_t n) {
  return which == 0   ? elementwise("int8", n)
         : which == 1 ? elementwise("int32", n)
                      : dot(n / 1024, 1024);
}
const char* const kKernelNames[] = {"int8 add-mul", "int32 add-mul", "int8 dot"};

// Wall time of whole runs under qemu; points per second in the counter.
void BM_DspKernel(benchmark::State& state) {
  std::string text = kernel_text(state.range(0), 1 << 22);
  bench::Prepared p = bench::prepare(text);
  jit::HexagonCompiler compiler({}, state.range(1) != 0);
  auto kernel = compiler.compile(core::lower(p.kernel), "bench");
  for (auto _ : state)
    benchmark::DoNotOptimize(kernel->run(p.inputs));
  state.counters["points/s"] = benchmark::Counter(static_cast<double>(p.points),
                                                  benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(kKernelNames[state.range(0)]) +
                 (state.range(1) ? ", HVX" : ", scalar"));
}
BENCHMARK(BM_DspKernel)
    ->ArgsProduct({{0, 1, 2}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();

// What the DSP would spend: VLIW packets executed (one issued a cycle),
// counted from qemu-hexagon's trace of one run over 2^16 points, per point.
void BM_DspPackets(benchmark::State& state) {
  bench::Prepared p = bench::prepare(kernel_text(state.range(0), 1 << 16));
  jit::HexagonCompiler compiler({}, state.range(1) != 0);
  auto kernel = compiler.compile(core::lower(p.kernel), "bench");
  jit::DspKernel::Executed e;
  for (auto _ : state)
    e = kernel->executed(p.inputs);
  state.counters["packets"] = static_cast<double>(e.packets);
  state.counters["packets/point"] = static_cast<double>(e.packets) / static_cast<double>(p.points);
  state.SetLabel(std::string(kKernelNames[state.range(0)]) +
                 (state.range(1) ? ", HVX" : ", scalar"));
}
BENCHMARK(BM_DspPackets)
    ->ArgsProduct({{0, 1, 2}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

} // namespace
