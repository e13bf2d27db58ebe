func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "mhlo.custom_call"(%arg1) {call_target_name = "byteir.erf"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
