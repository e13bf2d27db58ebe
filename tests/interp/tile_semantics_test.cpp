// The Tile rules of docs/SEMANTICS.md, one test per rule, each checked
// against values worked out by hand.
#include "core/error.h"
#include "parser/tile/tile.h"
#include "parser/tile/tile_source.h"
#include "tests/support/programs.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

using core::DType;
using test::run_tile;
using test::tensor;
using test::tile_error_of;
using test::values;
using V = std::vector<double>;

core::Tensor f32(const core::Shape& shape, std::initializer_list<double> v) {
  return tensor(DType::Float32, shape, v);
}

TEST(TileSemantics, FractionalIndicesAreNotValid) {
  // O(i) += I((i - 1) / 2) touches only odd i: O[1] = I[0], O[3] = I[1], O[5] = I[2].
  auto I = f32({3}, {10, 20, 30});
  const char* cpp = "Tensor f(const Tensor& I) { TensorDim N; TensorIndex i; I.bind_dims(N);"
                    " auto O = TensorOutput(2 * N); O(i) += I((i - 1) / 2); return O; }";
  EXPECT_EQ(values(run_tile(cpp, {{"I", I}})), (V{0, 10, 0, 20, 0, 30}));
  const char* py = "def f(I):\n  N = TensorDim()\n  i = TensorIndex()\n  I.bind_dims(N)\n"
                   "  O = TensorOutput(2 * N)\n  O[i] += I[(i - 1) // 2]\n  return O\n";
  EXPECT_EQ(values(run_tile(py, {{"I", I}})), (V{0, 10, 0, 20, 0, 30}));
}

TEST(TileSemantics, RationalIndexValueNotItsParts) {
  // i/2 + i/2 is i: an integer for every i, so every entry is written.
  auto I = f32({3}, {1, 2, 3});
  EXPECT_EQ(values(run_tile("def f(I):\n  N = TensorDim()\n  i = TensorIndex()\n"
                            "  I.bind_dims(N)\n  O = TensorOutput(N)\n"
                            "  O[i] += I[i / 2 + i / 2]\n  return O\n",
                            {{"I", I}})),
            (V{1, 2, 3}));
}

TEST(TileSemantics, OutputLargerPadsSmallerTruncates) {
  auto I = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto program = [](const char* size) {
    return std::string("def f(I):\n  M, N = TensorDims(2)\n  m, n = TensorIndexes(2)\n"
                       "  I.bind_dims(M, N)\n  O = TensorOutput(") +
           size + ")\n  O[n] += I[m, n]\n  return O\n";
  };
  EXPECT_EQ(values(run_tile(program("N + 1"), {{"I", I}})), (V{5, 7, 9, 0}));
  EXPECT_EQ(values(run_tile(program("N - 1"), {{"I", I}})), (V{5, 7}));
}

// Tile expressions have the same depth limit as Antares ones.
TEST(TileSemantics, ExpressionDepthIsBounded) {
  auto I = f32({2}, {1, 2});
  auto sum = [](int terms) {
    std::string e = "I";
    for (int i = 1; i < terms; ++i)
      e += " + I";
    return "Tensor f(const Tensor& I) { auto O = " + e + "; return O; }";
  };
  EXPECT_EQ(values(run_tile(sum(499), {{"I", I}})), (V{499, 998}));
  EXPECT_NE(tile_error_of(sum(501), {{"I", I}}).find("nested more than 500 levels deep"),
            std::string::npos);
}

