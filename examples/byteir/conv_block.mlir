// A residual block's first half as a frontend lowers a PyTorch
// Conv2d(8, 8, 3, padding=1) + ReLU to StableHLO in NHWC: a 3×3
// convolution in the pretty form (HWIO kernel), its bias broadcast over
// the channels, then a ReLU; then a strided 1×1 projection in the generic
// form with #stablehlo.conv dimension numbers (NCHW-style numbers on the
// same NHWC tensors, written raw). Every engine gives the same bits:
//   teval run examples/byteir/conv_block.mlir --engine interp
//   teval run examples/byteir/conv_block.mlir --engine jit
module {
  func.func @main(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x8x8xf32>, %b: tensor<8xf32>, %p: tensor<1x1x8x4xf32>) -> (tensor<1x6x6x8xf32>, tensor<1x3x3x4xf32>) {
    %conv = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x6x6x8xf32>
    %bias = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<8xf32>) -> tensor<1x6x6x8xf32>
    %sum = stablehlo.add %conv, %bias : tensor<1x6x6x8xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<1x6x6x8xf32>
    %relu = stablehlo.maximum %sum, %zero : tensor<1x6x6x8xf32>
    %proj = "stablehlo.convolution"(%relu, %p) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 2, 2>} : (tensor<1x6x6x8xf32>, tensor<1x1x8x4xf32>) -> tensor<1x3x3x4xf32>
    return %relu, %proj : tensor<1x6x6x8xf32>, tensor<1x3x3x4xf32>
  }
}
