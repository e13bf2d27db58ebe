func.func @main(%arg0: tensor<1x1x3x4xf32>) -> tensor<1x1x6x8xf32> {
  %size = stablehlo.constant dense<[1, 1, 6, 9]> : tensor<4xi64>
  %0 = stablehlo.custom_call @byteir.resize(%arg0, %size) {byteir_attrs = {coordinate_transformation_mode = "asymmetric", mode = "nearest", target_mode = "size"}} : (tensor<1x1x3x4xf32>, tensor<4xi64>) -> tensor<1x1x6x8xf32>
  return %0 : tensor<1x1x6x8xf32>
}
