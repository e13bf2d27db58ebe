// byteir.layer_norm with eps_outside_sqrt = true, as PyTorch's fused
// w * (x - mean) / (std + eps) + b pattern emits it: the epsilon is added to
// the standard deviation, not to the variance.
func.func @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = stablehlo.custom_call @byteir.layer_norm(%arg0, %arg1, %arg2) {byteir_attrs = {axis = [1, 2], epsilon = 1.000000e-02 : f64, eps_outside_sqrt = true}} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
