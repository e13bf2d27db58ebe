// out[i] = in[2 * i] for i in [0, 8): a strided read along the loop that
// --affine-super-vectorize vectorizes.
func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %in = memref.alloc() : memref<16xf32>
  %out = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 16 {
    %v = arith.index_cast %i : index to i32
    %f = arith.sitofp %v : i32 to f32
    affine.store %f, %in[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 8 {
    %x = affine.load %in[2 * %i] : memref<16xf32>
    affine.store %x, %out[%i] : memref<8xf32>
  }
  %u = memref.cast %out : memref<8xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
