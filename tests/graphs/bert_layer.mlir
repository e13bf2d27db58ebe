// A BERT-tiny encoder layer (hidden 32, 2 heads of 16, feed-forward 64;
// batch 2, sequence 8) as a PyTorch frontend lowers it to StableHLO for
// ByteIR: each nn.Linear a call of @linear (its weight transposed, a
// dot_general, the bias broadcast and added), the heads split by reshape and
// transpose, the scores by a batched dot_general, the padding mask added as
// (1 - mask) * -10000, the softmax as plain reduces (maximum, then a sum of
// exponentials), the first layer norm and the GELU as ByteIR custom calls,
// the second layer norm as plain ops. make_references.py computes it with
// torch.nn modules.
module {
  func.func private @linear(%x: tensor<2x8x32xf32>, %w: tensor<?x32xf32>, %b: tensor<?xf32>) -> tensor<2x8x?xf32> {
    %wt = stablehlo.transpose %w, dims = [1, 0] : (tensor<?x32xf32>) -> tensor<32x?xf32>
    %y = stablehlo.dot_general %x, %wt, contracting_dims = [2] x [0] : (tensor<2x8x32xf32>, tensor<32x?xf32>) -> tensor<2x8x?xf32>
    %bb = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<?xf32>) -> tensor<2x8x?xf32>
    %z = stablehlo.add %y, %bb : tensor<2x8x?xf32>
    return %z : tensor<2x8x?xf32>
  }
  func.func private @heads(%x: tensor<2x8x32xf32>) -> tensor<2x2x8x16xf32> {
    %0 = stablehlo.reshape %x : (tensor<2x8x32xf32>) -> tensor<2x8x2x16xf32>
    %1 = stablehlo.transpose %0, dims = [0, 2, 1, 3] : (tensor<2x8x2x16xf32>) -> tensor<2x2x8x16xf32>
    return %1 : tensor<2x2x8x16xf32>
  }
  func.func @main(%x: tensor<2x8x32xf32>, %mask: tensor<2x8xf32>,
                  %wq: tensor<32x32xf32>, %bq: tensor<32xf32>, %wk: tensor<32x32xf32>, %bk: tensor<32xf32>,
                  %wv: tensor<32x32xf32>, %bv: tensor<32xf32>, %wo: tensor<32x32xf32>, %bo: tensor<32xf32>,
                  %g1: tensor<32xf32>, %be1: tensor<32xf32>,
                  %w1: tensor<64x32xf32>, %b1: tensor<64xf32>, %w2: tensor<32x64xf32>, %b2: tensor<32xf32>,
                  %g2: tensor<32xf32>, %be2: tensor<32xf32>) -> tensor<2x8x32xf32> {
    %q = call @linear(%x, %wq, %bq) : (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    %k = call @linear(%x, %wk, %bk) : (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    %v = call @linear(%x, %wv, %bv) : (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    %qh = call @heads(%q) : (tensor<2x8x32xf32>) -> tensor<2x2x8x16xf32>
    %kh = call @heads(%k) : (tensor<2x8x32xf32>) -> tensor<2x2x8x16xf32>
    %vh = call @heads(%v) : (tensor<2x8x32xf32>) -> tensor<2x2x8x16xf32>
    %scores = stablehlo.dot_general %qh, %kh, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>) -> tensor<2x2x8x8xf32>
    %four = stablehlo.constant dense<4.000000e+00> : tensor<2x2x8x8xf32>
    %scaled = stablehlo.divide %scores, %four : tensor<2x2x8x8xf32>
    %one = stablehlo.constant dense<1.000000e+00> : tensor<2x8xf32>
    %masked_out = stablehlo.subtract %one, %mask : tensor<2x8xf32>
    %big = stablehlo.constant dense<-1.000000e+04> : tensor<2x8xf32>
    %bias = stablehlo.multiply %masked_out, %big : tensor<2x8xf32>
    %bias4 = stablehlo.broadcast_in_dim %bias, dims = [0, 3] : (tensor<2x8xf32>) -> tensor<2x2x8x8xf32>
    %logits = stablehlo.add %scaled, %bias4 : tensor<2x2x8x8xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %max = stablehlo.reduce(%logits init: %ninf) applies stablehlo.maximum across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
    %max4 = stablehlo.broadcast_in_dim %max, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
    %shifted = stablehlo.subtract %logits, %max4 : tensor<2x2x8x8xf32>
    %exp = stablehlo.exponential %shifted : tensor<2x2x8x8xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %sum = stablehlo.reduce(%exp init: %zero) applies stablehlo.add across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
    %sum4 = stablehlo.broadcast_in_dim %sum, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
    %probs = stablehlo.divide %exp, %sum4 : tensor<2x2x8x8xf32>
    %ctx = stablehlo.dot_general %probs, %vh, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x2x8x8xf32>, tensor<2x2x8x16xf32>) -> tensor<2x2x8x16xf32>
    %ctx_t = stablehlo.transpose %ctx, dims = [0, 2, 1, 3] : (tensor<2x2x8x16xf32>) -> tensor<2x8x2x16xf32>
    %ctx3 = stablehlo.reshape %ctx_t : (tensor<2x8x2x16xf32>) -> tensor<2x8x32xf32>
    %attn = call @linear(%ctx3, %wo, %bo) : (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    %res1 = stablehlo.add %attn, %x : tensor<2x8x32xf32>
    %h = stablehlo.custom_call @byteir.layer_norm(%res1, %g1, %be1) {byteir_attrs = {axis = [2], epsilon = 9.9999999999999998E-13 : f64}} : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    %up = call @linear(%h, %w1, %b1) : (tensor<2x8x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
    %act = stablehlo.custom_call @byteir.gelu(%up) {byteir_attrs = {approximate = "none"}} : (tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
    %w2t = stablehlo.transpose %w2, dims = [1, 0] : (tensor<32x64xf32>) -> tensor<64x32xf32>
    %down = stablehlo.dot_general %act, %w2t, contracting_dims = [2] x [0] : (tensor<2x8x64xf32>, tensor<64x32xf32>) -> tensor<2x8x32xf32>
    %b2b = stablehlo.broadcast_in_dim %b2, dims = [2] : (tensor<32xf32>) -> tensor<2x8x32xf32>
    %ffn = stablehlo.add %down, %b2b : tensor<2x8x32xf32>
    %res2 = stablehlo.add %ffn, %h : tensor<2x8x32xf32>
    %total = stablehlo.reduce(%res2 init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %n = stablehlo.constant dense<3.200000e+01> : tensor<2x8xf32>
    %mean = stablehlo.divide %total, %n : tensor<2x8xf32>
    %mean3 = stablehlo.broadcast_in_dim %mean, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %centered = stablehlo.subtract %res2, %mean3 : tensor<2x8x32xf32>
    %sq = stablehlo.multiply %centered, %centered : tensor<2x8x32xf32>
    %sqsum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8xf32>
    %var = stablehlo.divide %sqsum, %n : tensor<2x8xf32>
    %eps = stablehlo.constant dense<9.99999996E-13> : tensor<2x8xf32>
    %var_eps = stablehlo.add %var, %eps : tensor<2x8xf32>
    %inv_std = stablehlo.rsqrt %var_eps : tensor<2x8xf32>
    %inv_std3 = stablehlo.broadcast_in_dim %inv_std, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x32xf32>
    %normed = stablehlo.multiply %centered, %inv_std3 : tensor<2x8x32xf32>
    %g2b = stablehlo.broadcast_in_dim %g2, dims = [2] : (tensor<32xf32>) -> tensor<2x8x32xf32>
    %be2b = stablehlo.broadcast_in_dim %be2, dims = [2] : (tensor<32xf32>) -> tensor<2x8x32xf32>
    %scaled_out = stablehlo.multiply %normed, %g2b : tensor<2x8x32xf32>
    %out = stablehlo.add %scaled_out, %be2b : tensor<2x8x32xf32>
    return %out : tensor<2x8x32xf32>
  }
}
