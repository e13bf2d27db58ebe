// A transformer block's residual add and layer norm over the hidden axis,
// as ByteIR's fusion tests write it.
func.func @main(%arg0: tensor<4x32xf32>, %arg1: tensor<4x32xf32>, %arg2: tensor<32xf32>, %arg3: tensor<32xf32>) -> tensor<4x32xf32> {
  %0 = mhlo.add %arg0, %arg1 : tensor<4x32xf32>
  %1 = "mhlo.custom_call"(%0, %arg2, %arg3) {api_version = 1 : i32, backend_config = "", byteir_attrs = {axis = [1], epsilon = 9.9999999999999995E-6 : f64}, call_target_name = "byteir.layer_norm", called_computations = [], has_side_effect = false} : (tensor<4x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  return %1 : tensor<4x32xf32>
}
