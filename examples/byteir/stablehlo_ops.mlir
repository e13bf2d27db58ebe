// StableHLO's layout, selection and comparison ops around a score matrix:
// a causal mask from two iotas, the scores masked with select and clamped,
// then transposed; and a window sliced with a stride, reversed and
// concatenated with the first columns. Every engine gives the same bits:
//   teval run examples/byteir/stablehlo_ops.mlir --engine interp
//   teval run examples/byteir/stablehlo_ops.mlir --engine jit
module {
  func.func @main(%arg0: tensor<4x4xf32>, %arg1: tensor<4x6xf32>) -> (tensor<4x4xf32>, tensor<4x5xf32>) {
    %row = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %col = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %mask = stablehlo.compare GE, %row, %col, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %low = stablehlo.constant dense<-1.0e4> : tensor<4x4xf32>
    %masked = stablehlo.select %mask, %arg0, %low : tensor<4x4xi1>, tensor<4x4xf32>
    %min = stablehlo.constant dense<-2.0> : tensor<f32>
    %max = stablehlo.constant dense<2.0> : tensor<f32>
    %clamped = stablehlo.clamp %min, %masked, %max : (tensor<f32>, tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
    %scores = stablehlo.transpose %clamped, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %window = stablehlo.slice %arg1 [0:4, 1:6:2] : (tensor<4x6xf32>) -> tensor<4x3xf32>
    %reversed = stablehlo.reverse %window, dims = [1] : tensor<4x3xf32>
    %head = "stablehlo.slice"(%arg1) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 4, 2>, strides = array<i64: 1, 1>} : (tensor<4x6xf32>) -> tensor<4x2xf32>
    %joined = stablehlo.concatenate %reversed, %head, dim = 1 : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<4x5xf32>
    return %scores, %joined : tensor<4x4xf32>, tensor<4x5xf32>
  }
}
