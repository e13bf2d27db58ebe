// acc[0] = 0; acc[0] += 1; out[0, j] = 0; out[0, j] += acc[0] for j in [0, 2):
// out is [[1, 1]]. --affine-loop-fusion moves the accumulation into acc
// inside the j loop, so that it runs twice: out becomes [[1, 2]].
func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %acc = memref.alloc() : memref<1xf32>
  affine.for %i = 0 to 1 {
    affine.store %zero, %acc[%i] : memref<1xf32>
  }
  affine.for %i = 0 to 1 {
    %a = affine.load %acc[%i] : memref<1xf32>
    %b = arith.addf %a, %one : f32
    affine.store %b, %acc[%i] : memref<1xf32>
  }
  %out = memref.alloc() : memref<1x2xf32>
  affine.for %i = 0 to 1 {
    affine.for %j = 0 to 2 {
      affine.store %zero, %out[%i, %j] : memref<1x2xf32>
    }
  }
  affine.for %i = 0 to 1 {
    affine.for %j = 0 to 2 {
      %x = affine.load %acc[%i] : memref<1xf32>
      %y = affine.load %out[%i, %j] : memref<1x2xf32>
      %z = arith.addf %y, %x : f32
      affine.store %z, %out[%i, %j] : memref<1x2xf32>
    }
  }
  %v = memref.cast %out : memref<1x2xf32> to memref<*xf32>
  func.call @printMemrefF32(%v) : (memref<*xf32>) -> ()
  return
}
