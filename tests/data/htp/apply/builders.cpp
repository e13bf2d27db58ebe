// clang-format off
// Modifiers, constants, shapes, WrapOp, SELECT, OP_ITER and OpMultiOut.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Quantize", "x"), OK,
    WITH_OUTPUT_TYPE(DType::QUInt8, 128, 0.0625f, WITH_SIZE(gen_Shape(1, 2, 2, 3), Op("Quantize.v2", "x"))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Exp", LET("inner", Op("Exp", "x"))), OK, WrapOp("Exp", "inner"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Sigmoid", "x"), OK, WrapOpAlways("ForceFormat_Flat", Op("Sigmoid.v2", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Pad", "x"), OK,
    ResizeDim(3, ADD(DIM_DEPTH("x"), 2), Op("SlicePad_shape", "x", gen_Shape(0, 0, 0, 1), gen_ShapeOf("*"),
                                            gen_ConstScalar_f32(0.5), gen_ConstArr_vals_i32(1, 2, 3))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Tanh", "x"), OK,
    SELECT(GT(DIM_DEPTH("x"), 2), Op("Tanh.wide", "x"), Op("Tanh.narrow", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, OpVarIn("Concat.pre", "axis", "a"), EQ(INPUTS_OF("*"), 3),
    OP_ITER(Op("Concat", "axis"), "J", 1, 3,
            WITH_SAME_OUTPUT(ITER_INPUT_OF("*", "J"), Op("Relu6", ITER_INPUT_OF("*", "J")))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("TopK", "x"), OK, OpMultiOut(2, 1, "TopK.v2", "x"))
