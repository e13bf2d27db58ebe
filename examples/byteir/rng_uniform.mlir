// byteir.rng_uniform as ByteIR's compiler converts mhlo.rng: uniform values
// in [low, high) from a seed and an offset (here constants; ByteIR takes
// them from byre.compute @GetSeed and @NextOffset). teval computes the
// linalg lowering's Philox4x32-10 of a hash of each element's index: the
// same seed and offset give the same values on every engine and machine.
//   teval run examples/byteir/rng_uniform.mlir --print
func.func @main() -> tensor<2x3xf32> {
  %high = mhlo.constant dense<2.000000e+00> : tensor<f32>
  %low = mhlo.constant dense<-2.000000e+00> : tensor<f32>
  %seed = mhlo.constant dense<42> : tensor<i64>
  %offset = mhlo.constant dense<7> : tensor<i64>
  %0 = "mhlo.custom_call"(%low, %high, %seed, %offset) {call_target_name = "byteir.rng_uniform", has_side_effect = false} : (tensor<f32>, tensor<f32>, tensor<i64>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
