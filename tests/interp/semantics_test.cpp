// The Antares rules of docs/SEMANTICS.md, one test per rule, each checked
// against values worked out by hand.
#include "core/error.h"
#include "core/format.h"
#include "tests/support/programs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace teval {
namespace {

using core::DType;
using test::error_of;
using test::out;
using test::run;
using test::tensor;
using test::values;
using V = std::vector<double>;

TEST(Semantics, StepTwoLoopsSumTheWholeRightHandSide) {
  // output0[N] +=! input0[N, K] * 2 + 1: the + 1 is inside the sum.
  auto x = tensor(DType::Int32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto o = out("output0[N] +=! input0[N, K] * 2 + 1", {{"input0", x}});
  EXPECT_EQ(values(o), (V{(1 + 2 + 3) * 2 + 3, (4 + 5 + 6) * 2 + 3}));
}

// Each output of a float sum adds its values in the statement's order, on
// every engine, however the engine walks the outputs (the interpreter
// computes a matmul's row of outputs together, reading B along rows): in
// column m, 1e8 arrives at k = m % 40 and every 2 after it is lost to
// rounding (the ulp of 1e8 in float32 is 8), the ones before it are not.
TEST(Semantics, SumsAddInTheStatementsOrder) {
  constexpr int N = 2, K = 40, M = 20;
  std::vector<double> a(N * K, 1), b(K * M);
  for (int k = 0; k < K; ++k)
    for (int m = 0; m < M; ++m)
      b[k * M + m] = k == m % K ? 1e8 : 2;
  core::Tensor x(DType::Float32, {N, K}), y(DType::Float32, {K, M});
  for (size_t i = 0; i < a.size(); ++i)
    x.set(static_cast<int64_t>(i), core::Scalar::of_float(DType::Float32, a[i]));
  for (size_t i = 0; i < b.size(); ++i)
    y.set(static_cast<int64_t>(i), core::Scalar::of_float(DType::Float32, b[i]));
  core::Tensor o =
      out("output0[N, M] +=! input0[N, K] * input1[K, M]", {{"input0", x}, {"input1", y}});
  for (int n = 0; n < N; ++n)
    for (int m = 0; m < M; ++m) {
      float want = 0;
      for (int k = 0; k < K; ++k)
        want += static_cast<float>(a[n * K + k]) * static_cast<float>(b[k * M + m]);
      EXPECT_EQ(o.get(n * M + m).f, want) << n << ", " << m;
    }
}

TEST(Semantics, ValIsTheAxisExtent) {
  auto x = tensor(DType::Float32, {1, 4}, {1, 2, 3, 4});
  auto o = out("output0[N] +=! input0[N, K] / K.val()", {{"input0", x}});
  EXPECT_EQ(values(o), (V{2.5}));
}

TEST(Semantics, WhereExtentWinsOverTensorDimensions) {
  // F runs to 6 though input0 has 3 columns; the guard keeps reads in range.
  auto a = tensor(DType::Float32, {1, 3}, {1, 2, 3});
  auto o = out("output0[N, F] = input0[N, F].when([F < 3], -1.0) where F in 6", {{"input0", a}});
  EXPECT_EQ(o.shape(), (core::Shape{1, 6}));
  EXPECT_EQ(values(o), (V{1, 2, 3, -1, -1, -1}));
}

TEST(Semantics, WhenIsLazy) {
  // The unchosen branch reads far out of range and is never evaluated.
  auto a = tensor(DType::Float32, {2}, {5, 6});
  auto o = out("output0[N] = input0[N + 100].when([N > 5], input0[N])", {{"input0", a}});
  EXPECT_EQ(values(o), (V{5, 6}));
}

TEST(Semantics, WhenMayChooseAnAxisValue) {
  // Found by the differential property: a branch that is an axis itself.
  auto a = tensor(DType::Int16, {4}, {0, 2, 0, -1});
  auto o = out("output0[N] = (N).when([input0[N]], const(7))", {{"input0", a}});
  EXPECT_EQ(values(o), (V{7, 1, 7, 3}));
}

TEST(Semantics, MaxAndMinOnEveryBackend) {
  // Found by the transformation property: LLVM 19 miscompiled an open-coded
  // max(abs(x), 0) to 0 for negative x; compiled code now uses
  // llvm.maximum. NaN propagates and -0 orders below +0 everywhere.
  auto a = tensor(DType::Float32, {4}, {-0.5, 0.25, -0.0, NAN});
  auto o = out("output0[N] = input0[N].call(`abs`).call(`max`, [const(0.0)])", {{"input0", a}});
  EXPECT_EQ(values(o)[0], 0.5);
  EXPECT_EQ(values(o)[1], 0.25);
  EXPECT_EQ(values(o)[2], 0.0);
  EXPECT_TRUE(std::isnan(values(o)[3]));
  o = out("output0[N] = input0[N].call(`min`, [const(0.0)])", {{"input0", a}});
  EXPECT_EQ(values(o)[0], -0.5);
  EXPECT_TRUE(std::signbit(values(o)[2])) << "min(-0, +0) is -0";
  EXPECT_TRUE(std::isnan(values(o)[3]));
}

TEST(Semantics, WhenMergeAnyAndAll) {
  auto o = out("output0[N] = const(1).when([N == 0, N == 3], 0, merge_op=`any`) where N in 4");
  EXPECT_EQ(values(o), (V{1, 0, 0, 1}));
  o = out("output0[N] = const(1).when([N > 0, N < 3], 0) where N in 4");
  EXPECT_EQ(values(o), (V{0, 1, 1, 0}));
}

TEST(Semantics, LogicalOperatorsGiveInt8) {
  auto a = tensor(DType::Int32, {4}, {0, 3, 0, -2});
  auto b = tensor(DType::Int32, {4}, {0, 0, 7, 1});
  auto o = out("output0[N] = input0[N] & ~input1[N]", {{"input0", a}, {"input1", b}});
  EXPECT_EQ(o.dtype(), DType::Int8);
  EXPECT_EQ(values(o), (V{0, 1, 0, 0}));
  o = out("output0[N] = input0[N] | input1[N]", {{"input0", a}, {"input1", b}});
  EXPECT_EQ(values(o), (V{0, 1, 1, 1}));
}

TEST(Semantics, ComparisonsGiveInt8ZeroOrOne) {
  auto a = tensor(DType::Float32, {3}, {1.5, 2, 2.5});
  auto o = out("output0[N] = input0[N] >= 2", {{"input0", a}});
  EXPECT_EQ(o.dtype(), DType::Int8);
  EXPECT_EQ(values(o), (V{0, 1, 1}));
}

TEST(Semantics, IntegerDivisionTruncatesAndModuloFloors) {
  auto a = tensor(DType::Int32, {4}, {-7, 7, -7, 7});
  auto b = tensor(DType::Int32, {4}, {2, -2, -2, 2});
  auto in = std::map<std::string, core::Tensor>{{"input0", a}, {"input1", b}};
  EXPECT_EQ(values(out("output0[N] = input0[N] / input1[N]", in)), (V{-3, -3, 3, 3}));
  EXPECT_EQ(values(out("output0[N] = input0[N] // input1[N]", in)), (V{-3, -3, 3, 3}));
  EXPECT_EQ(values(out("output0[N] = input0[N] % input1[N]", in)), (V{1, -1, -1, 1}));
}

TEST(Semantics, IntegersWrap) {
  auto a = tensor(DType::Int32, {1}, {2147483647});
  EXPECT_EQ(values(out("output0[N] = input0[N] + 1", {{"input0", a}})), (V{-2147483648.0}));
  auto b = tensor(DType::Int8, {2}, {100, -128});
  auto o = out("output0[N] = input0[N] + input0[N]", {{"input0", b}});
  EXPECT_EQ(o.dtype(), DType::Int8);
  EXPECT_EQ(values(o), (V{-56, 0}));
}

TEST(Semantics, NegatedConstantsWrapLikeAnyValue) {
  // Found by the differential campaign: -x is 0 - x in x's dtype even when
  // x is a constant, so it wraps (and bool negates in int8).
  auto o = out("output0[N] = -const(1).cast(`uint8`) where N in 1");
  EXPECT_EQ(o.dtype(), DType::UInt8);
  EXPECT_EQ(values(o), (V{255}));
  o = out("output0[N] = -const(-128, `int8`) where N in 1");
  EXPECT_EQ(values(o), (V{-128}));
  o = out("output0[N] = -const(1).cast(`bool`) where N in 1");
  EXPECT_EQ(o.dtype(), DType::Int8);
  EXPECT_EQ(values(o), (V{-1}));
}

// A float's negation flips its sign: -0.0 from 0.0 (where 0 - x would give
// +0.0), 0.0 from -0.0, in every float dtype.
TEST(Semantics, FloatNegationFlipsTheSign) {
  for (DType t : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
    auto z = tensor(t, {2}, {0.0, -0.0});
    auto o = out("output0[N] = -input0[N]", {{"input0", z}});
    ASSERT_EQ(o.dtype(), t);
    EXPECT_TRUE(std::signbit(o.get(0).f)) << core::to_string(t);
    EXPECT_FALSE(std::signbit(o.get(1).f)) << core::to_string(t);
  }
}

TEST(Semantics, PromotionTable) {
  auto h = tensor(DType::Float16, {1}, {1});
  auto bf = tensor(DType::BFloat16, {1}, {1});
  auto i8 = tensor(DType::Int8, {1}, {1});
  auto u8 = tensor(DType::UInt8, {1}, {1});
  auto i32 = tensor(DType::Int32, {1}, {1});
  auto i64 = tensor(DType::Int64, {1}, {1});
  auto f64 = tensor(DType::Float64, {1}, {1});
  auto u16 = tensor(DType::UInt16, {1}, {1});
  auto u32 = tensor(DType::UInt32, {1}, {1});
  auto i16 = tensor(DType::Int16, {1}, {1});
  struct Case {
    const char* expr;
    DType want;
  };
  std::map<std::string, core::Tensor> in{{"h", h},     {"bf", bf},  {"i8", i8}, {"u8", u8},
                                         {"i", i32},   {"l", i64},  {"d", f64}, {"s", i16},
                                         {"u16", u16}, {"u32", u32}};
  for (Case c : {Case{"h[N] + 1.0", DType::Float32}, Case{"h[N] + 1", DType::Float16},
                 Case{"i8[N] + 1", DType::Int32}, Case{"i8[N] + i8[N]", DType::Int8},
                 Case{"l[N] + i[N]", DType::Int64}, Case{"i[N] / 2.0", DType::Float32},
                 Case{"i8[N] / h[N]", DType::Float16}, Case{"d[N] * 2.5", DType::Float64},
                 Case{"bf[N] + h[N]", DType::Float32}, Case{"u8[N] + i8[N]", DType::Int16},
                 Case{"i[N] << 1", DType::Int32}, Case{"-i8[N]", DType::Int8},
                 // Integers: the narrowest dtype holding both (numpy's rule).
                 Case{"u8[N] + u32[N]", DType::UInt32}, Case{"u16[N] * u8[N]", DType::UInt16},
                 Case{"u16[N] + s[N]", DType::Int32}, Case{"i8[N] - u16[N]", DType::Int32},
                 Case{"u16[N] + i[N]", DType::Int32}, Case{"u32[N] + i[N]", DType::Int64},
                 Case{"u32[N] + 1", DType::Int64}, Case{"u32[N] + l[N]", DType::Int64},
                 Case{"u32[N] + h[N]", DType::Float16}, Case{"u16[N] / 2.0", DType::Float32},
                 Case{"u32[N] + u32[N]", DType::UInt32}}) {
    SCOPED_TRACE(c.expr);
    EXPECT_EQ(out(std::string("output0[N] = ") + c.expr, in).dtype(), c.want);
  }
}

TEST(Semantics, ReductionInitialValues) {
  double inf = std::numeric_limits<double>::infinity();
  auto neg = tensor(DType::Float32, {1, 2}, {-inf, -inf});
  EXPECT_EQ(values(out("output0[N] >=! input0[N, K]", {{"input0", neg}})),
            (V{-std::numeric_limits<float>::max()}));
  auto pos = tensor(DType::Float32, {1, 2}, {inf, inf});
  EXPECT_EQ(values(out("output0[N] <=! input0[N, K]", {{"input0", pos}})),
            (V{std::numeric_limits<float>::max()}));
  auto i = tensor(DType::Int32, {2, 3}, {2, 3, 4, 1, 0, 5});
  auto in = std::map<std::string, core::Tensor>{{"input0", i}};
  EXPECT_EQ(values(out("output0[N] *=! input0[N, K]", in)), (V{24, 0}));
  EXPECT_EQ(values(out("output0[N] &=! input0[N, K]", in)), (V{1, 0}));
  EXPECT_EQ(values(out("output0[N] |=! input0[N, K] - 2", in)), (V{1, 1}));
  EXPECT_EQ(values(out("output0[N] >=! input0[N, K]", in)), (V{4, 5}));
  EXPECT_EQ(values(out("output0[N] <=! input0[N, K]", in)), (V{2, 0}));
  // An empty reduction leaves the initial value.
  EXPECT_EQ(values(out("output0[N] +=! input0[N, K] where K in 0", in)), (V{0, 0}));
  EXPECT_EQ(values(out("output0[N] *=! input0[N, K] where K in 0", in)), (V{1, 1}));
}

TEST(Semantics, BoolSumsAccumulateInInt8) {
  auto b = tensor(DType::Bool, {1, 3}, {1, 1, 0});
  auto o = out("output0[N] +=! input0[N, K]", {{"input0", b}});
  EXPECT_EQ(o.dtype(), DType::Int8);
  EXPECT_EQ(values(o), (V{2}));
  EXPECT_EQ(out("output0[N] |=! input0[N, K]", {{"input0", b}}).dtype(), DType::Bool);
}

TEST(Semantics, AbsWorksOnIntegersAndWraps) {
  auto x = tensor(DType::Int32, {3}, {-5, 7, -2147483648.0});
  auto o = out("output0[N] = input0[N].call(`abs`)", {{"input0", x}});
  EXPECT_EQ(o.dtype(), DType::Int32);
  EXPECT_EQ(values(o), (V{5, 7, -2147483648.0}));
}

TEST(Semantics, CastsTruncateWrapAndRound) {
  auto x = tensor(DType::Float32, {3}, {-1.7, 1.7, 300.5});
  EXPECT_EQ(values(out("output0[N] = input0[N].cast(`int32`)", {{"input0", x}})), (V{-1, 1, 300}));
  auto i = tensor(DType::Int32, {2}, {300, -129});
  EXPECT_EQ(values(out("output0[N] = input0[N].cast(`int8`)", {{"input0", i}})), (V{44, 127}));
  auto big = tensor(DType::Int32, {1}, {2049});
  EXPECT_EQ(values(out("output0[N] = input0[N].cast(`float16`)", {{"input0", big}})), (V{2048}));
  EXPECT_EQ(values(out("output0[N] = input0[N] > 1.0 where N in 1", {{"input0", x}})), (V{0}));
}

TEST(Semantics, ConstTakesAnOptionalDtype) {
  auto o = out("output0[N] = const(3, `int64`) + N where N in 2");
  EXPECT_EQ(o.dtype(), DType::Int64);
  EXPECT_EQ(values(o), (V{3, 4}));
  o = out("output0[N] = -const(3000000000, `int64`) + N where N in 2");
  EXPECT_EQ(o.dtype(), DType::Int64);
  EXPECT_EQ(values(o), (V{-3e9, -3e9 + 1}));
  o = out("output0[N] = -const(0.1, `float16`) where N in 1");
  EXPECT_EQ(o.dtype(), DType::Float16);
  EXPECT_EQ(values(o), (V{-0x1.998p-4}));
  auto x = tensor(DType::Float16, {1}, {2});
  o = out("output0[N] = input0[N] * const(0.5).cast(input0[N].dtype())", {{"input0", x}});
  EXPECT_EQ(o.dtype(), DType::Float16);
  EXPECT_EQ(values(o), (V{1}));
}

// Antares' op generators name a whole tensor's dtype on the bare name:
// `const(0, input0.dtype())`, `.cast(input0.dtype())`.
TEST(Semantics, DtypeOfABareTensorName) {
  auto h = tensor(DType::Float16, {2}, {1, 3});
  auto o = out("output0[N] = input0[N] * const(2, input0.dtype())", {{"input0", h}});
  EXPECT_EQ(o.dtype(), DType::Float16);
  EXPECT_EQ(values(o), (V{2, 6}));
  auto x = tensor(DType::Float32, {3}, {-1, 0.5, 3});
  EXPECT_EQ(values(out("output0[N] = input0[N].call(`max`, const(0, dtype=input0.dtype()))",
                       {{"input0", x}})),
            (V{0, 0.5, 3}));
  EXPECT_EQ(values(out("output0[N] = input0[N].when([input0[N] > 0.0], "
                       "const(-2.0).cast(input0.dtype()))",
                       {{"input0", x}})),
            (V{-2, 0.5, 3}));
  o = out("output0[N] = (N * 3).cast(input0.dtype()) where N in 2", {{"input0", h}});
  EXPECT_EQ(o.dtype(), DType::Float16);
  EXPECT_EQ(values(o), (V{0, 3}));
}

TEST(Semantics, TensorValIsTheSizeOfADimension) {
  auto x = tensor(DType::Int32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto o = out("output0[N] = input0[N, 0] * input0.val(1) + input0.val(0)", {{"input0", x}});
  EXPECT_EQ(o.dtype(), DType::Int32);
  EXPECT_EQ(values(o), (V{1 * 3 + 2, 4 * 3 + 2}));
  EXPECT_EQ(error_of("output0[N] = input0[N, 0] + input0.val(2)", {{"input0", x}}),
            "test.antares:1:40: error: tensor `input0` has rank 2 (shape [2, 3]): it has no "
            "dimension 2\noutput0[N] = input0[N, 0] + input0.val(2)\n"
            "                                       ^\n");
}

// x.call(fn, others, output_dtype): the function's value converted to
// output_dtype, given third or by keyword.
TEST(Semantics, CallTakesAnOutputDtype) {
  auto x = tensor(DType::Float32, {2}, {-1.5, 2.75});
  auto o = out("output0[N] = input0[N].call(`max`, [0.5], `float64`)", {{"input0", x}});
  EXPECT_EQ(o.dtype(), DType::Float64);
  EXPECT_EQ(values(o), (V{0.5, 2.75}));
  o = out("output0[N] = input0[N].call(`max`, others=[0.0], output_dtype=`int32`)",
          {{"input0", x}});
  EXPECT_EQ(o.dtype(), DType::Int32);
  EXPECT_EQ(values(o), (V{0, 2})); // truncated, as a cast does
  o = out("output0[N] = input0[N].call(`max`, 0.0, input0.dtype())", {{"input0", x}});
  EXPECT_EQ(o.dtype(), DType::Float32);
  EXPECT_EQ(values(o), (V{0, 2.75}));
}

TEST(Semantics, FOpIsCall) {
  auto x = tensor(DType::Float32, {2}, {-1.5, 1});
  EXPECT_EQ(values(out("output0[N] = f_op(`max`, input0[N], 0.0)", {{"input0", x}})), (V{0, 1}));
  EXPECT_EQ(values(out("output0[N] = f_op(`exp`, input0[N])", {{"input0", x}})),
            (V{static_cast<double>(std::exp(-1.5f)), static_cast<double>(std::exp(1.0f))}));
}

// Integer literals are Python's: 0x, 0o and 0b prefixes; a decimal with
// leading zeros is an error, as in Python 3 (syntax_preamble_leading_zero).
TEST(Semantics, IntegerLiteralsArePythons) {
  EXPECT_EQ(values(out("output0[N] = N + 0b11 + 0o7 + 0x10 where N in 2")), (V{26, 27}));
  EXPECT_NE(error_of("output0[N] = N + 010 where N in 2").find("leading zeros"), std::string::npos);
}

// Expressions nest at most 500 levels (operators, calls, subscripts), and
// at most 1000 operators stand in a row: deeper trees would overflow the
// stack of the parser or of any pass over them (docs/LIMITS.md).
TEST(Semantics, ExpressionDepthIsBounded) {
  auto chain = [](int terms) {
    std::string e = "output0[N] = input0[N]";
    for (int i = 1; i < terms; ++i)
      e += " + input0[N]";
    return e;
  };
  // terms - 1 additions, then the subscript and its index: depth terms + 1.
  auto x = tensor(DType::Int32, {2}, {1, 2});
  EXPECT_EQ(values(out(chain(499), {{"input0", x}})), (V{499, 998}));
  std::string deep = error_of(chain(500), {{"input0", x}});
  EXPECT_NE(deep.find("error: expression nested more than 500 levels deep"), std::string::npos)
      << deep;
  auto negations = [](int n) {
    std::string e = "output0[N] = ";
    for (int i = 0; i < n; ++i)
      e += "- ";
    return e + "input0[N]";
  };
  EXPECT_EQ(values(out(negations(400), {{"input0", x}})), (V{1, 2}));
  EXPECT_NE(error_of(negations(1000), {{"input0", x}}).find("nested more than 500 levels"),
            std::string::npos);
  EXPECT_NE(error_of(negations(1001), {{"input0", x}}).find("more than 1000 operators in a row"),
            std::string::npos);
  std::string calls = "output0[N] = input0[N]";
  for (int i = 0; i < 600; ++i)
    calls += ".call(`abs`)";
  EXPECT_NE(error_of(calls, {{"input0", x}}).find("nested more than 500 levels"),
            std::string::npos);
}

// A tensor has rank at most 64 and a statement at most 256 index variables,
// so every walk over dimensions or loops is bounded (docs/LIMITS.md).
TEST(Semantics, RankAndIndexVariablesAreBounded) {
  auto statement = [](int rank, int extra) {
    std::string index = "N", where = "N in 2";
    for (int i = 1; i < rank; ++i)
      index += ", K" + std::to_string(i);
    for (int i = 0; i < extra; ++i)
      where += ", W" + std::to_string(i) + " in 1";
    return "output0[N] +=! input0[" + index + "] + 1 where " + where;
  };
  auto ones = [](int rank) {
    core::Shape shape(static_cast<size_t>(rank), 1);
    shape[0] = 2;
    return tensor(DType::Int32, shape, {5, 7});
  };
  // 64 dimensions and 64 + 192 = 256 variables: every extent but N is 1,
  // so each output is its one element plus 1.
  EXPECT_EQ(values(out(statement(64, 192), {{"input0", ones(64)}})), (V{6, 8}));
  EXPECT_NE(error_of(statement(64, 193), {{"input0", ones(64)}})
                .find("the statement has 257 index variables; teval's limit is 256"),
            std::string::npos);
  EXPECT_NE(error_of(statement(65, 0), {{"input0", ones(65)}})
                .find("input `input0` has rank 65; teval's limit is 64"),
            std::string::npos);
}

// A program has at most 10^4 statements (docs/LIMITS.md).
TEST(Semantics, StatementsAreBounded) {
  auto x = tensor(DType::Int32, {2}, {1, 2});
  std::string program = "t0[N] = input0[N] + 1";
  for (int i = 1; i <= 10000; ++i)
    program += "; t" + std::to_string(i) + "[N] = t" + std::to_string(i - 1) + "[N] + 1";
  std::string e = error_of(program, {{"input0", x}});
  EXPECT_NE(e.find("error: the program has more than 10000 statements"), std::string::npos) << e;
  // The 10001st statement is the one named.
  EXPECT_NE(e.find("t10000[N] = t9999[N] + 1"), std::string::npos) << e;
}

TEST(Semantics, ShiftsKeepTheLeftType) {
  auto x = tensor(DType::Int16, {2}, {3, -8});
  auto o = out("output0[N] = input0[N] << 2", {{"input0", x}});
  EXPECT_EQ(o.dtype(), DType::Int16);
  EXPECT_EQ(values(o), (V{12, -32}));
  EXPECT_EQ(values(out("output0[N] = input0[N] >> 1", {{"input0", x}})), (V{1, -4}));
}

TEST(Semantics, ExtentsFromWholeIndexOccurrencesIncludingFoldedOnes) {
  auto a = tensor(DType::Float32, {3}, {1, 2, 3});
  EXPECT_EQ(values(out("output0[N] = input0[N * 1] + input0[0 + N]", {{"input0", a}})),
            (V{2, 4, 6}));
}

TEST(Semantics, OutputsAreExtraOutputsAndTheLastStatement) {
  auto r = run("- einstein_v2(\"a[N] = x[N] + 1.0; b[N] = a[N] * 2.0; c[N] = b[N] - a[N]\", "
               "{\"x\": {\"dtype\": \"float32\", \"shape\": [2]}}, extra_outputs=[\"a\"])",
               {{"x", tensor(DType::Float32, {2}, {1, 2})}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(values(r.at("a")), (V{2, 3}));
  EXPECT_EQ(values(r.at("c")), (V{2, 3}));
}

TEST(Semantics, IntermediatesAreReadableAtAnyIndex) {
  auto x = tensor(DType::Float32, {2, 2}, {1, 2, 3, 4});
  auto o = out("t[A, B] = input0[A, B] * 10.0; output0[N] = t[0, N] + t[1, 1]", {{"input0", x}});
  EXPECT_EQ(values(o), (V{50, 60}));
}

TEST(Semantics, ScalarsHaveRankZero) {
  auto a = tensor(DType::Float32, {}, {1.5});
  auto o = out("output0[] = input0[] * 2.0", {{"input0", a}});
  EXPECT_EQ(o.shape(), core::Shape{});
  EXPECT_EQ(values(o), (V{3}));
  auto m = tensor(DType::Float32, {2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(values(out("output0[] +=! input0[I, J]", {{"input0", m}})), (V{10}));
}

TEST(Semantics, ScatterAssignWritesAndKeepsTheRest) {
  auto data = tensor(DType::Float32, {4}, {0, 0, 0, 0});
  auto idx = tensor(DType::Int32, {2}, {3, 1});
  auto upd = tensor(DType::Float32, {2}, {7, 8});
  auto r =
      run("data[indices[B]] =. updates[B]", {{"data", data}, {"indices", idx}, {"updates", upd}});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(values(r.at("data")), (V{0, 8, 0, 7}));
}

TEST(Semantics, ScatterAssignOfEqualValuesTwiceIsFine) {
  auto data = tensor(DType::Float32, {2}, {5, 5});
  auto idx = tensor(DType::Int32, {2}, {0, 0});
  auto upd = tensor(DType::Float32, {2}, {7, 7});
  auto r =
      run("data[indices[B]] =. updates[B]", {{"data", data}, {"indices", idx}, {"updates", upd}});
  EXPECT_EQ(values(r.at("data")), (V{7, 5}));
}

TEST(Semantics, ScatterAddAccumulatesDuplicates) {
  auto data = tensor(DType::Int32, {3}, {1, 1, 1});
  auto idx = tensor(DType::Int32, {4}, {2, 0, 2, 2});
  auto upd = tensor(DType::Int32, {4}, {10, 20, 30, 40});
  auto r =
      run("data[indices[B]] +=. updates[B]", {{"data", data}, {"indices", idx}, {"updates", upd}});
  EXPECT_EQ(values(r.at("data")), (V{21, 1, 81}));
}

TEST(Semantics, ScatterResultIsReadByLaterStatements) {
  auto data = tensor(DType::Float32, {2}, {1, 2});
  auto idx = tensor(DType::Int32, {1}, {0});
  auto upd = tensor(DType::Float32, {1}, {9});
  auto r = run("data[indices[B]] =. updates[B]; output0[N] = data[N] * 2.0",
               {{"data", data}, {"indices", idx}, {"updates", upd}});
  EXPECT_EQ(values(r.at("output0")), (V{18, 4}));
}

TEST(Semantics, ReduceAxisOrderIsWhereClauseThenAppearance) {
  core::Kernel k = test::elaborate("output0[N] +=! input0[N, A, B, C] where C in 2",
                                   {{"input0", tensor(DType::Float32, {1, 1, 1, 2}, {1, 2})}});
  ASSERT_EQ(k.statements.size(), 1u);
  std::vector<std::string> names;
  for (const core::IndexVar& v : k.statements[0].vars)
    names.push_back(v.name + (v.reduce ? "~" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"N", "C~", "A~", "B~"}));
}

TEST(Semantics, RandomInputsUsedAsIndicesAreInRange) {
  // No .npy at all: take, gather, one-hot and scatter run on seeded inputs.
  for (const char* p :
       {"- einstein_v2(\"output0[F, C] = input0[input1[F], C]\", {\"input0\": {\"dtype\": "
        "\"float32\", \"shape\": [7, 2]}, \"input1\": {\"dtype\": \"int32\", \"shape\": [50]}})",
        "- einstein_v2(\"output0[N, F] = const(1.0).when([input0[N] == F], const(0.0)) where F "
        "in 3\", {\"input0\": {\"dtype\": \"int64\", \"shape\": [40]}})",
        "- einstein_v2(\"output0[N] = input0[input1[N].cast(`int32`)]\", {\"input0\": {\"dtype\": "
        "\"float32\", \"shape\": [3]}, \"input1\": {\"dtype\": \"int8\", \"shape\": [64]}})"}) {
    SCOPED_TRACE(p);
    EXPECT_EQ(error_of(p), "no error");
  }
  auto one_hot = run("- einstein_v2(\"output0[N, F] = const(1.0).when([input0[N] == F], "
                     "const(0.0)) where F in 3\", {\"input0\": {\"dtype\": \"int32\", \"shape\": "
                     "[40]}})")
                     .at("output0");
  // Every row has exactly one 1: the random indices were all in [0, 3).
  std::vector<double> v = values(one_hot);
  for (int n = 0; n < 40; ++n)
    EXPECT_EQ(v[3 * n] + v[3 * n + 1] + v[3 * n + 2], 1.0);
}

} // namespace
} // namespace teval
