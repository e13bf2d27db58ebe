func.func @main(%arg0: tensor<3xf32>) -> tensor<3x4xf32> {
  %0 = "mhlo.custom_call"(%arg0) {byteir_attrs = {axis = 1 : i64, depth = 4 : i64, off_value = 0.0 : f32, on_value = 1.000000e+00 : f32}, call_target_name = "byteir.one_hot"} : (tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
