func.func @main(%arg0: tensor<1x1x3x4xf32>, %arg1: tensor<4xi64>) -> tensor<1x1x6x8xf32> {
  %0 = stablehlo.custom_call @byteir.resize(%arg0, %arg1) {byteir_attrs = {coordinate_transformation_mode = "asymmetric", mode = "nearest", target_mode = "size"}} : (tensor<1x1x3x4xf32>, tensor<4xi64>) -> tensor<1x1x6x8xf32>
  return %0 : tensor<1x1x6x8xf32>
}
