func.func @main(%arg0: tensor<3x4xf32>) -> tensor<5x2xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<3x4xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}
