func.func @main(%low: tensor<f32>, %high: tensor<f32>, %seed: tensor<i64>, %offset: tensor<i64>, %shape: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = "mhlo.custom_call"(%low, %high, %seed, %offset, %shape) {call_target_name = "byteir.rng_uniform"} : (tensor<f32>, tensor<f32>, tensor<i64>, tensor<i64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
