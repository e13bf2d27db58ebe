// clang-format off
// Rules the verifier must find unsound, each with a counterexample.

// Softmax normalises along depth: splitting it there is wrong.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Softmax", "x"), GT(DIM_DEPTH("*"), 2),
    AUTOSPLIT(3, "I", 2, Op("Softmax", TYPICAL_SLICE("x", "I"))))

// A reduction split along the reduced dimension.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("ReduceMax", "x"), GT(DIM_DEPTH("x"), 1),
    Op("ReduceMax", AUTOSPLIT_SLICE("x", gen_Shape(0, 0, 0, 0),
                                    gen_Shape(DIM_BATCHES("x"), DIM_HEIGHT("x"), DIM_WIDTH("x"), 1))))

// Operands swapped in a non-commutative op.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Sub", "a", "b"), OK, Op("Sub", "b", "a"))

// Relu6 is not Relu.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu6", "x"), OK, Op("Relu", "x"))

// Re-association changes rounding in floating point.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", Op("Add", "a", "b"), "c"), IS_FLOAT32("a"),
    Op("Add", "a", Op("Add", "b", "c")))

// Dropping a round trip through 8 bits loses precision.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Dequantize", LET("q", Op("Quantize", "x"))),
    AND(IS_FLOAT32("x"), IS_QUINT8("q")), "x")

// The replacement's output has the wrong size: the split chunks are 3 wide
// but the rule slices 2.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Neg", "x"), GT(DIM_DEPTH("*"), 3),
    AUTOSPLIT(3, "I", 3,
        Op("Neg", AUTOSPLIT_SLICE("x", gen_Shape(0, 0, 0, SPLIT_START("I")),
                                  gen_Shape(DIM_BATCHES("x"), DIM_HEIGHT("x"), DIM_WIDTH("x"), 2)))))

// A convolution split along rows without the filter's halo.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Conv2d", "in", "w"), AND(GT(DIM_HEIGHT("*"), 1), GT(DIM_FILTHEIGHT("w"), 1)),
    AUTOSPLIT(1, "H", 1,
        Op("Conv2d",
            AUTOSPLIT_SLICE("in", gen_Shape(0, SPLIT_START("H"), 0, 0),
                gen_Shape(DIM_BATCHES("in"), SPLIT_SIZE("H"), DIM_WIDTH("in"), DIM_DEPTH("in"))),
            "w")))
