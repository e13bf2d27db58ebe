// Scalars as ByteIR's frontends emit them: tensor<f32> values added and
// multiplied, then broadcast to scale a vector.
func.func @main(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %0 = mhlo.add %arg0, %arg1 : tensor<f32>
  %1 = mhlo.multiply %0, %arg0 : tensor<f32>
  %2 = "mhlo.broadcast_in_dim"(%1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<4xf32>
  %3 = mhlo.multiply %arg2, %2 : tensor<4xf32>
  return %1, %3 : tensor<f32>, tensor<4xf32>
}
