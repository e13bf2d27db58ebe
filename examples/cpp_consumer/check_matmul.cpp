// Checks a hand-written matrix multiplication (the kernel under test, here a
// plain loop in another order) against the meaning of the einstein_v2
// program, as a compiler's test suite would check its generated kernel.
#include <teval/teval.h>

#include <cstdio>
#include <vector>

int main() {
  const int n = 4, k = 5, m = 3;
  std::vector<float> a(n * k), b(k * m), c(n * m, 0.0f);
  for (int i = 0; i < n * k; ++i)
    a[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
  for (int i = 0; i < k * m; ++i)
    b[i] = 0.125f * static_cast<float>(i % 5) + 1.0f;
  // The kernel under test: the k loop outermost.
  for (int kk = 0; kk < k; ++kk)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j)
        c[i * m + j] += a[i * k + kk] * b[kk * m + j];

  try {
    auto out = teval::run("output0[N, M] +=! input0[N, K] * input1[K, M]",
                          {{"input0", {teval::DType::Float32, {n, k}, a.data()}},
                           {"input1", {teval::DType::Float32, {k, m}, b.data()}}});
    const teval::Tensor& want = out.at("output0");
    const float* w = static_cast<const float*>(want.data());
    for (int i = 0; i < n * m; ++i)
      if (w[i] != c[i]) {
        std::printf("mismatch at %d: teval %g, kernel %g\n", i, w[i], c[i]);
        return 1;
      }
  } catch (const teval::Error& e) {
    std::fputs(e.what(), stderr);
    return 1;
  }
  std::printf("check_matmul: the kernel computes output0[N, M] +=! input0[N, K] * input1[K, M]\n");
  return 0;
}
