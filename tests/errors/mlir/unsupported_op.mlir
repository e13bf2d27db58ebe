func.func @main(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.cholesky %arg0 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
