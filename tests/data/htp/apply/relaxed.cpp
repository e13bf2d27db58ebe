// clang-format off
// A relaxed-precision rule runs only when the graph allows it.
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, relaxed_precision_flag,
    Op("Relu", "x"), IS_FLOAT32("x"), MAKE_OP_FP16_AND_INSERT_CAST(Op("Relu", CAST_TO_FP16("x"))))
