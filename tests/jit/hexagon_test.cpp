// The Hexagon DSP target's vector code pays: what HVX kernels execute,
// counted in VLIW packets from qemu-hexagon's trace, against the same
// kernels compiled for the scalar core only. Counts, not times: they are
// the same on every run.
#include "core/lower.h"
#include "interp/random_inputs.h"
#include "jit/hexagon/hexagon.h"
#include "tests/support/programs.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

struct Counts {
  uint64_t hvx, scalar;
};

Counts executed(const std::string& program) {
  core::Kernel k = test::elaborate(program);
  core::LoopNest nest = core::lower(k);
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, 1);
  Counts c{};
  for (bool hvx : {true, false}) {
    jit::HexagonCompiler compiler({}, hvx);
    auto kernel = compiler.compile(nest, "kernel");
    jit::DspKernel::Executed e = kernel->executed(inputs);
    EXPECT_GT(e.packets, 0u) << program;
    EXPECT_GE(e.words, e.packets) << program;
    (hvx ? c.hvx : c.scalar) = e.packets;
  }
  return c;
}

TEST(Hexagon, HvxKernelsExecuteFewerPacketsThanScalarCode) {
  const int n = 1 << 14;
  for (const char* dtype : {"int8", "int16", "int32"}) {
    std::string program = "- einstein_v2(\"output0[N] = input0[N] + input1[N] * input0[N]\", "
                          "{\"input0\": {\"dtype\": \"" +
                          std::string(dtype) + "\", \"shape\": [" + std::to_string(n) +
                          "]}, \"input1\": {\"dtype\": \"" + dtype + "\", \"shape\": [" +
                          std::to_string(n) + "]}})";
    Counts c = executed(program);
    // 128-byte vectors hold 128, 64 or 32 lanes: HVX code must need a
    // small fraction of the scalar packets.
    EXPECT_LT(c.hvx * 4, c.scalar) << dtype << ": HVX " << c.hvx << ", scalar " << c.scalar;
  }
}

// An int8 dot product accumulated in int32, the core of quantized
// convolutions: the integer reduction vectorizes (integer addition is
// associative, so the order does not change the wrapped sum).
TEST(Hexagon, HvxDotProductsExecuteFewerPacketsThanScalarCode) {
  Counts c = executed("- einstein_v2(\"output0[N] +=! input0[N, K].cast(`int32`) * "
                      "input1[K].cast(`int32`)\", {\"input0\": {\"dtype\": \"int8\", \"shape\": "
                      "[64, 1024]}, \"input1\": {\"dtype\": \"int8\", \"shape\": [1024]}})");
  EXPECT_LT(c.hvx * 4, c.scalar) << "HVX " << c.hvx << ", scalar " << c.scalar;
}

} // namespace
} // namespace teval
