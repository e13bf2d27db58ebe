func.func @main(%arg0: tensor<4x8xf32>) -> tensor<8x4xf32> {
  return %arg0 : tensor<4x8xf32>
}
