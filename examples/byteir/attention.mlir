// One attention head of a transformer block as StableHLO writes it: the
// scores q·kᵀ by a batched dot_general (pretty form), scaled, a ByteIR
// softmax over the keys, then the weighted values by the generic form with
// #stablehlo.dot dimension numbers, and an output projection by dot.
// Every engine gives the same bits:
//   teval run examples/byteir/attention.mlir --engine interp
//   teval run examples/byteir/attention.mlir --engine jit
module {
  func.func @main(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %w: tensor<8x6xf32>) -> tensor<8x6xf32> {
    %scores = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
    %scale = stablehlo.constant dense<0.353553385> : tensor<2x4x4xf32>
    %scaled = stablehlo.multiply %scores, %scale : tensor<2x4x4xf32>
    %probs = stablehlo.custom_call @byteir.softmax(%scaled) {byteir_attrs = {axis = 2 : i64}} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %heads = "stablehlo.dot_general"(%probs, %v) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %rows = stablehlo.reshape %heads : (tensor<2x4x8xf32>) -> tensor<8x8xf32>
    %out = stablehlo.dot %rows, %w : (tensor<8x8xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
    return %out : tensor<8x6xf32>
  }
}
