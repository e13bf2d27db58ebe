// Elaboration of einstein_v2 to the Kernel IR: golden kernel dumps show the
// axes with their ranges, the explicit casts of promotion, folded literals,
// trapping index arithmetic and each statement's policies.
#include "core/error.h"
#include "core/format.h"
#include "tests/support/programs.h"

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

TEST(AntaresElaboration, IntegerIdentitiesFold) {
  auto x = tensor(DType::Int32, {4}, {0, 0, 0, 0});
  EXPECT_EQ(dump("output0[N] = input0[N * 1 + 0 - 0] * 1 + 0 * N / 1", {{"input0", x}}),
            "input %0 input0: int32[4]\n"
            "output %1 output0: int32[4]\n"
            "%1 output0[N] assign= (input0[N] + (0 * N))\n"
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

TEST(AntaresElaboration, ConstTakesItsDtypeByPositionOrKeyword) {
  // const(k, dtype=T) is const(k, T): an int8 constant wraps in int8
  // arithmetic, an int64 one holds 3000000000, a float16 one is float16.
  EXPECT_EQ(dump("output0[N] = const(100, dtype=`int8`) + const(100, `int8`) + N.cast(`int8`) "
                 "where N in 2; output1[N] = const(3000000000, dtype=`int64`) + N where N in 2; "
                 "output2[N] = const(0.5, dtype=`float16`) where N in 2"),
            "intermediate %0 output0: int8[2]\n"
            "intermediate %1 output1: int64[2]\n"
            "output %2 output2: float16[2]\n"
            "%0 output0[N] assign= ((int8(100) + int8(100)) + cast<int8>(N))\n"
            "  for N in [0, 2)\n"
            "  start 0, accumulate from it, out-of-range is an error, rewrites are errors\n"
            "%1 output1[N] assign= (int64(3000000000) + cast<int64>(N))\n"
            "  for N in [0, 2)\n"
            "  start 0, accumulate from it, out-of-range is an error, rewrites are errors\n"
            "%2 output2[N] assign= float16(0.5)\n"
            "  for N in [0, 2)\n"
            "  start 0.0, accumulate from it, out-of-range is an error, rewrites are errors\n"
            "outputs: output2\n");
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

namespace teval {
namespace {

struct Misuse {
  const char* program;
  const char* message;   // the start of the message
  const char* underline; // the text under the caret

  friend void PrintTo(const Misuse& m, std::ostream* os) { *os << m.program; }
};

class AntaresMisuse : public ::testing::TestWithParam<Misuse> {};

// Each error the reader and the elaboration report beyond the golden CLI
// cases (tests/errors/antares): the message, and what the caret underlines.
TEST_P(AntaresMisuse, MessageAndCaret) {
  const Misuse& m = GetParam();
  try {
    test::elaborate(m.program, {{"x", test::tensor(core::DType::Float32, {4}, {0, 0, 0, 0})},
                                {"i", test::tensor(core::DType::Int32, {4}, {0, 0, 0, 0})}});
    ADD_FAILURE() << "no error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.message().substr(0, std::string(m.message).size()), m.message) << e.message();
    EXPECT_EQ(e.diagnostic().span.text(), m.underline) << e.render();
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, AntaresMisuse,
    ::testing::Values(
        Misuse{"", "the einstein_v2 program has no statements", ""},
        Misuse{"- einstein_v2(\";;\", {})", "the einstein_v2 program has no statements", "\";;\""},
        Misuse{"- einstein_v2(\"o[N] = x[N]\", {}); einstein_v2(\"o[N] = x[N]\", {})",
               "more than one einstein_v2(...) call", "einstein_v2(\"o[N] = x[N]\", {})"},
        Misuse{"- _A = max(1, 2); einstein_v2(\"o[N] = x[N]\", {})",
               "calls other than einstein_v2(...) are not supported", "max"},
        Misuse{"- _A[0] = 1; einstein_v2(\"o[N] = x[N]\", {})",
               "only names and tuples of names can be assigned", "_A[0]"},
        Misuse{"- einstein_v2(\"o[N] = x[N]\", [])", "input_dict must be a dict", "[]"},
        Misuse{"- einstein_v2(\"o[N] = x[N]\", {\"y\": {\"dtype\": \"float32\"}})",
               "an input_dict entry needs both \"dtype\" and \"shape\"",
               "{\"dtype\": \"float32\"}"},
        Misuse{"- einstein_v2(\"o[N] = x[N]\", {\"y\": {\"dtype\": \"float32\", \"shape\": [-1]}})",
               "negative dimension -1", "-1"},
        Misuse{"- einstein_v2(\"o[N] = x[N]\", {}, extra_outputs=\"o\")",
               "extra_outputs must be a list", "\"o\""},
        Misuse{"- einstein_v2(\"o[N] = x[N]\", {}, outputs=[])", "unexpected argument `outputs`",
               "outputs=[]"},
        Misuse{"- einstein_v2(f\"o[N] = x[N] where N in {4:3}\", {})",
               "format specs and conversions in f-string fields are not supported", "{4:3}"},
        Misuse{"- einstein_v2(f\"o[N] = x[N] }\", {})", "single `}` in an f-string", "}"},
        Misuse{"- einstein_v2(f\"o[N] = x[N] {\", {})", "unterminated `{` field", "{"},
        Misuse{"- einstein_v2(\"o[N] = \" f\"x[N]\", {})",
               "adjacent f-string and plain string literals are not supported", "f\""},
        Misuse{"COMPUTE_V1='- einstein_v2(\"o[N] = x[N]\", {})' make\nCOMPUTE_V1='- x'",
               "one COMPUTE_V1 per file", "C"},
        Misuse{"COMPUTE_V1='- einstein_v2(\"o[N] = x[N]\", {})", "unterminated COMPUTE_V1 quote",
               "'"},
        Misuse{"o[N] = x[N].when([N > 0], 0.0, merge_op=`some`)", "merge_op is `all` or `any`",
               "`some`"},
        Misuse{"o[N] = x[N].when([N > 0])", "wrong arguments; use x.when", "when"},
        Misuse{"o[N] = x[N].when([], 0.0)", ".when needs at least one condition", "[]"},
        Misuse{"o[N] = x[N].cast(`int8`, 1)", "wrong arguments; use x.cast", "cast"},
        Misuse{"o[N] = x[N].call(`exp`, [x[N]])", "`exp` takes 1 argument", "`exp`"},
        Misuse{"o[N] = x[N].call(`pow`)", "`pow` takes 2 arguments", "`pow`"},
        Misuse{"o[N] = x[N].call(exp)", "the function name is a string", "exp"},
        Misuse{"o[N] = x[N].val()", ".val() is the extent of an axis", "x[N]"},
        Misuse{"o[N] = x[N] + x", "tensor `x` must be indexed", "x"},
        Misuse{"o[N] = x[N] + y", "unknown name `y`", "y"},
        Misuse{"o[N] = N[0] where N in 4", "`N` is an axis (upper-case initial), not a tensor",
               "N"},
        Misuse{"o[N] = x[N] + [1, 2]", "a list is only allowed as a .when or .call argument",
               "[1, 2]"},
        Misuse{"o[N] = x[N] + (1, 2)", "tuples have no meaning in einstein_v2", "(1, 2)"},
        Misuse{"o[N] = x[N] + \"a\"", "a string is only allowed as a dtype", "\"a\""},
        Misuse{"o[N] = x[N] where N in M", "an axis extent is an integer literal", "M"},
        Misuse{"o[N] = x[N] where N in -2", "axis extents cannot be negative", "-2"},
        Misuse{"o[N] = x[N] where N in 3000000000", "axis extent 3000000000 does not fit int32",
               "3000000000"},
        Misuse{"x[i[N], N] =. x[N]", "tensor `x` has rank 1", "x[i[N], N]"},
        Misuse{"q[i[N]] =. x[N]", "unknown tensor `q`", "q"},
        Misuse{"o[N] = x[N] * const(x[N])", "const(...) takes a number literal", "x[N]"},
        Misuse{"o[N] = x[N] * const(300, `int8`)", "300 does not fit int8", "300"},
        Misuse{"o[N] = x[N].cast(x)", "expected a dtype", "x"},
        Misuse{"o[N] = x[N].foo", "expected argument list", ""}));

} // namespace
} // namespace teval
