func.func @main(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "mhlo.custom_call"(%arg0) {byteir_attrs = {axis = [1], epsilon = "small"}, call_target_name = "byteir.l2_norm"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
