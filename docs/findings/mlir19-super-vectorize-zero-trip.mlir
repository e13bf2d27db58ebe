// A zero-trip loop accumulating into a rank-0 memref: after
// --affine-super-vectorize the module no longer verifies. A loop of one
// iteration (0 to 1) does the same; 0 to 3 is left alone.
func.func @f(%out: memref<f32>) {
  %one = arith.constant 1.0 : f32
  affine.for %l = 0 to 0 {
    %a = affine.load %out[] : memref<f32>
    %b = arith.addf %a, %one : f32
    affine.store %b, %out[] : memref<f32>
  }
  return
}
