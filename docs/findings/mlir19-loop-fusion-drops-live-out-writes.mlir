// a[i, j] = 1 for i, j in [0, 2); b[i] = a[i, i]; then a is used.
// --affine-loop-fusion fuses the first nest into the second and deletes
// it, although a is used after the loops (printed): only a's diagonal is
// written, the rest of a is whatever memref.alloc gave.
func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<2x2xf32>
  %b = memref.alloc() : memref<2xf32>
  affine.for %i = 0 to 2 {
    affine.for %j = 0 to 2 {
      affine.store %one, %a[%i, %j] : memref<2x2xf32>
    }
  }
  affine.for %i = 0 to 2 {
    %x = affine.load %a[%i, %i] : memref<2x2xf32>
    affine.store %x, %b[%i] : memref<2xf32>
  }
  %u = memref.cast %a : memref<2x2xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
