func.func @main(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.custom_call @byteir.softmax(%arg0) {byteir_attrs = {axis = 1 : i64, keepdim = true}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
