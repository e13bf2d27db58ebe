func.func @main(%arg0: tensor<4xf80>) -> tensor<4xf80> {
  return %arg0 : tensor<4xf80>
}
