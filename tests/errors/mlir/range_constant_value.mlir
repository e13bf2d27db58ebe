func.func @main() -> tensor<2xi8> {
  %0 = stablehlo.constant dense<[1, 300]> : tensor<2xi8>
  return %0 : tensor<2xi8>
}
