// A nanoGPT model of one block (vocabulary 50, context 16, embedding 32,
// 2 heads of 16; batch 2, sequence 8) as ByteIR's mhlo pipeline holds it:
// the token embedding by gather, the positions by slicing the position
// table, LayerNorms as byteir.layer_norm calls, the fused q/k/v projection
// sliced apart, the causal mask from two iotas, a compare and a select of
// -inf, a byteir.softmax, the tanh GELU of nanoGPT's MLP spelled out with
// power, and the tied language-model head. make_references.py computes it
// with torch.nn modules.
module {
  func.func private @linear(%x: tensor<16x32xf32>, %w: tensor<?x32xf32>, %b: tensor<?xf32>) -> tensor<16x?xf32> {
    %0 = "mhlo.transpose"(%w) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<?x32xf32>) -> tensor<32x?xf32>
    %1 = "mhlo.dot"(%x, %0) : (tensor<16x32xf32>, tensor<32x?xf32>) -> tensor<16x?xf32>
    %2 = "mhlo.broadcast_in_dim"(%b) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>) -> tensor<16x?xf32>
    %3 = mhlo.add %1, %2 : tensor<16x?xf32>
    return %3 : tensor<16x?xf32>
  }
  func.func private @heads(%x: tensor<16x32xf32>) -> tensor<2x2x8x16xf32> {
    %0 = mhlo.reshape %x : (tensor<16x32xf32>) -> tensor<2x8x2x16xf32>
    %1 = "mhlo.transpose"(%0) {permutation = dense<[0, 2, 1, 3]> : tensor<4xi64>} : (tensor<2x8x2x16xf32>) -> tensor<2x2x8x16xf32>
    return %1 : tensor<2x2x8x16xf32>
  }
  func.func @main(%idx: tensor<2x8xi64>, %wte: tensor<50x32xf32>, %wpe: tensor<16x32xf32>,
                  %ln1_g: tensor<32xf32>, %ln1_b: tensor<32xf32>,
                  %attn_w: tensor<96x32xf32>, %attn_b: tensor<96xf32>,
                  %proj_w: tensor<32x32xf32>, %proj_b: tensor<32xf32>,
                  %ln2_g: tensor<32xf32>, %ln2_b: tensor<32xf32>,
                  %fc_w: tensor<128x32xf32>, %fc_b: tensor<128xf32>,
                  %fc2_w: tensor<32x128xf32>, %fc2_b: tensor<32xf32>,
                  %lnf_g: tensor<32xf32>, %lnf_b: tensor<32xf32>) -> tensor<2x8x50xf32> {
    %tok = "mhlo.gather"(%wte, %idx) {dimension_numbers = #mhlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = dense<[1, 32]> : tensor<2xi64>} : (tensor<50x32xf32>, tensor<2x8xi64>) -> tensor<2x8x32xf32>
    %pos = "mhlo.slice"(%wpe) {start_indices = dense<0> : tensor<2xi64>, limit_indices = dense<[8, 32]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<16x32xf32>) -> tensor<8x32xf32>
    %posb = "mhlo.broadcast_in_dim"(%pos) {broadcast_dimensions = dense<[1, 2]> : tensor<2xi64>} : (tensor<8x32xf32>) -> tensor<2x8x32xf32>
    %emb = mhlo.add %tok, %posb : tensor<2x8x32xf32>
    %x = mhlo.reshape %emb : (tensor<2x8x32xf32>) -> tensor<16x32xf32>
    %h1 = "mhlo.custom_call"(%x, %ln1_g, %ln1_b) {api_version = 1 : i32, backend_config = "", byteir_attrs = {axis = [1], epsilon = 9.9999999999999995E-6 : f64}, call_target_name = "byteir.layer_norm", called_computations = [], has_side_effect = false} : (tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
    %qkv = call @linear(%h1, %attn_w, %attn_b) : (tensor<16x32xf32>, tensor<96x32xf32>, tensor<96xf32>) -> tensor<16x96xf32>
    %q = "mhlo.slice"(%qkv) {start_indices = dense<[0, 0]> : tensor<2xi64>, limit_indices = dense<[16, 32]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<16x96xf32>) -> tensor<16x32xf32>
    %k = "mhlo.slice"(%qkv) {start_indices = dense<[0, 32]> : tensor<2xi64>, limit_indices = dense<[16, 64]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<16x96xf32>) -> tensor<16x32xf32>
    %v = "mhlo.slice"(%qkv) {start_indices = dense<[0, 64]> : tensor<2xi64>, limit_indices = dense<[16, 96]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<16x96xf32>) -> tensor<16x32xf32>
    %qh = call @heads(%q) : (tensor<16x32xf32>) -> tensor<2x2x8x16xf32>
    %kh = call @heads(%k) : (tensor<16x32xf32>) -> tensor<2x2x8x16xf32>
    %vh = call @heads(%v) : (tensor<16x32xf32>) -> tensor<2x2x8x16xf32>
    %att = "mhlo.dot_general"(%qh, %kh) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [3]>} : (tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>) -> tensor<2x2x8x8xf32>
    %scale = mhlo.constant dense<2.500000e-01> : tensor<2x2x8x8xf32>
    %att_s = mhlo.multiply %att, %scale : tensor<2x2x8x8xf32>
    %row = "mhlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<8x8xi64>
    %col = "mhlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<8x8xi64>
    %causal = "mhlo.compare"(%row, %col) {comparison_direction = #mhlo<comparison_direction GE>} : (tensor<8x8xi64>, tensor<8x8xi64>) -> tensor<8x8xi1>
    %causal4 = "mhlo.broadcast_in_dim"(%causal) {broadcast_dimensions = dense<[2, 3]> : tensor<2xi64>} : (tensor<8x8xi1>) -> tensor<2x2x8x8xi1>
    %ninf = mhlo.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
    %att_m = "mhlo.select"(%causal4, %att_s, %ninf) : (tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
    %probs = "mhlo.custom_call"(%att_m) {api_version = 1 : i32, backend_config = "", byteir_attrs = {axis = 3 : i64}, call_target_name = "byteir.softmax", called_computations = [], has_side_effect = false} : (tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
    %y = "mhlo.dot_general"(%probs, %vh) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2]>} : (tensor<2x2x8x8xf32>, tensor<2x2x8x16xf32>) -> tensor<2x2x8x16xf32>
    %y_t = "mhlo.transpose"(%y) {permutation = dense<[0, 2, 1, 3]> : tensor<4xi64>} : (tensor<2x2x8x16xf32>) -> tensor<2x8x2x16xf32>
    %y2 = mhlo.reshape %y_t : (tensor<2x8x2x16xf32>) -> tensor<16x32xf32>
    %attn = call @linear(%y2, %proj_w, %proj_b) : (tensor<16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
    %x1 = mhlo.add %x, %attn : tensor<16x32xf32>
    %h2 = "mhlo.custom_call"(%x1, %ln2_g, %ln2_b) {api_version = 1 : i32, backend_config = "", byteir_attrs = {axis = [1], epsilon = 9.9999999999999995E-6 : f64}, call_target_name = "byteir.layer_norm", called_computations = [], has_side_effect = false} : (tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
    %up = call @linear(%h2, %fc_w, %fc_b) : (tensor<16x32xf32>, tensor<128x32xf32>, tensor<128xf32>) -> tensor<16x128xf32>
    %three = mhlo.constant dense<3.000000e+00> : tensor<16x128xf32>
    %cube = mhlo.power %up, %three : tensor<16x128xf32>
    %c0 = mhlo.constant dense<4.471500e-02> : tensor<16x128xf32>
    %t0 = mhlo.multiply %cube, %c0 : tensor<16x128xf32>
    %t1 = mhlo.add %up, %t0 : tensor<16x128xf32>
    %c1 = mhlo.constant dense<0.797884583> : tensor<16x128xf32>
    %t2 = mhlo.multiply %t1, %c1 : tensor<16x128xf32>
    %t3 = mhlo.tanh %t2 : tensor<16x128xf32>
    %one = mhlo.constant dense<1.000000e+00> : tensor<16x128xf32>
    %t4 = mhlo.add %t3, %one : tensor<16x128xf32>
    %half = mhlo.constant dense<5.000000e-01> : tensor<16x128xf32>
    %t5 = mhlo.multiply %up, %half : tensor<16x128xf32>
    %gelu = mhlo.multiply %t5, %t4 : tensor<16x128xf32>
    %fc2_t = "mhlo.transpose"(%fc2_w) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<32x128xf32>) -> tensor<128x32xf32>
    %fc2 = "mhlo.dot"(%gelu, %fc2_t) : (tensor<16x128xf32>, tensor<128x32xf32>) -> tensor<16x32xf32>
    %fc2_bb = "mhlo.broadcast_in_dim"(%fc2_b) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<32xf32>) -> tensor<16x32xf32>
    %down = mhlo.add %fc2, %fc2_bb : tensor<16x32xf32>
    %x2 = mhlo.add %x1, %down : tensor<16x32xf32>
    %hf = "mhlo.custom_call"(%x2, %lnf_g, %lnf_b) {api_version = 1 : i32, backend_config = "", byteir_attrs = {axis = [1], epsilon = 9.9999999999999995E-6 : f64}, call_target_name = "byteir.layer_norm", called_computations = [], has_side_effect = false} : (tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
    %logits = "mhlo.dot_general"(%hf, %wte) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>} : (tensor<16x32xf32>, tensor<50x32xf32>) -> tensor<16x50xf32>
    %out = mhlo.reshape %logits : (tensor<16x50xf32>) -> tensor<2x8x50xf32>
    return %out : tensor<2x8x50xf32>
  }
}
