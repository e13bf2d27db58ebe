// clang-format off
// Rules the verifier must find sound.

// Splitting an elementwise op along any dimension.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Relu", "x"), GT(DIM_DEPTH("*"), 2),
    AUTOSPLIT(3, "I", 2, Op("Relu", TYPICAL_SLICE("x", "I"))))
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Add", "a", "b"), GT(DIM_WIDTH("*"), 1),
    AUTOSPLIT(2, "W", 1, Op("Add", TYPICAL_SLICE("a", "W"), TYPICAL_SLICE("b", "W"))))
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Mul", "a", "b"), GT(DIM_HEIGHT("*"), 1),
    AUTOSPLIT(1, "H", 1, Op("Mul", TYPICAL_SLICE("a", "H"), TYPICAL_SLICE("b", "H"))))

// Softmax normalises along depth; splitting along height is fine.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Softmax", "x"), GT(DIM_HEIGHT("*"), 1),
    AUTOSPLIT(1, "H", 1, Op("Softmax", TYPICAL_SLICE("x", "H"))))

// A matrix product split along the rows of its result (a slice of in0).
DEF_PACKAGE_OPTIMIZATION(TILING, Op("MatMul", "a", "b"), GT(DIM_WIDTH("*"), 1),
    AUTOSPLIT(2, "M", 1,
        Op("MatMul", AUTOSPLIT_SLICE("a",
                         gen_Shape(0, 0, SPLIT_START("M"), 0),
                         gen_Shape(DIM_BATCHES("a"), DIM_HEIGHT("a"), SPLIT_SIZE("M"), DIM_DEPTH("a"))),
                     "b")))

// Algebra that holds bit for bit in floating point.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op("Neg", "x")), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("Relu", "x")), OK, Op("Relu", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "a", "b"), OK, Op("Add", "b", "a"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Sub", "a", "b"), AND(IS_FLOAT32("a"), IS_FLOAT32("b")),
    Op("Add", "a", Op("Neg", "b")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu6", "x"), IS_FLOAT32("x"),
    Op("ReluMinMax", "x", gen_ConstScalar_f32(0.0f), gen_ConstScalar_f32(6.0f)))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Maximum", "a", "b"), OK, Op("Maximum", "b", "a"))

// A bypass whose constraint makes it exact: ReLU of a tensor that is ReLU's
// own output.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("r", Op("Relu6", "x"))), OK, "r")

// Multiplying by a constant one.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("MulScalar", "x", OPCONST("c")),
    AND(IS_FLOAT32("x"), EQ(CONSTVAL_FLOAT("c", 0), 1.0f)), "x")

// Splitting along a dimension the constraint's option picks.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Exp", "x"), AND(GT(TILE_HEIGHT, 0), GT(DIM_HEIGHT("*"), TILE_HEIGHT)),
    AUTOSPLIT(1, "H", TILE_HEIGHT, Op("Exp", TYPICAL_SLICE("x", "H"))))

// Building a Concat with OP_ITER, as in the SDK's example.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Tanh", "In"), EQ(DIM_HEIGHT("In"), 2),
    OP_ITER(Op("Concat", gen_ConstScalar_i32(1)), "I", 0, 2,
        WITH_SIZE(gen_Shape(DIM_BATCHES("In"), 1, DIM_WIDTH("In"), DIM_DEPTH("In")),
            Op("Tanh",
                WITH_SIZE(gen_Shape(DIM_BATCHES("In"), 1, DIM_WIDTH("In"), DIM_DEPTH("In")),
                    Op("Slice_shape", "In", gen_Shape(0, ITER_VAR("I"), 0, 0),
                       gen_Shape(DIM_BATCHES("In"), 1, DIM_WIDTH("In"), DIM_DEPTH("In"))))))))

// A convolution split along output rows: each chunk reads its rows of the
// input plus the filter's halo.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Conv2d", "in", "w"), GT(DIM_HEIGHT("*"), 1),
    AUTOSPLIT(1, "H", 1,
        Op("Conv2d",
            AUTOSPLIT_SLICE("in", gen_Shape(0, SPLIT_START("H"), 0, 0),
                gen_Shape(DIM_BATCHES("in"), ADD(SPLIT_SIZE("H"), SUB(DIM_FILTHEIGHT("w"), 1)),
                          DIM_WIDTH("in"), DIM_DEPTH("in"))),
            "w")))

// ... and along output channels, slicing the filters.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Conv2d", "in", "w"), GT(DIM_DEPTH("*"), 1),
    AUTOSPLIT(3, "C", 1, Op("Conv2d", "in", TYPICAL_SLICE("w", "C"))))

// What rules read is drawn as HTP has it: a tile size option is never 0
// (a split into chunks of 0 would fault), and 16- and 32-bit quantized
// types are drawn.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Relu", "x"), OK,
    AUTOSPLIT(2, "I", TILE_HEIGHT, Op("Relu", TYPICAL_SLICE("x", "I"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("Relu", "x")), IS_QINT16("x"), Op("Relu", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("Relu", "x")), IS_QUINT16("x"), Op("Relu", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("Relu", "x")), IS_QINT32("x"), Op("Relu", "x"))
