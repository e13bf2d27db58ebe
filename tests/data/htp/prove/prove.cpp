// clang-format off
// Rules for `teval rules verify --prove` (tests/tools/rules_cli_test.cpp,
// RulesCli.ProveVerdicts): each line's verdict is asserted there.

// Proved: a subtraction is the addition of the negation, bit for bit.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Sub", "x", "y"), AND(IS_FLOAT32("x"), IS_FLOAT32("y")),
  Op("Add", "x", Op("Neg", "y")))

// Proved: a layout and TCM wrapper around an elementwise op.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OR(IS_FLOAT32("x"), IS_FLOAT16("x")),
  Op("flat_from_vtcm", WITH_SAME_OUTPUT("*", Op("Relu", Op("flat_to_vtcm", "x")))))

// Proved: addition commutes.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "x", "y"), AND(IS_FLOAT16("x"), IS_FLOAT16("y")),
  Op("Add", "y", "x"))

// Proved: a dispatch on a dimension (both branches the same values).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Mul", "x", "y"), AND(IS_FLOAT32("x"), IS_FLOAT32("y"), GT(DIM_DEPTH("*"), 32)),
  SELECT(GT(DIM_DEPTH("x"), 64), Op("Mul", "y", "x"), WITH_SAME_OUTPUT("*", Op("Mul", "x", "y"))))

// Refuted (a planted fault): the operands swapped.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Sub", "x", "y"), AND(IS_FLOAT32("x"), IS_FLOAT32("y")),
  Op("Sub", "y", "x"))

// Refuted (a dropped constraint): ReLU6 is ReLU only below 6.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu6", "x"), IS_FLOAT32("x"), Op("Relu", "x"))

// Refuted: the output's dtype changes.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), IS_FLOAT16("x"),
  WITH_OUTPUT_TYPE(DType::Float32, 0, 1.0f, Op("Relu", "x")))

// Unknown: quantized arithmetic is not encoded yet.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), IS_QUINT8("x"),
  Op("flat_from_vtcm", WITH_SAME_OUTPUT("*", Op("Relu", Op("flat_to_vtcm", "x")))))

// Unknown: tilings are not encoded yet.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Relu", "x"), AND(IS_FLOAT32("x"), GT(DIM_HEIGHT("*"), 8)),
  AUTOSPLIT(1, "I", 8, Op("Relu", TYPICAL_SLICE("x", "I"))))
