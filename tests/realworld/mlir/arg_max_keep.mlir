// The largest logit of each row and its index, dimensions kept.
func.func @main(%arg0: tensor<5x6xf32>) -> (tensor<5x1xf32>, tensor<5x1xi64>) {
  %0:2 = "mhlo.custom_call"(%arg0) {byteir_attrs = {axis = 1 : i64, keep_dims = true, select_last_index = false}, call_target_name = "byteir.arg_max"} : (tensor<5x6xf32>) -> (tensor<5x1xf32>, tensor<5x1xi64>)
  return %0#0, %0#1 : tensor<5x1xf32>, tensor<5x1xi64>
}
