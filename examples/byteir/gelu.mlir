// byteir.gelu in both forms: "none" (the same as "erf": the exact GELU) and
// "tanh" (the tanh approximation), on a dynamic first dimension.
//   teval run examples/byteir/gelu.mlir -i arg0=tests/data/byteir/g.npy
func.func @main(%arg0: tensor<?x7xf32>) -> (tensor<?x7xf32>, tensor<?x7xf32>) {
  %0 = "mhlo.custom_call"(%arg0) {api_version = 1 : i32, backend_config = "", byteir_attrs = {approximate = "none"}, call_target_name = "byteir.gelu", called_computations = [], has_side_effect = false} : (tensor<?x7xf32>) -> tensor<?x7xf32>
  %1 = stablehlo.custom_call @byteir.gelu(%arg0) {byteir_attrs = {approximate = "tanh"}} : (tensor<?x7xf32>) -> tensor<?x7xf32>
  return %0, %1 : tensor<?x7xf32>, tensor<?x7xf32>
}
