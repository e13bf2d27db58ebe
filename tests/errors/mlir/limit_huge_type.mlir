func.func @main(%arg0: tensor<1xf32>) -> tensor<2000000000x2000000000xf32> {
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<1xf32>) -> tensor<2000000000x2000000000xf32>
  return %0 : tensor<2000000000x2000000000xf32>
}
