func.func @main(%arg0: tensor<2x4xi8>, %arg1: tensor<3xf32>, %arg2: tensor<3xi8>) -> tensor<2x4xf32> {
  %0 = "mhlo.custom_call"(%arg0, %arg1, %arg2) {byteir_attrs = {axis = 1 : i64}, call_target_name = "byteir.dequantize"} : (tensor<2x4xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
