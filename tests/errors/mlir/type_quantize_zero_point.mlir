func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4xf32> {
  %0 = "mhlo.custom_call"(%arg0, %arg1, %arg2) {call_target_name = "byteir.quantize"} : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