// Counted loops are unrolled as the function is elaborated: 10^6
// iterations in all (nested ones count each), and a kernel has at most
// 10^4 statements (docs/LIMITS.md).
TEST(TileSemantics, LoopsAndStatementsAreBounded) {
  auto I = f32({2}, {1, 2});
  auto loops = [](const std::string& outer, const std::string& inner, const std::string& body) {
    return "Tensor f(const Tensor& I) {\n  auto O = I;\n  for (int a = 0; a < " + outer +
           "; ++a) {\n    for (int b = 0; b < " + inner + "; ++b) {\n      " + body +
           "\n    }\n  }\n  return O;\n}\n";
  };
  // 1000 outer and 1000 x 999 inner iterations: exactly the limit.
  EXPECT_EQ(values(run_tile(loops("1000", "999", ""), {{"I", I}})), (V{1, 2}));
  std::string past = tile_error_of(loops("1000", "1000", ""), {{"I", I}});
  EXPECT_NE(past.find("test.antares:4:5: error: the function's loops run more than 1000000 "
                      "iterations in all; teval unrolls at most that many"),
            std::string::npos)
      << past;
  EXPECT_NE(tile_error_of(loops("1", "1000000000000000000", ""), {{"I", I}}).find("1000000"),
            std::string::npos);
  // Each iteration adds one statement (the copy O = I makes none): 10^4
  // elaborate (checked without running them on every backend, which
  // would compile them all), 10001 do not.
  auto source = core::SourceFile::make("loops.cpp", loops("1", "10000", "O = O + 1;"));
  core::Kernel k = parser::elaborate_tile(parser::read_tile(*source), "",
                                          {{"I", {DType::Float32, {2}, {}}}}, {});
  EXPECT_EQ(k.statements.size(), 10000u);
  std::string many = tile_error_of(loops("1", "10001", "O = O + 1;"), {{"I", I}});
  EXPECT_NE(many.find("error: the program has more than 10000 statements"), std::string::npos)
      << many;
}

// TensorDims(n), TensorIndexes(n) and std::vector<TensorDim> X(n) make at
// most 4096 (docs/LIMITS.md).
TEST(TileSemantics, ListsOfDimensionsAndIndicesAreBounded) {
  auto I = f32({2}, {1, 2});
  EXPECT_EQ(values(run_tile("def f(I):\n  i = TensorIndexes(4096)\n  return I\n", {{"I", I}})),
            (V{1, 2}));
  EXPECT_EQ(tile_error_of("def f(I):\n  i = TensorIndexes(9223372036854775807)\n  return I\n",
                          {{"I", I}}),
            "test.antares:2:21: error: TensorIndexes of 9223372036854775807; teval makes at most "
            "4096\n  i = TensorIndexes(9223372036854775807)\n                    "
            "^~~~~~~~~~~~~~~~~~~\n");
  auto vector = [](const std::string& n) {
    return "Tensor f(const Tensor& I) {\n  std::vector<TensorDim> X(" + n + ");\n  return I;\n}\n";
  };
  EXPECT_EQ(values(run_tile(vector("4096"), {{"I", I}})), (V{1, 2}));
  EXPECT_NE(tile_error_of(vector("1000000000"), {{"I", I}})
                .find("error: a std::vector<TensorDim> of 1000000000 elements; teval makes from 0 "
                      "to 4096"),
            std::string::npos);
  EXPECT_NE(tile_error_of(vector("-1"), {{"I", I}}).find("of -1 elements"), std::string::npos);
}

// A syntax error names what was expected, or the unexpected token: never
// the parser's C++ type (an unnamed composite parser has no other name).
TEST(TileSemantics, SyntaxErrorsNeverNameParserTypes) {
  auto I = f32({2}, {1, 2});
  const char* const sources[] = {
      "Tensor f(const Tensor& I) { for (int i = 0; i < ; ++i) {} return I; }",
      "Tensor f(const Tensor& I) { return I }",
      "Tensor f(const Tensor& I) { auto O = \"x\"; return O; }",
      "Tensor f(const Tensor& I) { for (;;) {} return I; }",
      "Tensor f(const Tensor& I) { auto O = 1e; return O; }",
      "Tensor f(const Tensor& I) { auto O = 0x; return O; }",
      "Tensor f(const Tensor& I { return I; }",
      "def f(I):\n  for i in range(:\n    pass\n  return I\n",
  };
  for (const char* source : sources) {
    std::string e = tile_error_of(source, {{"I", I}});
    EXPECT_NE(e.find("error: "), std::string::npos) << source;
    EXPECT_EQ(e.find("boost"), std::string::npos) << e;
  }
  EXPECT_EQ(tile_error_of(sources[1], {{"I", I}}),
            "test.antares:1:37: error: expected ';'\nTensor f(const Tensor& I) { return I }\n"
            "                                    ^\n");
  EXPECT_EQ(tile_error_of(sources[2], {{"I", I}}).substr(0, 41),
            "test.antares:1:38: error: unexpected `\"`\n");
}

