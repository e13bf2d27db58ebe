// A small real graph: a classifier head. The logits of a 4x64 activation
// plus a bias, a GELU, the class probabilities and their logarithms, in
// float16 as inference runs it. Every engine gives the same bits:
//   teval run examples/byteir/graph.mlir --engine interp
//   teval run examples/byteir/graph.mlir --engine jit
//   teval lower examples/byteir/graph.mlir     (the einstein_v2 decomposition)
module {
  func.func @main(%arg0: tensor<4x64xf32>, %arg1: tensor<64xf32>) -> (tensor<4x64xf16>, tensor<4x64xf16>) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<4x64xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<4x64xf32>
    %scale = stablehlo.constant dense<2.0> : tensor<4x64xf32>
    %2 = stablehlo.multiply %1, %scale : tensor<4x64xf32>
    %3 = stablehlo.convert %2 : (tensor<4x64xf32>) -> tensor<4x64xf16>
    %4 = stablehlo.custom_call @byteir.gelu(%3) {byteir_attrs = {approximate = "tanh"}} : (tensor<4x64xf16>) -> tensor<4x64xf16>
    %5 = "mhlo.custom_call"(%4) {api_version = 1 : i32, backend_config = "", byteir_attrs = {axis = 1 : i64}, call_target_name = "byteir.softmax", called_computations = [], has_side_effect = false} : (tensor<4x64xf16>) -> tensor<4x64xf16>
    %6 = stablehlo.custom_call @byteir.log_softmax(%4) {byteir_attrs = {axis = 1 : i64}} : (tensor<4x64xf16>) -> tensor<4x64xf16>
    return %5, %6 : tensor<4x64xf16>, tensor<4x64xf16>
  }
}
