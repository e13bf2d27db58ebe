// byteir.erf, as the seed writes it (no byteir_attrs, a dynamic dimension).
//   teval run examples/byteir/erf.mlir -i arg0=tests/data/byteir/g.npy
func.func @main(%arg0: tensor<?x7xf32>) -> tensor<?x7xf32> {
  %0 = "mhlo.custom_call"(%arg0) {call_target_name = "byteir.erf", has_side_effect = false} : (tensor<?x7xf32>) -> tensor<?x7xf32>
  return %0 : tensor<?x7xf32>
}
