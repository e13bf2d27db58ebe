// A small image classifier (NCHW, batch 2, 3 channels of 12x12, 10 classes)
// as a PyTorch frontend lowers it to StableHLO in inference mode: a 3x3
// convolution without bias, batch_norm_inference, ReLU (maximum with 0), a
// 2x2 max pool by reduce_window, a depthwise 3x3 convolution (feature
// groups) with bias and ReLU6 (clamp), a strided 1x1 convolution, a global
// average pool by reduce, the classifier by dot_general and a
// byteir.log_softmax. It returns the log-probabilities and the pooled
// features. make_references.py computes it with torch.nn modules.
module {
  func.func @main(%x: tensor<2x3x12x12xf32>, %w1: tensor<8x3x3x3xf32>,
                  %bn_scale: tensor<8xf32>, %bn_offset: tensor<8xf32>, %bn_mean: tensor<8xf32>, %bn_var: tensor<8xf32>,
                  %w2: tensor<8x1x3x3xf32>, %b2: tensor<8xf32>, %w3: tensor<16x8x1x1xf32>,
                  %fc_w: tensor<10x16xf32>, %fc_b: tensor<10xf32>) -> (tensor<2x10xf32>, tensor<2x16xf32>) {
    %c1 = stablehlo.convolution(%x, %w1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x12x12xf32>, tensor<8x3x3x3xf32>) -> tensor<2x8x12x12xf32>
    %bn = "stablehlo.batch_norm_inference"(%c1, %bn_scale, %bn_offset, %bn_mean, %bn_var) {epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64} : (tensor<2x8x12x12xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x12x12xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<2x8x12x12xf32>
    %r1 = stablehlo.maximum %bn, %zero : tensor<2x8x12x12xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %pool = "stablehlo.reduce_window"(%r1, %ninf) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<2x8x12x12xf32>, tensor<f32>) -> tensor<2x8x6x6xf32>
    %c2 = "stablehlo.convolution"(%pool, %w2) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 8 : i64, padding = dense<1> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 1, 1>} : (tensor<2x8x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<2x8x6x6xf32>
    %b2b = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<8xf32>) -> tensor<2x8x6x6xf32>
    %c2b = stablehlo.add %c2, %b2b : tensor<2x8x6x6xf32>
    %lo = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %hi = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %r2 = stablehlo.clamp %lo, %c2b, %hi : (tensor<f32>, tensor<2x8x6x6xf32>, tensor<f32>) -> tensor<2x8x6x6xf32>
    %c3 = stablehlo.convolution(%r2, %w3) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x6x6xf32>, tensor<16x8x1x1xf32>) -> tensor<2x16x3x3xf32>
    %fzero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %gsum = stablehlo.reduce(%c3 init: %fzero) applies stablehlo.add across dimensions = [2, 3] : (tensor<2x16x3x3xf32>, tensor<f32>) -> tensor<2x16xf32>
    %nine = stablehlo.constant dense<9.000000e+00> : tensor<2x16xf32>
    %features = stablehlo.divide %gsum, %nine : tensor<2x16xf32>
    %logits = stablehlo.dot_general %features, %fc_w, contracting_dims = [1] x [1] : (tensor<2x16xf32>, tensor<10x16xf32>) -> tensor<2x10xf32>
    %fc_bb = stablehlo.broadcast_in_dim %fc_b, dims = [1] : (tensor<10xf32>) -> tensor<2x10xf32>
    %z = stablehlo.add %logits, %fc_bb : tensor<2x10xf32>
    %logp = stablehlo.custom_call @byteir.log_softmax(%z) {byteir_attrs = {axis = 1 : i64}} : (tensor<2x10xf32>) -> tensor<2x10xf32>
    return %logp, %features : tensor<2x10xf32>, tensor<2x16xf32>
  }
}
