func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.negate"(%arg0) ({
  ^bb0(%a: tensor<f32>):
    "stablehlo.return"(%a) : (tensor<f32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
