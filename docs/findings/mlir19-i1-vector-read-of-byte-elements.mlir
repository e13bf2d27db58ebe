// A memref<4xi1> written element by element (false, false, false, true)
// and read back as one vector<4xi1>: memref elements of i1 are bytes,
// the LLVM vector <4 x i1> is 4 bits, and the read sees the bits of the
// first byte: the `or` of the vector is false instead of true.
func.func @main() {
  %false = arith.constant false
  %true = arith.constant true
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %m = memref.alloc() : memref<4xi1>
  affine.for %i = 0 to 4 {
    memref.store %false, %m[%i] : memref<4xi1>
  }
  memref.store %true, %m[%c3] : memref<4xi1>
  %v = vector.transfer_read %m[%c0], %false {in_bounds = [true]} : memref<4xi1>, vector<4xi1>
  %any = vector.reduction <or>, %v : vector<4xi1> into i1
  %r = arith.extui %any : i1 to i32
  vector.print %r : i32
  %s = memref.load %m[%c3] : memref<4xi1>
  %t = arith.extui %s : i1 to i32
  vector.print %t : i32
  return
}
