// byteir.arg_min with only the indices (int32), keeping the reduced axis,
// ties to the last index (select_last_index, ONNX's definition).
//   teval run examples/byteir/arg_min.mlir -i arg0=tests/data/byteir/am.npy --print
func.func @main(%arg0: tensor<3x4xf32>) -> tensor<3x1xi32> {
  %0 = stablehlo.custom_call @byteir.arg_min(%arg0) {byteir_attrs = {axis = 1 : i64, keep_dims = true, select_last_index = true}} : (tensor<3x4xf32>) -> tensor<3x1xi32>
  return %0 : tensor<3x1xi32>
}
