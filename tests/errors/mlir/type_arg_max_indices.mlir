func.func @main(%arg0: tensor<3x5xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @byteir.arg_max(%arg0) {byteir_attrs = {axis = 1 : i64, keep_dims = false, select_last_index = false}} : (tensor<3x5xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