// In C++ spelling integer literals are C's: 010 is octal 8.
TEST(TileSemantics, CppIntegerLiteralsAreCs) {
  auto I = f32({2}, {1, 2});
  EXPECT_EQ(values(run_tile("Tensor f(const Tensor& I) { auto O = I * 010 + 0x10; return O; }",
                            {{"I", I}})),
            (V{24, 32}));
}

TEST(TileSemantics, ProductAndMinAggregations) {
  auto I = f32({2, 3}, {1, 2, 3, 4, -5, 6});
  const char* base = "def f(I):\n  M, N = TensorDims(2)\n  m, n = TensorIndexes(2)\n"
                     "  I.bind_dims(M, N)\n  O = TensorOutput(N)\n";
  EXPECT_EQ(values(run_tile(std::string(base) + "  O[n] *= I[m, n]\n  return O\n", {{"I", I}})),
            (V{4, -10, 18}));
  EXPECT_EQ(values(run_tile(std::string(base) + "  O[n] <= I[m, n]\n  return O\n", {{"I", I}})),
            (V{1, -5, 3}));
}

TEST(TileSemantics, UnwrittenEntriesAreZeroForEveryAggregation) {
  // Only O[0] is written; O[1] stays 0 for max and min too (not -inf/+inf).
  auto I = f32({2}, {-3, -4});
  for (const char* op : {"+=", "*=", ">=", "<="}) {
    SCOPED_TRACE(op);
    std::string p = std::string("Tensor f(const Tensor& I) { TensorIndex i; auto O = "
                                "TensorOutput(2); O(0) ") +
                    op + " I(i); return O; }";
    std::vector<double> v = values(run_tile(p, {{"I", I}}));
    EXPECT_EQ(v[1], 0);
  }
}

TEST(TileSemantics, EmptyValidSetGivesZeros) {
  auto I = f32({3}, {1, 2, 3});
  // i + 5 < 3 has no solution with 0 <= i.
  EXPECT_EQ(values(run_tile("Tensor f(const Tensor& I) { TensorIndex i; auto O = "
                            "TensorOutput(3); O(i) += I(i + 5); return O; }",
                            {{"I", I}})),
            (V{0, 0, 0}));
}

TEST(TileSemantics, IndexVariablesMayBeNegative) {
  // O(i) += I(i + j) with j free: for O[0], j runs over 0..2 (and negative j
  // for other i): every output entry sums the valid window.
  auto I = f32({3}, {1, 2, 4});
  EXPECT_EQ(values(run_tile("Tensor f(const Tensor& I) { TensorIndex i, j; auto O = "
                            "TensorOutput(2); O(i) += I(j - i); return O; }",
                            {{"I", I}})),
            (V{7, 7}));
}

TEST(TileSemantics, NegatedIndicesReverse) {
  // O[i] = I[-i + 3] reverses I; O[i] = I[-(i - 3)] and I[3 - i] are the
  // same; with -i alone only i = 0 reads inside I.
  auto I = f32({4}, {1, 2, 4, 8});
  for (const char* index : {"-i + 3", "-(i - 3)", "3 - i", "+(-i) + 3"})
    EXPECT_EQ(values(run_tile(std::string("def f(I):\n  i = TensorIndex()\n  O = TensorOutput(4)\n"
                                          "  O[i] += I[") +
                                  index + "]\n  return O\n",
                              {{"I", I}})),
              (V{8, 4, 2, 1}))
        << index;
  EXPECT_EQ(values(run_tile("Tensor f(const Tensor& I) { TensorIndex i; auto O = TensorOutput(4); "
                            "O(i) += I(-i); return O; }",
                            {{"I", I}})),
            (V{1, 0, 0, 0}));
}

