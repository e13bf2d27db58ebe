// byteir.softmax over axis 1 of a 3x5 matrix, in the generic form the seed
// shows. Run it with the inputs its reference values were made for:
//   teval run examples/byteir/softmax.mlir -i arg0=tests/data/byteir/x.npy
func.func @main(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = "mhlo.custom_call"(%arg0) {api_version = 1 : i32, backend_config = "", byteir_attrs = {axis = 1 : i64}, call_target_name = "byteir.softmax", called_computations = [], has_side_effect = false} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
