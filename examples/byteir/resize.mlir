// byteir.resize of an NCHW image to 5x7 in the modes the frontends emit:
// PyTorch's upsample_nearest2d (nearest, asymmetric), upsample_bilinear2d
// with align_corners (linear, align_corners) and without
// (linear, pytorch_half_pixel), by target sizes; and ONNX's Resize by
// scales (linear, half_pixel). The target is a constant.
//   teval run examples/byteir/resize.mlir -i arg0=tests/data/byteir/rx.npy --print
func.func @main(%arg0: tensor<1x1x3x4xf32>) -> (tensor<1x1x5x7xf32>, tensor<1x1x5x7xf32>, tensor<1x1x5x7xf32>, tensor<1x1x6x6xf32>) {
  %size = stablehlo.constant dense<[1, 1, 5, 7]> : tensor<4xi64>
  %scale = stablehlo.constant dense<[1.0, 1.0, 2.0, 1.5]> : tensor<4xf32>
  %0 = "mhlo.custom_call"(%arg0, %size) {byteir_attrs = {coordinate_transformation_mode = "asymmetric", mode = "nearest", target_mode = "size"}, call_target_name = "byteir.resize"} : (tensor<1x1x3x4xf32>, tensor<4xi64>) -> tensor<1x1x5x7xf32>
  %1 = "mhlo.custom_call"(%arg0, %size) {byteir_attrs = {coordinate_transformation_mode = "align_corners", mode = "linear", target_mode = "size"}, call_target_name = "byteir.resize"} : (tensor<1x1x3x4xf32>, tensor<4xi64>) -> tensor<1x1x5x7xf32>
  %2 = "mhlo.custom_call"(%arg0, %size) {byteir_attrs = {coordinate_transformation_mode = "pytorch_half_pixel", mode = "linear", target_mode = "size"}, call_target_name = "byteir.resize"} : (tensor<1x1x3x4xf32>, tensor<4xi64>) -> tensor<1x1x5x7xf32>
  %3 = stablehlo.custom_call @byteir.resize(%arg0, %scale) {byteir_attrs = {coordinate_transformation_mode = "half_pixel", mode = "linear", target_mode = "scale"}} : (tensor<1x1x3x4xf32>, tensor<4xf32>) -> tensor<1x1x6x6xf32>
  return %0, %1, %2, %3 : tensor<1x1x5x7xf32>, tensor<1x1x5x7xf32>, tensor<1x1x5x7xf32>, tensor<1x1x6x6xf32>
}