TEST(TileSemantics, AssignWritesOnceAndReportsDoubleWrites) {
  auto I = f32({3}, {1, 2, 3});
  EXPECT_EQ(values(run_tile("Tensor f(const Tensor& I) { TensorIndex i; auto O = "
                            "TensorOutput(3); O(2 - i) = I(i); return O; }",
                            {{"I", I}})),
            (V{3, 2, 1}));
  EXPECT_EQ(tile_error_of("Tensor f(const Tensor& I) { TensorIndex i, j; auto O = "
                          "TensorOutput(2); O(i) = I(i + j); return O; }",
                          {{"I", I}}),
            "test.antares:1:73: error: two writes to O[0]: first at i=0, j=0, again at i=0, "
            "j=1\n"
            "Tensor f(const Tensor& I) { TensorIndex i, j; auto O = TensorOutput(2); O(i) = "
            "I(i + j); return O; }\n"
            "                                                                        "
            "^~~~~~~~~~~~~~~~\n");
}

TEST(TileSemantics, CombinationsAndCond) {
  auto A = f32({3}, {1, 2, 3});
  auto B = f32({3}, {1, 5, 3});
  auto C = f32({3}, {7, 8, 9});
  auto run = [&](const char* rhs) {
    return values(run_tile(std::string("Tensor f(const Tensor& A, const Tensor& B, const Tensor& "
                                       "C) { TensorIndex i; auto O = TensorOutput(3); O(i) += ") +
                               rhs + "; return O; }",
                           {{"A", A}, {"B", B}, {"C", C}}));
  };
  EXPECT_EQ(run("A(i) + B(i)"), (V{2, 7, 6}));
  EXPECT_EQ(run("A(i) * B(i)"), (V{1, 10, 9}));
  EXPECT_EQ(run("cond(A(i), B(i), C(i))"), (V{7, 0, 9}));
  auto eq = run_tile("Tensor f(const Tensor& A, const Tensor& B) { TensorIndex i; auto O = "
                     "TensorOutput(3); O(i) >= A(i) == B(i); return O; }",
                     {{"A", A}, {"B", B}});
  EXPECT_EQ(eq.dtype(), DType::Bool);
  EXPECT_EQ(values(eq), (V{1, 0, 1}));
}

TEST(TileSemantics, ElementwiseBroadcastsLikeNumpy) {
  auto A = f32({2, 1}, {1, 2});
  auto B = f32({3}, {10, 20, 30});
  auto o = run_tile("def f(A, B):\n  return A + B\n", {{"A", A}, {"B", B}});
  EXPECT_EQ(o.shape(), (core::Shape{2, 3}));
  EXPECT_EQ(values(o), (V{11, 21, 31, 12, 22, 32}));
  EXPECT_EQ(tile_error_of("def f(A, B):\n  return A + B\n", {{"A", f32({2}, {1, 2})}, {"B", B}}),
            "test.antares:2:10: error: cannot broadcast shapes [2] and [3]\n"
            "  return A + B\n"
            "         ^~~~~\n");
}

TEST(TileSemantics, ElementwiseFunctionsComparisonsAndSelect) {
  auto A = f32({3}, {-1, 4, 9});
  EXPECT_EQ(values(run_tile("def f(A):\n  return select(A > 0, sqrt(A), -A)\n", {{"A", A}})),
            (V{1, 2, 3}));
  auto cmp = run_tile("def f(A):\n  return A >= 4\n", {{"A", A}});
  EXPECT_EQ(cmp.dtype(), DType::Bool);
  EXPECT_EQ(values(cmp), (V{0, 1, 1}));
}

TEST(TileSemantics, FloorAndCeilKeepTheirFloatDtype) {
  // PlaidML's floor and ceil are float to float (Antares' give int32).
  auto A = tensor(DType::Float16, {4}, {-1.5, -0.25, 2, 2.5});
  auto f = run_tile("def f(A):\n  return floor(A)\n", {{"A", A}});
  EXPECT_EQ(f.dtype(), DType::Float16);
  EXPECT_EQ(values(f), (V{-2, -1, 2, 2}));
  auto c = run_tile("def f(A):\n  return ceil(A)\n", {{"A", f32({3}, {-1.5, 0.25, 3e9})}});
  EXPECT_EQ(c.dtype(), DType::Float32);
  EXPECT_EQ(values(c), (V{-1, 1, 3e9})); // no int32 range to leave
  EXPECT_EQ(
      tile_error_of("def f(I):\n  return floor(I)\n", {{"I", tensor(DType::Int32, {1}, {1})}}),
      "test.antares:2:10: error: `floor` needs floating-point operands, not int32\n"
      "  return floor(I)\n"
      "         ^~~~~~~~\n");
}

