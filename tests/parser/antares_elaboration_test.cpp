// Elaboration of einstein_v2 to the Kernel IR: golden kernel dumps show the
// axes with their ranges, the explicit casts of promotion, folded literals,
// trapping index arithmetic and each statement's policies.
#include "core/error.h"
#include "core/format.h"
#include "tests/support/antares_run.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

using core::DType;
using test::tensor;

std::string dump(const std::string& program, const std::map<std::string, core::Tensor>& in = {}) {
  try {
    return core::to_string(test::elaborate(program, in));
  } catch (const core::Error& e) {
    return e.render();
  }
}

TEST(AntaresElaboration, MatmulBiasAdd) {
  EXPECT_EQ(dump("- einstein_v2(\"output0[N, M] +=! input0[N, K] * input1[K, M] + input2[M] / "
                 "K.val()\", {\"input0\": {\"dtype\": \"float32\", \"shape\": [4, 3]}, \"input1\": "
                 "{\"dtype\": \"float32\", \"shape\": [3, 5]}, \"input2\": {\"dtype\": "
                 "\"float32\", \"shape\": [5]}})"),
            "input %0 input0: float32[4, 3]\n"
            "input %1 input1: float32[3, 5]\n"
            "input %2 input2: float32[5]\n"
            "output %3 output0: float32[4, 5]\n"
            "%3 output0[N, M] sum= ((input0[N, K] * input1[K, M]) + (input2[M] / 3.0))\n"
            "  for N in [0, 4) M in [0, 5) K~ in [0, 3)\n"
            "  start 0.0, accumulate from it, out-of-range is an error\n"
            "outputs: output0\n");
}

TEST(AntaresElaboration, IndexArithmeticTrapsAndValuesWrap) {
  auto x = tensor(DType::Int32, {8}, {0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(dump("output0[N] = input0[N * 2 - 1] + N * 2 where N in 4", {{"input0", x}}),
            "input %0 input0: int32[8]\n"
            "output %1 output0: int32[4]\n"
            "%1 output0[N] assign= (input0[((N *! 2) -! 1)] + (N * 2))\n"
            "  for N in [0, 4)\n"
            "  start 0, accumulate from it, out-of-range is an error, rewrites are errors\n"
            "outputs: output0\n");
}

TEST(AntaresElaboration, LiteralsConvertExactlyAndNegativesFold) {
  auto h = tensor(DType::Float16, {2}, {0, 0});
  auto d = tensor(DType::Float64, {2}, {0, 0});
  EXPECT_EQ(dump("output0[N] = input0[N] * -1 + input1[N] * 0.1", {{"input0", h}, {"input1", d}}),
            "input %0 input0: float16[2]\n"
            "input %1 input1: float64[2]\n"
            "output %2 output0: float64[2]\n"
            "%2 output0[N] assign= (cast<float64>((input0[N] * float16(-1.0))) + (input1[N] * "
            "float64(0.1)))\n"
            "  for N in [0, 2)\n"
            "  start 0.0, accumulate from it, out-of-range is an error, rewrites are errors\n"
            "outputs: output0\n");
}

TEST(AntaresElaboration, WhenLogicAndComparisons) {
  auto x = tensor(DType::Float32, {3}, {0, 0, 0});
  EXPECT_EQ(dump("output0[N] = x[N].when([x[N] > 0, N != 1], 0.0, merge_op=`any`)", {{"x", x}}),
            "input %0 x: float32[3]\n"
            "output %1 output0: float32[3]\n"
            "%1 output0[N] assign= select(((x[N] > 0.0) || (N != 1)), x[N], 0.0)\n"
            "  for N in [0, 3)\n"
            "  start 0.0, accumulate from it, out-of-range is an error, rewrites are errors\n"
            "outputs: output0\n");
}

TEST(AntaresElaboration, ScatterIsANewVersionOfItsTarget) {
  auto d = tensor(DType::Float32, {4}, {0, 0, 0, 0});
  auto i = tensor(DType::Int32, {2}, {0, 0});
  auto u = tensor(DType::Int32, {2}, {0, 0});
  EXPECT_EQ(dump("data[idx[B]] =. upd[B]", {{"data", d}, {"idx", i}, {"upd", u}}),
            "input %0 data: float32[4]\n"
            "input %1 idx: int32[2]\n"
            "input %2 upd: int32[2]\n"
            "output %3 data: float32[4]\n"
            "%3 data[idx[B]] assign= cast<float32>(upd[B])\n"
            "  for B in [0, 2)\n"
            "  start copy of %0, accumulate from it, out-of-range is an error, rewrites must be "
            "identical\n"
            "outputs: data\n");
}

} // namespace
} // namespace teval
