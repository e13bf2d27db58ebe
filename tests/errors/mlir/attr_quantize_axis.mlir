func.func @main(%arg0: tensor<2x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xui8>) -> tensor<2x4xui8> {
  %0 = "mhlo.custom_call"(%arg0, %arg1, %arg2) {call_target_name = "byteir.quantize"} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xui8>) -> tensor<2x4xui8>
  return %0 : tensor<2x4xui8>
}