TEST(TileSemantics, SelectOfTwoIntegerLiteralsIsInt32) {
  // PlaidML's untyped integers are int32: so is a select between two.
  auto A = f32({3}, {-1, 0, 2});
  auto s = run_tile("def f(A):\n  return select(A > 0, 1, 0)\n", {{"A", A}});
  EXPECT_EQ(s.dtype(), DType::Int32);
  EXPECT_EQ(values(s), (V{0, 0, 1}));
  // It is a tensor, no longer a weak scalar: with an int8 tensor, int32.
  auto m = run_tile("def f(A, B):\n  return select(A > 0, 7, -7) * B\n",
                    {{"A", A}, {"B", tensor(DType::Int8, {3}, {1, 2, 3})}});
  EXPECT_EQ(m.dtype(), DType::Int32);
  EXPECT_EQ(values(m), (V{-7, -14, 21}));
  // A literal and a tensor take the tensor's dtype, as before.
  auto t = run_tile("def f(A):\n  return select(A > 0, A, 0)\n", {{"A", A}});
  EXPECT_EQ(t.dtype(), DType::Float32);
}

TEST(TileSemantics, DimensionsAndLiteralsAreWeakScalars) {
  auto I = tensor(DType::Int32, {2, 3}, {1, 2, 3, 4, 5, 6});
  // An int tensor divided by a dimension stays int32 (truncating).
  auto o = run_tile("def f(I):\n  X, Y = TensorDims(2)\n  I.bind_dims(X, Y)\n  return I / X\n",
                    {{"I", I}});
  EXPECT_EQ(o.dtype(), DType::Int32);
  EXPECT_EQ(values(o), (V{0, 1, 1, 2, 2, 3}));
  // A float literal with an int tensor gives float32.
  auto h = run_tile("def f(I):\n  return I * 0.5\n", {{"I", I}});
  EXPECT_EQ(h.dtype(), DType::Float32);
  EXPECT_EQ(values(h), (V{0.5, 1, 1.5, 2, 2.5, 3}));
  // A float16 tensor stays float16 with a float literal.
  auto f = run_tile("def f(I):\n  return I + 1.5\n", {{"I", tensor(DType::Float16, {1}, {1})}});
  EXPECT_EQ(f.dtype(), DType::Float16);
}

TEST(TileSemantics, DimensionDivisionTruncates) {
  auto I = f32({7}, {1, 2, 3, 4, 5, 6, 7});
  // (7 - 10) // 2 truncates to -1: a negative dimension.
  EXPECT_EQ(tile_error_of("def f(I):\n  N = TensorDim()\n  i = TensorIndex()\n  I.bind_dims(N)\n"
                          "  O = TensorOutput((N - 10) // 2)\n  O[i] += I[i]\n  return O\n",
                          {{"I", I}}),
            "test.antares:5:20: error: negative dimension -1\n"
            "  O = TensorOutput((N - 10) // 2)\n"
            "                   ^~~~~~~~~~~~~\n");
  EXPECT_EQ(run_tile("def f(I):\n  N = TensorDim()\n  i = TensorIndex()\n  I.bind_dims(N)\n"
                     "  O = TensorOutput((N - 8) // 2)\n  O[i] += I[i]\n  return O\n",
                     {{"I", I}})
                .shape(),
            (core::Shape{0})); // (7 - 8) // 2 truncates to 0, not -1
}

TEST(TileSemantics, ParametersAndLoops) {
  auto I = f32({4}, {1, 2, 3, 4});
  const char* cpp = "Tensor f(const Tensor& I, const std::vector<size_t>& s) {\n"
                    "  TensorDim N; TensorIndex i; I.bind_dims(N);\n"
                    "  std::vector<TensorDim> Y(2);\n"
                    "  for (size_t k = 0; k < Y.size(); ++k) { Y[k] = N / s[k]; }\n"
                    "  auto O = TensorOutput(Y[1]);\n"
                    "  O(i) += I(s[1] * i);\n"
                    "  return O;\n}\n";
  EXPECT_EQ(values(run_tile(cpp, {{"I", I}}, "", {{"s", {1, 2}}})), (V{1, 3}));
  const char* py = "def f(I, s):\n  N = TensorDim()\n  i = TensorIndex()\n  I.bind_dims(N)\n"
                   "  O = TensorOutput(N // s)\n  O[i] += I[s * i]\n  return O\n";
  EXPECT_EQ(values(run_tile(py, {{"I", I}}, "", {{"s", {2}}})), (V{1, 3}));
}

