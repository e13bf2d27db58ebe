func.func @main(%arg0: tensor<4xui16>) -> tensor<4xui16> {
  return %arg0 : tensor<4xui16>
}
