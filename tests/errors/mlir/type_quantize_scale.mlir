func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<f16>, %arg2: tensor<i8>) -> tensor<4xi8> {
  %0 = "mhlo.custom_call"(%arg0, %arg1, %arg2) {call_target_name = "byteir.quantize"} : (tensor<4xf32>, tensor<f16>, tensor<i8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
