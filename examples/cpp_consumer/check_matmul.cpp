// Checks a hand-written matrix multiplication against the meaning of an
// einstein_v2 program, as a compiler's test suite checks its generated
// kernel: the kernel under test splits each output's sum over K in two
// halves (a split-K schedule), so it is not bit-equal to the sequential
// sum, and teval's verdict says whether it is a legal result.
#include <teval/teval.h>

#include <cstdio>
#include <vector>

int main() {
  const int n = 4, k = 6, m = 3;
  std::vector<float> a(n * k), b(k * m), c(n * m);
  for (int i = 0; i < n * k; ++i)
    a[i] = 0.1f * static_cast<float>(i % 7) - 0.35f;
  for (int i = 0; i < k * m; ++i)
    b[i] = 0.3f * static_cast<float>(i % 5) + 1.0f;
  // The kernel under test.
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      float low = 0.0f, high = 0.0f;
      for (int kk = 0; kk < k / 2; ++kk)
        low += a[i * k + kk] * b[kk * m + j];
      for (int kk = k / 2; kk < k; ++kk)
        high += a[i * k + kk] * b[kk * m + j];
      c[i * m + j] = low + high;
    }

  try {
    teval::LoadOptions options;
    options.inputs = {{"input0", {teval::DType::Float32, {n, k}}},
                      {"input1", {teval::DType::Float32, {k, m}}}};
    teval::Program program =
        teval::Program::load("output0[N, M] +=! input0[N, K] * input1[K, M]", options);
    std::vector<teval::Verdict> verdicts =
        program.check({{"input0", {teval::DType::Float32, {n, k}, a.data()}},
                       {"input1", {teval::DType::Float32, {k, m}, b.data()}}},
                      {{"output0", {teval::DType::Float32, {n, m}, c.data()}}});
    std::printf("check_matmul: %s\n", verdicts.front().text.c_str());
    return verdicts.front().passed() ? 0 : 1;
  } catch (const teval::Error& e) {
    std::fputs(e.what(), stderr);
    return 1;
  }
}
