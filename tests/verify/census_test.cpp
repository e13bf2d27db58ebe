// The census of the generators' reach (verify/census.h): what 2000 cases of
// `--lang all` draw, and the constructs read off hand-written kernels.
#include "verify/census.h"

#include "parser/mlir/mlir.h"

#include "tests/support/programs.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace teval {
namespace {

bool has(const std::vector<std::string>& constructs, const std::string& c) {
  return std::find(constructs.begin(), constructs.end(), c) != constructs.end();
}

TEST(Census, ReadsTheConstructsOfAKernel) {
  // A global maximum kept in a temp of rank 0 and broadcast: a softmax's.
  core::Kernel k = test::elaborate(
      "- einstein_v2(\"m[] >=! input0[N]; output0[N] = (input0[N] - m[]).call(`exp`) + "
      "input0[2 - N].when([2 - N >= 0], const(0.0).cast(`float16`))\", "
      "input_dict={\"input0\": {\"dtype\": \"float16\", \"shape\": [3]}})");
  std::vector<std::string> c = verify::constructs_of(k);
  for (const char* want : {"dtype: a tensor of float16", "rank: a tensor of rank 0",
                           "aggregation: max", "flow: a temp of rank 0 read by a later statement",
                           "flow: a scalar broadcast (a rank-0 tensor read at every point)",
                           "flow: a global reduction read by a later statement",
                           "index: a negative coefficient", "operator: exp on float16",
                           "guard: a read evaluated only where a condition holds (.when, select)"})
    EXPECT_TRUE(has(c, want)) << want;
  EXPECT_FALSE(has(c, "aggregation: +"));
  EXPECT_FALSE(has(c, "flow: an output read by a later statement"));
  for (const std::string& name : c)
    EXPECT_TRUE(has(verify::census_constructs(), name)) << name << " is not listed";
}

TEST(Census, EveryConstructIsDrawnIn2000Cases) {
  // A construct the census lists and 2000 cases never draw is a part of the
  // semantics no campaign tests: each operator on each dtype it takes too.
  verify::Census census = verify::take_census({.lang = "all", .seed = 0}, 2000);
  EXPECT_EQ(census.unreadable, 0u);
  for (const std::string& name : verify::census_constructs())
    EXPECT_GT(census.counts.at(name), 0u) << name << " is never drawn";
}

TEST(Census, EveryByteirOpAndAttributeValueIsDrawnIn2000Cases) {
  verify::Census census = verify::take_census({.lang = "mlir", .seed = 0}, 2000);
  EXPECT_EQ(census.unreadable, 0u);
  for (const std::string& name : verify::mlir_census_constructs())
    EXPECT_GT(census.counts.at(name), 0u) << name << " is never drawn";
  for (const auto& [name, count] : census.counts)
    EXPECT_TRUE(std::find(verify::mlir_census_constructs().begin(),
                          verify::mlir_census_constructs().end(),
                          name) != verify::mlir_census_constructs().end())
        << name << " is drawn but not listed";
}

TEST(Census, ReadsTheConstructsOfAnOpGraph) {
  // A scalar broadcast, then the tanh GELU and arg_max with its values,
  // dimensions kept.
  auto file = core::SourceFile::make(
      "g.mlir",
      "func.func @main(%arg0: tensor<f32>) -> (tensor<3x1xf32>, tensor<3x1xi64>) {\n"
      "  %0 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f32>) -> tensor<3x4xf32>\n"
      "  %1 = stablehlo.custom_call @byteir.gelu(%0) {byteir_attrs = {approximate = \"tanh\"}} "
      ": (tensor<3x4xf32>) -> tensor<3x4xf32>\n"
      "  %2:2 = stablehlo.custom_call @byteir.arg_max(%1) {byteir_attrs = {axis = 1 : i64, "
      "keep_dims = true, select_last_index = false}} : (tensor<3x4xf32>) -> (tensor<3x1xf32>, "
      "tensor<3x1xi64>)\n"
      "  return %2#0, %2#1 : tensor<3x1xf32>, tensor<3x1xi64>\n}\n");
  core::Graph g = parser::elaborate_mlir(parser::read_mlir(*file), "", {});
  std::vector<std::string> c = verify::constructs_of(g);
  for (const char* want :
       {"op: broadcast_in_dim", "op: byteir.gelu", "op: byteir.arg_max",
        "attribute: byteir.gelu approximate = tanh", "attribute: byteir.arg_max keep_dims = true",
        "attribute: byteir.arg_max select_last_index = false",
        "attribute: byteir.arg_max with its values", "value: a scalar (rank 0)",
        "value: of float32", "value: of int64"})
    EXPECT_TRUE(has(c, want)) << want;
  EXPECT_FALSE(has(c, "op: byteir.softmax"));
  EXPECT_FALSE(has(c, "value: with no element"));
}

} // namespace
} // namespace teval
