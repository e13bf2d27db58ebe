func.func @main(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "mhlo.custom_call"(%arg0) {byteir_attrs = {axis = [1], epsilon = 1.0e-12 : f64, eps_outside_sqrt = 1 : i64}, call_target_name = "byteir.l2_norm"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
