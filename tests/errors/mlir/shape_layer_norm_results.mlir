func.func @main(%arg0: tensor<2x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<2x4xf32> {
  %0:2 = stablehlo.custom_call @byteir.layer_norm(%arg0, %arg1, %arg2) {byteir_attrs = {axis = [1], epsilon = 1.0e-05 : f64}} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>)
  return %0#0 : tensor<2x4xf32>
}
