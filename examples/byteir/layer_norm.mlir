// byteir.layer_norm over the last two axes with all three results (output,
// mean, inv_std_dev; the two last keep the normalized axes with extent 1),
// in the generic form ByteIR's compiler tests use.
//   teval run examples/byteir/layer_norm.mlir -i arg0=tests/data/byteir/ln_x.npy \
//       -i arg1=tests/data/byteir/ln_w.npy -i arg2=tests/data/byteir/ln_b.npy
func.func @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>) {
  %0:3 = "mhlo.custom_call"(%arg0, %arg1, %arg2) {api_version = 1 : i32, backend_config = "", byteir_attrs = {axis = [1, 2], epsilon = 9.9999999999999995E-6 : f64}, call_target_name = "byteir.layer_norm", called_computations = [], has_side_effect = false} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
}
