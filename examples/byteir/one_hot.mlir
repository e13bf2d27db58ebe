// byteir.one_hot of depth 4 with the new axis last and first; an index
// outside [0, 4) is off_value everywhere (TensorFlow's OneHot).
//   teval run examples/byteir/one_hot.mlir -i arg0=tests/data/byteir/oh.npy --print
func.func @main(%arg0: tensor<3x2xi64>) -> (tensor<3x2x4xf32>, tensor<4x3x2xf32>) {
  %0 = "mhlo.custom_call"(%arg0) {byteir_attrs = {axis = 2 : i64, depth = 4 : i64, off_value = -1.000000e+00 : f32, on_value = 2.500000e+00 : f32}, call_target_name = "byteir.one_hot"} : (tensor<3x2xi64>) -> tensor<3x2x4xf32>
  %1 = "mhlo.custom_call"(%arg0) {byteir_attrs = {axis = 0 : i64, depth = 4 : i64, off_value = -1.000000e+00 : f32, on_value = 2.500000e+00 : f32}, call_target_name = "byteir.one_hot"} : (tensor<3x2xi64>) -> tensor<4x3x2xf32>
  return %0, %1 : tensor<3x2x4xf32>, tensor<4x3x2xf32>
}
