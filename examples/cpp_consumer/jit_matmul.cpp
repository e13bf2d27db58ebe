// The JIT component: a program compiled by teval's LLVM JIT gives the
// interpreter's results bit for bit, on tensors read where they lie (here
// a Fortran-order matrix, passed with its strides).
#include <teval/teval.h>

#include <cstdio>
#include <cstring>
#include <vector>

int main() {
  const int n = 5, k = 7, m = 4;
  std::vector<float> a(n * k), b(k * m);
  for (int i = 0; i < n * k; ++i)
    a[i] = 0.1f * static_cast<float>(i % 9) - 0.4f;
  for (int i = 0; i < k * m; ++i)
    b[i] = 0.3f * static_cast<float>(i % 5) + 1.0f;
  // b in Fortran order: element (kk, j) at kk + j·k.
  std::vector<float> b_fortran(k * m);
  for (int kk = 0; kk < k; ++kk)
    for (int j = 0; j < m; ++j)
      b_fortran[kk + j * k] = b[kk * m + j];

  try {
    teval::LoadOptions options;
    options.inputs = {{"input0", {teval::DType::Float32, {n, k}}},
                      {"input1", {teval::DType::Float32, {k, m}}}};
    teval::Program program =
        teval::Program::load("output0[N, M] +=! input0[N, K] * input1[K, M]", options);
    teval::TensorRef in0{teval::DType::Float32, {n, k}, a.data(), {}};
    auto interpreted =
        program.run({{"input0", in0}, {"input1", {teval::DType::Float32, {k, m}, b.data(), {}}}},
                    teval::Engine::Interpreter);
    auto compiled = program.run(
        {{"input0", in0}, {"input1", {teval::DType::Float32, {k, m}, b_fortran.data(), {1, k}}}},
        teval::Engine::Jit);
    const teval::Tensor& x = interpreted.at("output0");
    const teval::Tensor& y = compiled.at("output0");
    if (std::memcmp(x.data(), y.data(), x.size_bytes()) != 0) {
      std::printf("jit_matmul: the JIT and the interpreter disagree\n");
      return 1;
    }
  } catch (const teval::Error& e) {
    std::fputs(e.what(), stderr);
    return 1;
  }
  std::printf("jit_matmul: the JIT computes the interpreter's results bit for bit\n");
  return 0;
}
