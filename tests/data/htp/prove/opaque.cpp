// clang-format off
// Ops with computed indices, folds over several variables and extents in
// where clauses (tests/data/htp/prove/opaque_ops.txt: a convolution, a
// product) are read from their definitions; an op outside that fragment
// (TailRows reads its input's extent in an index) is an uninterpreted
// function of its inputs: a rule applying the same definition to equal
// inputs is proved whatever it computes; one that changes the definition
// or its inputs is not.

// Proved: the same definition under another name, through the TCM moves,
// after a dispatch on the dtype, below an op of the fragment.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Conv2d", "x", "w"), OK, Op("Conv2d.hvx", "x", "w"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Conv2d", "x", "w"), OK,
  Op("q::flat_from_vtcm", Op("Conv2d.tcm", WITH_SAME_OUTPUT("x", Op("q::flat_to_vtcm", "x")), "w")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("TailRows", "x"), IS_FLOAT16("x"), Op("TailRows.fp16", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("MatMul", "a", "b")), OK,
  Op("Relu", Op("MatMul.hvx", "a", "b")))

// Refuted: another definition (the filter flipped), the operands swapped,
// a dispatch the constraint does not guard (found by values drawn on the
// solver's extents: its model of an uninterpreted op is not the op).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Conv2d", "x", "w"), OK, Op("Conv2d.flipped", "x", "w"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("MatMul", "a", "b"), OK, Op("MatMul.hvx", "b", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("TailRows", "x"), OK, Op("Relu", Op("TailRows.fp16", "x")))

// Proved: a product tiled along height (probe extents the definition
// accepts, in0[3] = in1[2], are found) and a convolution tiled along batch.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("MatMul", "a", "b"),
  AND(IS_FLOAT32("a"), IS_FLOAT32("b"), GT(DIM_HEIGHT("*"), 2)),
  AUTOSPLIT(1, "I", 2, Op("MatMul", TYPICAL_SLICE("a", "I"), TYPICAL_SLICE("b", "I"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Conv2d", "x", "w"), AND(IS_FLOAT32("x"), GT(DIM_BATCHES("*"), 1)),
  AUTOSPLIT(0, "I", 1, Op("Conv2d", TYPICAL_SLICE("x", "I"), "w")))

// Unknown: a tiling of the uninterpreted op is sound (sampling) but needs
// what the op computes, which the function does not say.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("TailRows", "x"), AND(IS_FLOAT32("x"), GT(DIM_BATCHES("*"), 1)),
  AUTOSPLIT(0, "I", 1, Op("TailRows", TYPICAL_SLICE("x", "I"))))
