// Attention scores scaled by 1/sqrt(64) and a softmax over the last axis.
func.func @main(%arg0: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %0 = mhlo.constant dense<1.250000e-01> : tensor<2x3x8xf32>
  %1 = mhlo.multiply %arg0, %0 : tensor<2x3x8xf32>
  %2 = "mhlo.custom_call"(%1) {api_version = 1 : i32, backend_config = "", byteir_attrs = {axis = 2 : i64}, call_target_name = "byteir.softmax", called_computations = [], has_side_effect = false} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %2 : tensor<2x3x8xf32>
}
