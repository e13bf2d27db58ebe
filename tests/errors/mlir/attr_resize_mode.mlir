func.func @main(%arg0: tensor<1x1x3x4xf32>) -> tensor<1x1x6x8xf32> {
  %scale = stablehlo.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %0 = stablehlo.custom_call @byteir.resize(%arg0, %scale) {byteir_attrs = {coordinate_transformation_mode = "half_pixel", mode = "cubic", target_mode = "scale"}} : (tensor<1x1x3x4xf32>, tensor<4xf32>) -> tensor<1x1x6x8xf32>
  return %0 : tensor<1x1x6x8xf32>
}
