// The JIT's vector math (jit/vector_math.h): a vectorized loop that calls
// exp calls a vector version of teval_expf, which must return, lane by
// lane, the bits of the scalar function (core/tmath.h), the definition of
// float32 exp. Expected values come from the scalar C function, called
// directly. `scripts/dev exhaustive-math` checks all 2^32 floats.
#include "core/lower.h"
#include "core/tmath.h"
#include "jit/jit.h"
#include "tests/support/programs.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace teval {
namespace {

using core::DType;

// The 34 floats (every one; found by running the fast path of exp_log.c
// over all 2^32) where teval_expf's double value lies too near a rounding
// boundary and the float64 function decides.
constexpr uint32_t kNearBoundary[] = {
    0x337fffff, 0x33800000, 0x343fffff, 0x34dffffd, 0x356ffff9, 0x35f7fff1, 0x367bffe1,
    0x36fdffc1, 0x377eff81, 0x383a3ef1, 0x38ad9e29, 0x38e69cc1, 0x39c6be5b, 0x39e5bb1d,
    0x3a7bcd08, 0x3c608a0e, 0x3c971aaa, 0x3caffe2e, 0x3d1a274e, 0x3fe67199, 0x4001b249,
    0x40315b33, 0x4034d02b, 0x41cbf87b, 0x4288942b, 0xb3000000, 0xbae0e25c, 0xbbb70ee8,
    0xbbf0edf1, 0xbc2a461a, 0xbcb8f40f, 0xc0781533, 0xc13d6631, 0xc16912cd};

// Float bit patterns: a stride through all 2^32 (every sign, exponent,
// NaN and infinity), the floats around the fast path's limits -87 and 88
// and where e^x over- and underflows, the special values, and the near-
// boundary floats, each in a different lane position in turn.
std::vector<uint32_t> exp_inputs() {
  std::vector<uint32_t> bits;
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 4099)
    bits.push_back(static_cast<uint32_t>(b));
  for (float edge : {-87.0f, 88.0f, -103.97f, 88.72f, -87.34f, 0.0f})
    for (int d = -40; d <= 40; ++d)
      bits.push_back(
          static_cast<uint32_t>(static_cast<int64_t>(std::bit_cast<uint32_t>(edge)) + d));
  for (float v : {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::lowest()})
    bits.push_back(std::bit_cast<uint32_t>(v));
  for (int shift = 0; shift < 17; ++shift)
    for (uint32_t b : kNearBoundary) {
      bits.push_back(b);
      bits.insert(bits.end(), static_cast<size_t>(shift), 0x3f800000); // 1.0
    }
  return bits;
}

core::Tensor float_tensor(const std::vector<uint32_t>& bits) {
  core::Tensor t(DType::Float32, {static_cast<int64_t>(bits.size())});
  std::memcpy(t.bytes().data(), bits.data(), bits.size() * sizeof(uint32_t));
  return t;
}

std::vector<uint32_t> float_bits(const core::Tensor& t) {
  std::vector<uint32_t> bits(static_cast<size_t>(t.numel()));
  std::memcpy(bits.data(), t.bytes().data(), bits.size() * sizeof(uint32_t));
  return bits;
}

// The program compiled (sequential mode, one thread) and run on \p in.
std::vector<uint32_t> jit_bits(jit::Jit& jit, const std::string& program, const core::Tensor& in,
                               std::string* ir = nullptr) {
  core::Kernel k = test::elaborate(program, {{"input0", in}});
  core::LoopNest nest = core::lower(k);
  if (ir)
    *ir = jit.emit_llvm(nest);
  std::vector<core::Tensor> inputs = {in};
  return float_bits(jit.compile(nest)->run(inputs)[0]);
}

TEST(VectorMath, VectorExpIsTheScalarFunctionInEveryLane) {
  std::vector<uint32_t> bits = exp_inputs();
  jit::Jit jit(jit::JitOptions{.threads = 1});
  std::string ir;
  std::vector<uint32_t> got =
      jit_bits(jit, "output0[N] = input0[N].call(`exp`)", float_tensor(bits), &ir);
  // The loop is vectorized and calls a vector function.
  EXPECT_NE(ir.find("call <"), std::string::npos) << ir;
  EXPECT_NE(ir.find("@teval_expf_v"), std::string::npos) << ir;
  ASSERT_EQ(got.size(), bits.size());
  int wrong = 0;
  for (size_t i = 0; i < bits.size() && wrong < 10; ++i) {
    float want = teval_expf(std::bit_cast<float>(bits[i]));
    if (got[i] != std::bit_cast<uint32_t>(want)) {
      ADD_FAILURE() << "exp of bits " << std::hex << bits[i] << ": " << got[i] << ", not "
                    << std::bit_cast<uint32_t>(want);
      ++wrong;
    }
  }
}

// Sigmoid calls exp too: 1 / (1 + exp(-x)) in float arithmetic.
TEST(VectorMath, SigmoidThroughTheVectorExpKeepsItsBits) {
  std::vector<uint32_t> bits = exp_inputs();
  for (uint32_t& b : bits)
    b ^= 0x80000000; // exp sees the near-boundary floats
  jit::Jit jit(jit::JitOptions{.threads = 1});
  std::vector<uint32_t> got =
      jit_bits(jit, "output0[N] = input0[N].call(`sigmoid`)", float_tensor(bits));
  for (size_t i = 0; i < bits.size(); ++i) {
    float x = std::bit_cast<float>(bits[i]);
    float want = 1.0f / (1.0f + teval_expf(-x));
    ASSERT_EQ(got[i], std::bit_cast<uint32_t>(want)) << "sigmoid of bits " << std::hex << bits[i];
  }
}

} // namespace
} // namespace teval
