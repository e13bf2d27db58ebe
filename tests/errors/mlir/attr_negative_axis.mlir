func.func @main(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.custom_call @byteir.log_softmax(%arg0) {byteir_attrs = {axis = -1 : i64}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
