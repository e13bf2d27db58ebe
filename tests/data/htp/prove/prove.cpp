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

// Proved: the wrapper around quantized ReLU (an integer maximum of codes).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), IS_QUINT8("x"),
  Op("flat_from_vtcm", WITH_SAME_OUTPUT("*", Op("Relu", Op("flat_to_vtcm", "x")))))

// Proved: a wrapper around a reduction (softmax along depth: its folds are
// uninterpreted functions of the values folded).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Softmax", "x"), IS_FLOAT32("x"),
  Op("flat_from_vtcm", WITH_SAME_OUTPUT("*", Op("Softmax", Op("flat_to_vtcm", "x")))))

// Proved: an elementwise op tiled along height by the TILE_HEIGHT option.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Relu", "x"), AND(IS_FLOAT32("x"), GT(DIM_HEIGHT("*"), TILE_HEIGHT)),
  AUTOSPLIT(1, "I", TILE_HEIGHT, Op("Relu", TYPICAL_SLICE("x", "I"))))

// Proved: a binary op split along depth in chunks of 32, the last shorter.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Add", "a", "b"), AND(IS_FLOAT16("a"), IS_FLOAT16("b"), GT(DIM_DEPTH("*"), 32)),
  AUTOSPLIT(3, "I", 32, Op("Add", TYPICAL_SLICE("a", "I"), TYPICAL_SLICE("b", "I"))))

// Refuted (a planted fault): an off-by-one slice, past the input's end.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Relu", "x"), AND(IS_FLOAT32("x"), GT(DIM_WIDTH("*"), 4)),
  AUTOSPLIT(2, "I", 4, Op("Relu", AUTOSPLIT_SLICE("x",
    gen_Shape(0, 0, ADD(SPLIT_START("I"), 1), 0),
    gen_Shape(DIM_BATCHES("x"), DIM_HEIGHT("x"), SPLIT_SIZE("I"), DIM_DEPTH("x"))))))

// Refuted (a planted fault): a wrong split size, slices 2 wide in chunks of 3.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Neg", "x"), AND(IS_FLOAT32("x"), GT(DIM_DEPTH("*"), 3)),
  AUTOSPLIT(3, "I", 3, Op("Neg", AUTOSPLIT_SLICE("x",
    gen_Shape(0, 0, 0, SPLIT_START("I")),
    gen_Shape(DIM_BATCHES("x"), DIM_HEIGHT("x"), DIM_WIDTH("x"), 2)))))

// Refuted (a planted fault): every chunk reads the first chunk's values.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Relu", "x"), AND(IS_FLOAT32("x"), GT(DIM_WIDTH("*"), 4)),
  AUTOSPLIT(2, "I", 4, Op("Relu", AUTOSPLIT_SLICE("x",
    gen_Shape(0, 0, 0, 0),
    gen_Shape(DIM_BATCHES("x"), DIM_HEIGHT("x"), SPLIT_SIZE("I"), DIM_DEPTH("x"))))))

// Proved: quantized addition commutes (real values added in float64 and
// requantized, for every pair of encodings and the output's).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "a", "b"), AND(IS_QUINT8("a"), IS_QUINT8("b")),
  Op("Add", "b", "a"))

// Proved: softmax tiled along height, each row folded whole.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Softmax", "x"), AND(IS_FLOAT32("x"), GT(DIM_HEIGHT("*"), 1)),
  AUTOSPLIT(1, "I", 1, Op("Softmax", TYPICAL_SLICE("x", "I"))))

// Proved within the documented precision change: ReLU computed in float16.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), IS_FLOAT32("x"),
  Op("Cast", WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, Op("Relu", Op("Cast", "x")))))

// An encoding WITH_OUTPUT_TYPE names is the one the op's output carries
// (Dequantize reads it): the input's proved, another refuted.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Dequantize", Op("Relu", "x")), IS_QUINT8("x"),
  Op("Dequantize", WITH_OUTPUT_TYPE(DType::QUInt8, ZERO_OFFSET_OF("x"), STEPSIZE_OF("x"), Op("Relu", "x"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Dequantize", Op("Relu", "x")), IS_QUINT8("x"),
  Op("Dequantize", WITH_OUTPUT_TYPE(DType::QUInt8, 0, 0.5f, Op("Relu", "x"))))

// Computing in float16 on purpose but changing the op as well (ReLU1 for
// ReLU): refuted beyond the documented precision change.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), IS_FLOAT32("x"),
  Op("Cast", WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, Op("Relu1", Op("Cast", "x")))))

// CONSTVAL_FLOAT reads a constant's element (a tag it reads is a constant
// of the graph, as sampling draws it): ReluX with a constant 6 is ReLU6,
// proved; clamping to [lo, 6] with lo equal to 0.0 is refuted, bit for
// bit: lo may be -0.0, which equals 0.0.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("ReluX", "x", "c"),
  AND(IS_FLOAT32("x"), IS_FLOAT32("c"), EQ(CONSTVAL_FLOAT("c", 0), 6.0f)), Op("Relu6", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("ReluMinMax", "x", "lo", "hi"),
  AND(IS_FLOAT32("x"), IS_FLOAT32("lo"), IS_FLOAT32("hi"), EQ(CONSTVAL_FLOAT("lo", 0), 0.0f), EQ(CONSTVAL_FLOAT("hi", 0), 6.0f)),
  Op("Relu6", "x"))