TEST(TileSemantics, ConstraintsMayComeBeforeTheContraction) {
  auto I = f32({4}, {1, 2, 3, 4});
  EXPECT_EQ(values(run_tile("def f(I):\n  i, j = TensorIndexes(2)\n  O = TensorOutput(2)\n"
                            "  O.add_constraint(j < 2)\n  O[i] >= I[2 * i + j]\n  return O\n",
                            {{"I", I}})),
            (V{2, 4}));
}

// Index variables bounded only through compound accesses: j appears in no
// access whole, its range comes from validity alone and starts below zero.
// Compiled code once looped forever here (docs/SEMANTICS.md, "Compiled
// code"); every backend runs these (test::run_tile) under a time budget.
TEST(TileSemantics, IndexBoundedOnlyThroughCompoundAccesses) {
  const std::vector<double> in{1, 5, 2, 7, 3, 4};
  auto I = f32({6}, {1, 5, 2, 7, 3, 4});
  auto program = [](const std::string& statement) {
    return "Tensor f(const Tensor& I) { TensorDim N; TensorIndex i, j; I.bind_dims(N);"
           " auto O = TensorOutput(N / 2); " +
           statement + " return O; }";
  };
  // The expected values by brute force over a wide range of j.
  auto expected = [&](auto index, auto combine, double start) {
    std::vector<double> out(3, 0.0);
    for (int i = 0; i < 3; ++i) {
      bool first = true;
      for (int j = -100; j <= 100; ++j) {
        auto [ok, value] = index(i, j);
        if (!ok)
          continue;
        out[i] = combine(first ? start : out[i], value, first);
        first = false;
      }
    }
    return out;
  };
  auto read = [&](int k) { return std::pair{k >= 0 && k < 6, k >= 0 && k < 6 ? in[k] : 0.0}; };
  auto sum = [](double a, double v, bool) { return a + v; };
  auto max = [](double a, double v, bool first) { return first ? v : std::max(a, v); };
  EXPECT_EQ(values(run_tile(program("O(i) += I(i + j);"), {{"I", I}})),
            expected([&](int i, int j) { return read(i + j); }, sum, 0));
  EXPECT_EQ(values(run_tile(program("O(i) += I(2 * i + j);"), {{"I", I}})),
            expected([&](int i, int j) { return read(2 * i + j); }, sum, 0));
  EXPECT_EQ(values(run_tile(program("O(i) >= I(2 * i + j);"), {{"I", I}})),
            expected([&](int i, int j) { return read(2 * i + j); }, max, 0));
  // Two compound accesses bound j from both sides: i - 5 <= j <= i and
  // -i <= j <= 5 - i.
  EXPECT_EQ(values(run_tile(program("O(i) += I(i + j) + I(i - j);"), {{"I", I}})),
            expected(
                [&](int i, int j) {
                  auto [a_ok, a] = read(i + j);
                  auto [b_ok, b] = read(i - j);
                  return std::pair{a_ok && b_ok, a + b};
                },
                sum, 0));
  // A negative coefficient: j runs from -5 to 0 downwards in the access.
  EXPECT_EQ(values(run_tile(program("O(i) += I(i - 2 * j);"), {{"I", I}})),
            expected([&](int i, int j) { return read(i - 2 * j); }, sum, 0));
  // Under `=` two valid points write O[0]: an error naming both.
  std::string assign = program("O(i) = I(2 * i + j);");
  size_t column = assign.find("O(i) =") + 1;
  EXPECT_EQ(tile_error_of(assign, {{"I", I}}),
            "test.antares:1:" + std::to_string(column) +
                ": error: two writes to O[0]: first at i=0, j=0, again at i=0, j=1\n" + assign +
                "\n" + std::string(column - 1, ' ') + "^~~~~~~~~~~~~~~~~~~~\n");
}

} // namespace
} // namespace teval
