func.func @main(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<4xf32> {
  %s = stablehlo.constant dense<[4]> : tensor<1xi64>
  %0 = "stablehlo.rng"(%arg0, %arg1, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
