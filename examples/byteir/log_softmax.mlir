// byteir.log_softmax over axis 0, in stablehlo's pretty form.
//   teval run examples/byteir/log_softmax.mlir -i arg0=tests/data/byteir/x.npy
func.func @main(%arg0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = stablehlo.custom_call @byteir.log_softmax(%arg0) {byteir_attrs = {axis = 0 : i64}} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
