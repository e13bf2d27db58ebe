// byteir.quantize per tensor to int8 and per channel (axis 1) to uint8 (the
// output type is the zero point's), and byteir.dequantize back, as ONNX's
// QuantizeLinear and DequantizeLinear define them.
//   teval run examples/byteir/quantize.mlir -i arg0=tests/data/byteir/qx.npy \
//       -i arg1=tests/data/byteir/q_scale.npy -i arg2=tests/data/byteir/q_zero.npy \
//       -i arg3=tests/data/byteir/qc_scale.npy -i arg4=tests/data/byteir/qc_zero.npy --print
func.func @main(%arg0: tensor<3x4xf32>, %arg1: tensor<f32>, %arg2: tensor<i8>, %arg3: tensor<4xf32>, %arg4: tensor<4xui8>) -> (tensor<3x4xi8>, tensor<3x4xui8>, tensor<3x4xf32>) {
  %0 = "mhlo.custom_call"(%arg0, %arg1, %arg2) {call_target_name = "byteir.quantize", has_side_effect = false} : (tensor<3x4xf32>, tensor<f32>, tensor<i8>) -> tensor<3x4xi8>
  %1 = "mhlo.custom_call"(%arg0, %arg3, %arg4) {byteir_attrs = {axis = 1 : i64}, call_target_name = "byteir.quantize", has_side_effect = false} : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xui8>) -> tensor<3x4xui8>
  %2 = "mhlo.custom_call"(%1, %arg3, %arg4) {byteir_attrs = {axis = 1 : i64}, call_target_name = "byteir.dequantize", has_side_effect = false} : (tensor<3x4xui8>, tensor<4xf32>, tensor<4xui8>) -> tensor<3x4xf32>
  return %0, %1, %2 : tensor<3x4xi8>, tensor<3x4xui8>, tensor<3x4xf32>
}
