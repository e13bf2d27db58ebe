// byteir.top_k: the 3 largest along axis 1 and their indices, largest first,
// equal values by index.
//   teval run examples/byteir/top_k.mlir -i arg0=tests/data/byteir/tk.npy --print
func.func @main(%arg0: tensor<3x5xf32>) -> (tensor<3x3xf32>, tensor<3x3xi64>) {
  %0:2 = stablehlo.custom_call @byteir.top_k(%arg0) {byteir_attrs = {axis = [1], k = 3 : i64, sorted = true}} : (tensor<3x5xf32>) -> (tensor<3x3xf32>, tensor<3x3xi64>)
  return %0#0, %0#1 : tensor<3x3xf32>, tensor<3x3xi64>
}
