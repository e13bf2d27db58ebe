// Per-tensor int8 quantization and back, as a quantized graph's boundary.
func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<f32>, %arg2: tensor<i8>) -> (tensor<4x8xi8>, tensor<4x8xf32>) {
  %0 = "mhlo.custom_call"(%arg0, %arg1, %arg2) {call_target_name = "byteir.quantize", has_side_effect = false} : (tensor<4x8xf32>, tensor<f32>, tensor<i8>) -> tensor<4x8xi8>
  %1 = "mhlo.custom_call"(%0, %arg1, %arg2) {call_target_name = "byteir.dequantize", has_side_effect = false} : (tensor<4x8xi8>, tensor<f32>, tensor<i8>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xi8>, tensor<4x8xf32>
}
