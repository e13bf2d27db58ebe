// Every float through teval_expf against (float)teval_exp(x), the function
// it is defined to be (core/tmath.h), and through the JIT's vector exp
// (jit/vector_math.h) against teval_expf: `scripts/dev exhaustive-math`.
// Prints the count of inputs checked and of disagreements (each of the
// first ten by its bits) and exits 1 on any. Not a ctest: it takes about a
// minute on two cores; the unit tests Tmath.ExpfIsTheFloat64ExpRounded and
// VectorMath.VectorExpIsTheScalarFunctionInEveryLane sample it.
#include "core/lower.h"
#include "core/source.h"
#include "core/tmath.h"
#include "jit/jit.h"
#include "parser/antares/antares.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace {

bool same(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) ||
         (std::isnan(a) && std::isnan(b));
}

} // namespace

int main() {
  using namespace teval;
  constexpr int64_t kChunk = int64_t{1} << 24;
  auto file = core::SourceFile::make(
      "<exhaustive>", "- einstein_v2(\"output0[N] = input0[N].call(`exp`)\", {\"input0\": "
                      "{\"dtype\": \"float32\", \"shape\": [" +
                          std::to_string(kChunk) + "]}})");
  parser::AntaresSource source = parser::read_antares(*file);
  core::Kernel kernel = parser::elaborate_antares(source, parser::declared_inputs(source));
  jit::Jit jit;
  auto compiled = jit.compile(core::lower(kernel));

  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<uint64_t> scalar_wrong{0}, vector_wrong{0};
  std::mutex print;
  std::vector<core::Tensor> input = {core::Tensor(core::DType::Float32, {kChunk})};
  const uint64_t total = uint64_t{1} << 32;
  for (uint64_t start = 0; start < total; start += kChunk) {
    auto* in = reinterpret_cast<uint32_t*>(input[0].bytes().data());
    for (int64_t i = 0; i < kChunk; ++i)
      in[i] = static_cast<uint32_t>(start + static_cast<uint64_t>(i));
    core::Tensor result = compiled->run(input)[0];
    const auto* vec = reinterpret_cast<const float*>(result.bytes().data());
    std::vector<std::thread> team;
    for (unsigned t = 0; t < threads; ++t)
      team.emplace_back([&, t] {
        for (int64_t i = t; i < kChunk; i += threads) {
          float x = std::bit_cast<float>(in[i]);
          float want = static_cast<float>(teval_exp(static_cast<double>(x)));
          float got = teval_expf(x);
          auto complain = [&](std::atomic<uint64_t>& wrong, const char* what, float bad,
                              float right) {
            if (wrong++ < 10) {
              std::lock_guard<std::mutex> lock(print);
              std::printf("%s(%a) = %a, not %a (input bits 0x%08x)\n", what, x, bad, right, in[i]);
            }
          };
          if (!same(got, want))
            complain(scalar_wrong, "teval_expf", got, want);
          if (!same(vec[i], got))
            complain(vector_wrong, "the JIT's vector exp", vec[i], got);
        }
      });
    for (std::thread& th : team)
      th.join();
  }
  std::printf("teval_expf: %llu inputs, %llu differ from (float)teval_exp\n",
              static_cast<unsigned long long>(total),
              static_cast<unsigned long long>(scalar_wrong.load()));
  std::printf("the JIT's vector exp: %llu inputs, %llu differ from teval_expf\n",
              static_cast<unsigned long long>(total),
              static_cast<unsigned long long>(vector_wrong.load()));
  return scalar_wrong || vector_wrong ? 1 : 0;
}
