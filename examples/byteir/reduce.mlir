// A softmax written as StableHLO frontends lower it, around two reduces:
// the row maximum (initial value -inf, the body a region of the generic
// form), the shifted exponentials, and their row sum (the pretty `applies`
// form), broadcast back and divided. Every engine gives the same bits:
//   teval run examples/byteir/reduce.mlir --engine interp
//   teval run examples/byteir/reduce.mlir --engine jit
module {
  func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
    %minus_inf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %max = "stablehlo.reduce"(%x, %minus_inf) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%m) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %max_b = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<4xf32>) -> tensor<4x16xf32>
    %shifted = stablehlo.subtract %x, %max_b : tensor<4x16xf32>
    %exp = stablehlo.exponential %shifted : tensor<4x16xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%exp init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
    %sum_b = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<4xf32>) -> tensor<4x16xf32>
    %y = stablehlo.divide %exp, %sum_b : tensor<4x16xf32>
    return %y : tensor<4x16xf32>
  }
}
