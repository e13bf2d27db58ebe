func.func @main(%arg0: tensor<4xui64>) -> tensor<4xui64> {
  return %arg0 : tensor<4xui64>
}
