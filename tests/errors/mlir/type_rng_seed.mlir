func.func @main(%low: tensor<f32>, %high: tensor<f32>, %seed: tensor<f32>, %offset: tensor<i64>) -> tensor<4xf32> {
  %0 = "mhlo.custom_call"(%low, %high, %seed, %offset) {call_target_name = "byteir.rng_uniform"} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
