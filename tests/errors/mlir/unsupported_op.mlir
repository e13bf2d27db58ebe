func.func @main(%arg0: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
