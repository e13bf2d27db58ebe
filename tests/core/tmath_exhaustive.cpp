// Every float through teval_expf against (float)teval_exp(x), the function
// it is defined to be (core/tmath.h): `scripts/dev exhaustive-math`. Prints
// the count of inputs checked and of disagreements (each of the first ten
// by its bits) and exits 1 on any. Not a ctest: it takes about a minute on
// two cores; the unit test Tmath.ExpfIsTheFloat64ExpRounded samples it.
#include "core/tmath.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

int main() {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<uint64_t> wrong{0};
  std::mutex print;
  std::vector<std::thread> team;
  const uint64_t total = uint64_t{1} << 32;
  for (unsigned t = 0; t < threads; ++t)
    team.emplace_back([&, t] {
      for (uint64_t b = t; b < total; b += threads) {
        float x = std::bit_cast<float>(static_cast<uint32_t>(b));
        float want = static_cast<float>(teval_exp(static_cast<double>(x)));
        float got = teval_expf(x);
        if (std::bit_cast<uint32_t>(got) == std::bit_cast<uint32_t>(want) ||
            (std::isnan(got) && std::isnan(want)))
          continue;
        if (wrong++ < 10) {
          std::lock_guard<std::mutex> lock(print);
          std::printf("expf(%a) = %a, not %a (input bits 0x%08x)\n", x, got, want,
                      static_cast<unsigned>(b));
        }
      }
    });
  for (std::thread& th : team)
    th.join();
  std::printf("teval_expf: %llu inputs, %llu differ from (float)teval_exp\n",
              static_cast<unsigned long long>(total),
              static_cast<unsigned long long>(wrong.load()));
  return wrong ? 1 : 0;
}
