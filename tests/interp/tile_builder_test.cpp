// PlaidML's contraction builder (docs/SEMANTICS.md, "The contraction
// builder"), in C++ and Python, against values worked out by hand.
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

TEST(TileBuilder, MeansWhatTheTensorOutputFormMeans) {
  // [[1 2] [3 4]] x [[5 6] [7 8]] = [[19 22] [43 50]].
  std::map<std::string, core::Tensor> in = {{"A", f32({2, 2}, {1, 2, 3, 4})},
                                            {"B", f32({2, 2}, {5, 6, 7, 8})}};
  const char* cpp =
      "Tensor Dot(Tensor A, Tensor B) {\n"
      "  TensorDim I, J, K;\n  TensorIndex i, j, k;\n"
      "  A.bind_dims(I, K);\n  B.bind_dims(K, J);\n"
      "  return Contraction().outShape(I, J).outAccess(i, j).sum(A(i, k) * B(k, j));\n"
      "}\n";
  EXPECT_EQ(values(run_tile(cpp, in)), (V{19, 22, 43, 50}));
  const char* py = "def dot(A, B):\n  I, J, K = TensorDims(3)\n  i, j, k = TensorIndexes(3)\n"
                   "  A.bind_dims(I, K)\n  B.bind_dims(K, J)\n"
                   "  return Contraction().outShape(I, J).outAccess(i, j)"
                   ".sum(A[i, k] * B[k, j]).build()\n";
  EXPECT_EQ(values(run_tile(py, in)), (V{19, 22, 43, 50}));
  // Bound to a name and used: a row maximum subtracted, as in a softmax;
  // outShape takes a list of dimensions, outAccess one of indices.
  auto X = f32({2, 3}, {1, 5, 2, -4, -6, -5});
  const char* shifted = "Tensor f(Tensor X) {\n  TensorDim I, J;\n  TensorIndex i, j;\n"
                        "  X.bind_dims(I, J);\n  std::vector<TensorDim> S = {I, 1};\n"
                        "  Tensor M = Contraction().outShape(S).outAccess(i, 0).max(X(i, j));\n"
                        "  return X - M;\n}\n";
  EXPECT_EQ(values(run_tile(shifted, {{"X", X}})), (V{-4, 0, -3, 0, -2, -1}));
  // A name labels PlaidML's IR; the tensor is still the one it is bound to.
  const char* named = "def f(X):\n  I, J = TensorDims(2)\n  i, j = TensorIndexes(2)\n"
                      "  X.bind_dims(I, J)\n"
                      "  M = Contraction('m').outShape(I, 1).outAccess(i, 0).max(X[i, j]).build()\n"
                      "  return X - M\n";
  EXPECT_EQ(values(run_tile(named, {{"X", X}})), (V{-4, 0, -3, 0, -2, -1}));
}

TEST(TileBuilder, ConstraintsChainAfterTheAggregationOrComeBeforeIt) {
  // A 1-D max pool of windows 2: [1 3 2 5 4] -> [3 5 4].
  auto I = f32({5}, {1, 3, 2, 5, 4});
  for (const char* chain :
       {".max(I(2 * i + j)).add_constraint(j < 2)", ".max(I(2 * i + j)).add_constraints({j < 2})",
        ".add_constraint(j < 2).max(I(2 * i + j))"}) {
    std::string cpp = "Tensor f(Tensor I) {\n  TensorDim N;\n  TensorIndex i, j;\n"
                      "  I.bind_dims(N);\n  return Contraction().outShape((N + 1) / 2)"
                      ".outAccess(i)" +
                      std::string(chain) + ";\n}\n";
    EXPECT_EQ(values(run_tile(cpp, {{"I", I}})), (V{3, 5, 4})) << chain;
  }
}

TEST(TileBuilder, InitStartsTheOutputAsATensor) {
  // A sum onto P: O[n] = P[n] + sum over m of I[m, n].
  std::map<std::string, core::Tensor> in = {{"I", f32({2, 3}, {1, 2, 3, 4, 5, 6})},
                                            {"P", f32({3}, {100, 200, 300})}};
  const char* sum = "Tensor f(Tensor I, Tensor P) {\n  TensorDim M, N;\n  TensorIndex m, n;\n"
                    "  I.bind_dims(M, N);\n"
                    "  return Contraction().outShape(N).outAccess(n).sum(I(m, n)).init(P);\n}\n";
  EXPECT_EQ(values(run_tile(sum, in)), (V{105, 207, 309}));
  // Explicit padding: an assignment shifted by one into an output two
  // longer, starting as a scalar broadcast: unwritten entries keep it.
  const char* pad = "def f(I, P):\n  N = TensorDim()\n  i = TensorIndex()\n  I.bind_dims(N)\n"
                    "  return Contraction().outShape(N + 2).outAccess(i)"
                    ".assign(I[i - 1]).init(P).build()\n";
  EXPECT_EQ(values(run_tile(pad, {{"I", f32({3}, {1, 2, 3})}, {"P", f32({}, {-7})}})),
            (V{-7, 1, 2, 3, -7}));
  // An integer init converts to the contraction's dtype.
  EXPECT_EQ(
      values(run_tile(pad, {{"I", f32({2}, {0.5, 1.5})}, {"P", tensor(DType::Int32, {1}, {9})}})),
      (V{9, 0.5, 1.5, 9}));
}

TEST(TileBuilder, MisusesAreDiagnosed) {
  std::map<std::string, core::Tensor> in = {{"I", f32({2, 3}, {1, 2, 3, 4, 5, 6})},
                                            {"P", f32({2}, {1, 2})}};
  auto error = [&](const std::string& chain) {
    return tile_error_of("Tensor f(Tensor I, Tensor P) {\n  TensorDim M, N;\n"
                         "  TensorIndex m, n;\n  I.bind_dims(M, N);\n  auto O = Contraction()" +
                             chain + ";\n  return O;\n}\n",
                         in);
  };
  auto has = [](const std::string& error, const std::string& part) {
    return error.find(part) != std::string::npos;
  };
  EXPECT_TRUE(has(error(".outAccess(n).sum(I(m, n))"),
                  "5:39: error: the contraction has no outShape(...) before its aggregation"))
      << error(".outAccess(n).sum(I(m, n))");
  EXPECT_TRUE(has(error(".outShape(N).outAccess(m, n).sum(I(m, n))"),
                  "error: outAccess names 2 indices but outShape 1 dimensions [3]"));
  EXPECT_TRUE(has(error(".outShape(N).outAccess(n).sum(I(m, n)).init(P)"),
                  "error: the init has shape [2], which does not broadcast to the output's [3]"));
  EXPECT_TRUE(has(error(".outShape(N).outAccess(n).sum(I(m, n)).outShape(N)"),
                  "error: `.outShape(...)` belongs to a Contraction() before its aggregation"));
  EXPECT_TRUE(
      has(error(".outShape(N).outShape(N)"), "error: the contraction already has an outShape"));
  EXPECT_TRUE(has(error(".outShape(N).outAccess(n).sum(I(m, n)).init(P).init(P)"),
                  "error: the contraction already has an init"));
  EXPECT_TRUE(has(error(".outShape(N).outAccess(n).sum(I(m, n)).add_constraint(n)"),
                  "error: a constraint is `index_expression < bound`, not an index expression"));
}

} // namespace
} // namespace teval
