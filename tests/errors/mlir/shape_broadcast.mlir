func.func @main(%arg0: tensor<3xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
