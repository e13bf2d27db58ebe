// out[p, q] = min(out[p, q], q) over a 1x1 box: a linalg.generic whose
// iterators are all parallel and whose region combines the output's old
// value. transform.structured.vectorize turns the combination into a
// vector.multi_reduction without reduction dimensions whose types do not
// verify ('vector.multi_reduction' op destination type 'vector<1x1xi32>'
// is incompatible with source type 'vector<1xi32>'): mlir-opt exits 1.
module attributes {transform.with_named_sequence} {
  func.func @f(%init: tensor<1x1xi32>) -> tensor<1x1xi32> {
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        outs(%init : tensor<1x1xi32>) {
    ^bb0(%acc: i32):
      %q = linalg.index 1 : index
      %v = arith.index_cast %q : index to i32
      %m = arith.minsi %acc, %v : i32
      linalg.yield %m : i32
    } -> tensor<1x1xi32>
    return %r : tensor<1x1xi32>
  }

  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g : !transform.any_op
    transform.yield
  }
}
