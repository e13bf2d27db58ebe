// byteir.arg_max with both results (values and indices) along axis 1, as
// PyTorch's max(dim) converts: ties go to the first index, NaN wins.
//   teval run examples/byteir/arg_max.mlir -i arg0=tests/data/byteir/am.npy --print
func.func @main(%arg0: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  %0:2 = "mhlo.custom_call"(%arg0) {byteir_attrs = {axis = 1 : i64, keep_dims = false, select_last_index = false}, call_target_name = "byteir.arg_max"} : (tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xi64>
}
