// clang-format off
// Split tags of AUTOSPLIT and OP_ITER.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(SPLIT_START("I"), 0), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, AUTOSPLIT(3, "I", 2, Op("Relu", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK,
    AUTOSPLIT(3, "I", 2, Op("Relu", TYPICAL_SLICE("x", "J"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "a", "b"), OK,
    SELECT(OK, AUTOSPLIT(3, "I", 2, Op("Add", TYPICAL_SLICE("a", "I"), TYPICAL_SLICE("b", "I"))),
               AUTOSPLIT(2, "I", 2, Op("Add", TYPICAL_SLICE("a", "I"), TYPICAL_SLICE("b", "I")))))
DEF_PACKAGE_OPTIMIZATION(EARLY, OpVarIn("Concat", "axis"), OK,
    Op("Relu", ITER_INPUT_OF("*", "I")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK,
    Op("Relu", AUTOSPLIT_SHAPEFN_APPLY(simple_split_start, "I", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK,
    AUTOSPLIT(3, "I", 2, OP_ITER(Op("Concat", gen_ConstScalar_i32(3)), "I", 0, 2,
                                 Op("Relu", TYPICAL_SLICE("x", "I")))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK,
    AUTOSPLIT(3, "", 2, Op("Relu", "x")))
