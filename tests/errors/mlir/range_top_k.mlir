func.func @main(%arg0: tensor<3x5xf32>) -> (tensor<3x6xf32>, tensor<3x6xi64>) {
  %0:2 = stablehlo.custom_call @byteir.top_k(%arg0) {byteir_attrs = {axis = [1], k = 6 : i64, sorted = true}} : (tensor<3x5xf32>) -> (tensor<3x6xf32>, tensor<3x6xi64>)
  return %0#0, %0#1 : tensor<3x6xf32>, tensor<3x6xi64>
}
