// clang-format off
// Ops outside the prover's fragment (tests/data/htp/prove/opaque_ops.txt:
// computed indices, folds over several variables, extents read) are
// uninterpreted functions of their inputs: a rule that applies the same
// definition to equal inputs is proved whatever the definition computes;
// one that changes the definition or its inputs is not.

// Proved: the same definition under another name, through the TCM moves,
// after a dispatch on the dtype, below an op of the fragment.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Conv2d", "x", "w"), OK, Op("Conv2d.hvx", "x", "w"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Conv2d", "x", "w"), OK,
  Op("q::flat_from_vtcm", Op("Conv2d.tcm", WITH_SAME_OUTPUT("x", Op("q::flat_to_vtcm", "x")), "w")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("TailRows", "x"), IS_FLOAT16("x"), Op("TailRows.fp16", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("MatMul", "a", "b")), OK,
  Op("Relu", Op("MatMul.hvx", "a", "b")))

// Not proved: another definition (the filter flipped), the operands
// swapped, a dispatch the constraint does not guard.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Conv2d", "x", "w"), OK, Op("Conv2d.flipped", "x", "w"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("MatMul", "a", "b"), OK, Op("MatMul.hvx", "b", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("TailRows", "x"), OK, Op("Relu", Op("TailRows.fp16", "x")))

// A product tiled along height: its definition is a fold over one
// variable once probe extents it accepts are found (in0[3] = in1[2]):
// proved. A convolution tiled likewise is not (a computed index: the
// uninterpreted function does not say that rows are independent).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("MatMul", "a", "b"),
  AND(IS_FLOAT32("a"), IS_FLOAT32("b"), GT(DIM_HEIGHT("*"), 2)),
  AUTOSPLIT(1, "I", 2, Op("MatMul", TYPICAL_SLICE("a", "I"), TYPICAL_SLICE("b", "I"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Conv2d", "x", "w"), AND(IS_FLOAT32("x"), GT(DIM_BATCHES("*"), 1)),
  AUTOSPLIT(0, "I", 1, Op("Conv2d", TYPICAL_SLICE("x", "I"), "w")))
