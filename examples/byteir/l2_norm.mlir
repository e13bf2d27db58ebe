// byteir.l2_norm along axis 1 with both epsilon placements: inside the
// square root as a floor on the sum of squares (TensorFlow's l2_normalize),
// and outside as a floor on the norm (PyTorch's F.normalize).
//   teval run examples/byteir/l2_norm.mlir -i arg0=tests/data/byteir/l2_x.npy --print
func.func @main(%arg0: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %0 = "mhlo.custom_call"(%arg0) {byteir_attrs = {axis = [1], epsilon = 1.000000e-04 : f64}, call_target_name = "byteir.l2_norm"} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %1 = "mhlo.custom_call"(%arg0) {byteir_attrs = {axis = [1], epsilon = 1.000000e-02 : f64, eps_outside_sqrt = true}, call_target_name = "byteir.l2_norm"} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<4x3xf32>
}
