// The MLIR grammar: the generic form as mlir-opt prints it, the pretty forms
// of the ops teval reads, attributes and types, and what is skipped.
#include "core/error.h"
#include "parser/mlir/mlir_grammar.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

std::string parse(const std::string& text) {
  auto file = core::SourceFile::make("m.mlir", text);
  return ast::dump(parser::parse_mlir(file->text(), parser::TextOrigin(file.get(), 0u)));
}

std::string error(const std::string& text) {
  try {
    parse(text);
  } catch (const core::Error& e) {
    return e.render();
  }
  return "no error";
}

TEST(MlirGrammar, PrettyFunctionWithCustomCalls) {
  EXPECT_EQ(
      parse("module {\n"
            "  func.func @main(%arg0: tensor<4x64xf32>) -> tensor<4x64xf32> {\n"
            "    %0 = \"mhlo.custom_call\"(%arg0) {api_version = 1 : i32, backend_config = \"\", "
            "byteir_attrs = {axis = 1 : i64}, call_target_name = \"byteir.softmax\", "
            "called_computations = [], has_side_effect = false} : (tensor<4x64xf32>) -> "
            "tensor<4x64xf32>\n"
            "    return %0 : tensor<4x64xf32>\n"
            "  }\n"
            "}\n"),
      "(def main (%arg0:(tensor 4 64 f32)) -> (tuple (tensor 4 64 f32)) "
      "(= %0 (: (mhlo.custom_call %arg0 :api_version (: 1 i32) :backend_config \"\" "
      ":byteir_attrs (dict (axis (: 1 i64))) :call_target_name \"byteir.softmax\" "
      ":called_computations (list) :has_side_effect false) (-> (tuple (tensor 4 64 f32)) "
      "(tuple (tensor 4 64 f32))))) "
      "(return (: (tuple %0) (tuple (tensor 4 64 f32)))))\n");
}

TEST(MlirGrammar, PrettyCustomCallNamesItsTarget) {
  EXPECT_EQ(parse("func.func @f(%a: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {\n"
                  "  %0:2 = stablehlo.custom_call @byteir.top_k(%a) {byteir_attrs = {axis = [1], "
                  "k = 3 : i64, sorted = true}} : (tensor<2x5xf32>) -> (tensor<2x3xf32>, "
                  "tensor<2x3xi64>)\n"
                  "  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi64>\n"
                  "}"),
            "(def f (%a:(tensor 2 5 f32)) -> (tuple (tensor 2 3 f32) (tensor 2 3 i64)) "
            "(= (tuple %0#0 %0#1) (: (stablehlo.custom_call %a :call_target_name \"byteir.top_k\" "
            ":byteir_attrs (dict (axis (list 1)) (k (: 3 i64)) (sorted true))) (-> (tuple (tensor "
            "2 5 f32)) (tuple (tensor 2 3 f32) (tensor 2 3 i64))))) "
            "(return (: (tuple %0#0 %0#1) (tuple (tensor 2 3 f32) (tensor 2 3 i64)))))\n");
}

TEST(MlirGrammar, GenericFormAsMlirOptPrintsIt) {
  // mlir-opt-19 --allow-unregistered-dialect --mlir-print-op-generic
  // --mlir-print-debuginfo: properties in <{...}>, regions, block labels,
  // locations after operations and block arguments, location aliases.
  EXPECT_EQ(parse("#loc = loc(\"m.mlir\":2:20)\n"
                  "#loc1 = loc(\"m.mlir\":3:10)\n"
                  "\"builtin.module\"() ({\n"
                  "  \"func.func\"() <{function_type = (tensor<?x64xf32>) -> tensor<?x64xf32>, "
                  "sym_name = \"main\"}> ({\n"
                  "  ^bb0(%arg0: tensor<?x64xf32> loc(\"m.mlir\":2:20)):\n"
                  "    %0 = \"mhlo.custom_call\"(%arg0) {call_target_name = \"byteir.erf\", "
                  "has_side_effect = false} : (tensor<?x64xf32>) -> tensor<?x64xf32> loc(#loc1)\n"
                  "    \"func.return\"(%0) : (tensor<?x64xf32>) -> () loc(#loc)\n"
                  "  }) : () -> () loc(#loc)\n"
                  "}) : () -> () loc(#loc)\n"),
            "(def main (%arg0:(tensor ? 64 f32)) -> (tuple (tensor ? 64 f32)) "
            "(= %0 (: (mhlo.custom_call %arg0 :call_target_name \"byteir.erf\" :has_side_effect "
            "false) (-> (tuple (tensor ? 64 f32)) (tuple (tensor ? 64 f32))))) "
            "(return (: (tuple %0) (tuple (tensor ? 64 f32)))))\n");
}

