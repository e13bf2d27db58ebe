// clang-format off
// Rules that compute in float16 on purpose (the SDK's relaxed-precision
// pattern): within the bound they change precision, not the result.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), IS_FLOAT32("x"),
    MAKE_OP_FP16_AND_INSERT_CAST(Op("Relu", CAST_TO_FP16("x"))))
CONVERT_BINARY_OP_TO_FP16("Add", "a", "b")
CONVERT_BINARY_OP_TO_FP16("Mul", "a", "b")

// Computing in float16 excuses rounding, not a wrong result: swapped
// operands and the wrong op stay unsound.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Sub", "a", "b"), AND(IS_FLOAT32("a"), IS_FLOAT32("b")),
    MAKE_OP_FP16_AND_INSERT_CAST(Op("Sub", CAST_TO_FP16("b"), CAST_TO_FP16("a"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), IS_FLOAT32("x"),
    MAKE_OP_FP16_AND_INSERT_CAST(Op("Relu6", CAST_TO_FP16("x"))))

// Without a float16 step, rounding differently is a change of the result.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", Op("Add", "a", "b"), "c"), OK, Op("Add", "a", Op("Add", "b", "c")))
