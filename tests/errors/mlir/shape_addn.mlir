func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<4xf32>) -> tensor<3xf32> {
  %0 = "mhlo.custom_call"(%arg0, %arg1) {call_target_name = "byteir.addn"} : (tensor<3xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
