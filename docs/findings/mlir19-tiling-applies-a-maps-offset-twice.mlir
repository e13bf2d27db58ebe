// out[i] = in[i + 1] for i in [0, 2), a linalg.generic whose input map has
// a constant term, tiled by 1 with transform.structured.tile_using_for.
// The tile's slice starts at in[i + 1] and the tiled generic still reads
// at d0 + 1 inside it, a second time: out is [3, 0] (0 read past the
// slice) instead of [2, 3].
module attributes {transform.with_named_sequence} {
  func.func private @printMemrefF32(memref<*xf32>)

  func.func @main() {
    %in = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %init = tensor.empty() : tensor<2xf32>
    %out = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 + 1)>, affine_map<(d0) -> (d0)>],
                           iterator_types = ["parallel"]}
        ins(%in : tensor<3xf32>) outs(%init : tensor<2xf32>) {
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
    } -> tensor<2xf32>
    %m = bufferization.to_memref %out : memref<2xf32>
    %u = memref.cast %m : memref<2xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }

  transform.named_sequence private @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
