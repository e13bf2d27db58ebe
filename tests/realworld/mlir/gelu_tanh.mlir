// The tanh approximation of GELU on a float32 activation.
func.func @main(%arg0: tensor<3x16xf32>) -> tensor<3x16xf32> {
  %0 = "mhlo.custom_call"(%arg0) {api_version = 1 : i32, backend_config = "", byteir_attrs = {approximate = "tanh"}, call_target_name = "byteir.gelu", called_computations = [], has_side_effect = false} : (tensor<3x16xf32>) -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}