TEST(MlirGrammar, PlainOpsInPrettyForm) {
  EXPECT_EQ(
      parse("func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<2x4xf16> {\n"
            "  %c = stablehlo.constant dense<[1.0, -2.5e-1, 3.0, 0x7FC00000]> : tensor<4xf32>\n"
            "  %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32> // a comment\n"
            "  %1 = mhlo.multiply %0, %c : tensor<4xf32>\n"
            "  %2 = stablehlo.convert %1 : (tensor<4xf32>) -> tensor<4xf16>\n"
            "  %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<4xf16>) -> "
            "tensor<2x4xf16>\n"
            "  %4 = stablehlo.compare  GT, %0, %c,  FLOAT : (tensor<4xf32>, tensor<4xf32>) "
            "-> tensor<4xi1>\n"
            "  func.return %3 : tensor<2x4xf16>\n"
            "}\n"),
      "(def main (%arg0:(tensor 4 f32) %arg1:(tensor 4 f32)) -> (tuple (tensor 2 4 f16)) "
      "(= %c (: (stablehlo.constant (dense (list 1.0 (- 2.5e-1) 3.0 0x7FC00000))) (tensor 4 "
      "f32))) "
      "(= %0 (: (stablehlo.add %arg0 %arg1) (tensor 4 f32))) "
      "(= %1 (: (mhlo.multiply %0 %c) (tensor 4 f32))) "
      "(= %2 (: (stablehlo.convert %1) (-> (tuple (tensor 4 f32)) (tuple (tensor 4 f16))))) "
      "(= %3 (: (stablehlo.broadcast_in_dim %2 :dims (list 1)) (-> (tuple (tensor 4 f16)) "
      "(tuple (tensor 2 4 f16))))) "
      "(= %4 (: (stablehlo.compare GT %0 %c FLOAT) (-> (tuple (tensor 4 f32) (tensor 4 "
      "f32)) (tuple (tensor 4 i1))))) "
      "(return (: (tuple %3) (tuple (tensor 2 4 f16)))))\n");
}

TEST(MlirGrammar, AttributesOfEveryKind) {
  EXPECT_EQ(parse("func.func @f() {\n"
                  "  \"x.op\"() {a = -3 : i64, b = 1.5e+00 : f64, c = \"s\\\"q\\0A\", d = true, "
                  "e = [1, [2]], f = {g, \"h i\" = unit}, j = dense<[[1, 2], [3, 4]]> : "
                  "tensor<2x2xi64>, k = array<i64: 1, 2>, l = #stablehlo<comparison_direction GT>, "
                  "m = @sym, n = dense<\"0xDEADBEEF\"> : tensor<1xi32>, o = 0x10 : i8, "
                  "p = tensor<3xi8>, q = (i32) -> (), r = array<i64>} : () -> ()\n"
                  "  return\n"
                  "}\n"),
            "(def f () -> (tuple) "
            "(: (x.op :a (: (- 3) i64) :b (: 1.5e+00 f64) :c \"s\\\"q\\n\" :d true "
            ":e (list 1 (list 2)) :f (dict (g unit) (h i unit)) "
            ":j (: (dense (list (list 1 2) (list 3 4))) (tensor 2 2 i64)) :k (array i64 1 2) "
            ":l #stablehlo<comparison_direction GT> :m @sym :n (: (dense \"0xDEADBEEF\") (tensor 1 "
            "i32)) :o (: 0x10 i8) :p (tensor 3 i8) :q (-> (tuple i32) (tuple)) :r (array i64)) "
            "(-> (tuple) (tuple))) "
            "(return (: (tuple) (tuple))))\n");
}

TEST(MlirGrammar, Errors) {
  EXPECT_EQ(error("func.func @f(%a: tensor<4xf32>) {\n  %0 = stablehlo.add %a, %a\n}\n"),
            "m.mlir:3:1: error: expected ':' before `}`\n"
            "}\n"
            "^\n");
  EXPECT_EQ(error("func.func @f(%a: tensor<4x>) {\n}\n"),
            "m.mlir:1:27: error: expected type before `>`\n"
            "func.func @f(%a: tensor<4x>) {\n"
            "                          ^\n");
  EXPECT_EQ(error("%0 = \"mhlo.add\"(%a %b) : (tensor<f32>) -> tensor<f32>\n"),
            "m.mlir:1:20: error: expected ')' before `%`\n"
            "%0 = \"mhlo.add\"(%a %b) : (tensor<f32>) -> tensor<f32>\n"
            "                   ^\n");
  // An op's region is carried to elaboration (a reduce's body) when it
  // has one block.
  EXPECT_EQ(error("func.func @f() {\n  %0 = \"x.op\"() ({\n  ^a:\n  ^b:\n  }) : () -> "
                  "tensor<f32>\n}\n"),
            "m.mlir:2:8: error: `x.op` has a region of 2 blocks; teval reads regions of one "
            "block\n"
            "  %0 = \"x.op\"() ({\n"
            "       ^~~~~~\n");
}

} // namespace
} // namespace teval
