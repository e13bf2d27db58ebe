func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @byteir.gelu(%arg0) {byteir_attrs = {approximate = "sigmoid"}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
