// clang-format off
// Replacement expressions: every repl form of the grammar.
#include "HTP/core/optimize.h"

// :::EXTERNAL_SHAPEFN::: { OpRef pad_shape(Replacement &rpx, OpRef const &in, int pad); }
// :::EXTERNAL_SHAPEFN::: { OpRef conv_split_start_valid(Replacement &rpx, Split_Context const &splitinfo, OpRef const &in); }
// :::EXTERNAL_SHAPEFN::: { OpRef fuse_everything(Replacement &rpx, OpDef const &oldop); }

// 27. Operand() is the same as the bare tag.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Identity", "x"), OK, Operand("x"))

// 28. WrapOp and WrapOpAlways.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, WrapOp("ForceFormat_Flat", Op("Relu", "x")))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu6", "x"), OK, WrapOpAlways("ForceFormat_Flat", Op("Relu6", "x")))

// 30. Shapes and constants.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Pad", "x"),
    OK,
    Op("SlicePad_shape", "x", gen_Shape(0, 1, 1, 0), gen_ShapeOf("x"), gen_ShapeOf("*"),
       gen_ConstScalar_f32(0.0), gen_ConstScalar_i32(ZERO_OFFSET_OF("x"))))
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Lut", "x"),
    OK,
    Op("TableLookup", "x", gen_ConstArr_f32(STEPSIZE_OF("x"), 256), gen_ConstArr_i32(3, 4),
       gen_ConstArr_vals_i32(1, 2, 3, DIM_DEPTH("x"))))

// 32. AUTOSPLIT with the split variables.
DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("Relu", "x"),
    GT(DIM_HEIGHT("*"), 8),
    AUTOSPLIT(1, "I", 8,
        WITH_SIZE(gen_Shape(DIM_BATCHES("*"), SPLIT_SIZE("I"), DIM_WIDTH("*"), DIM_DEPTH("*")),
            Op("Relu", Op("Slice_shape", "x",
                gen_Shape(0, SPLIT_START("I"), 0, MUL(0, SPLIT_DIM("I"))),
                gen_Shape(DIM_BATCHES("x"), SPLIT_SIZE("I"), DIM_WIDTH("x"), DIM_DEPTH("x")))))))

// 33. OP_ITER builds a Concat input by input.
DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("Relu", "In"),
    EQ(DIM_HEIGHT("In"), 16),
    OP_ITER(Op("Concat", gen_ConstScalar_i32(1)), "I", 0, 2,
        WITH_SIZE(gen_Shape(1, 8, DIM_WIDTH("In"), DIM_DEPTH("In")),
            Op("Relu",
                WITH_SIZE(gen_Shape(1, 8, DIM_WIDTH("In"), DIM_DEPTH("In")),
                    Op("Slice_shape", "In", gen_Shape(0, MUL(ITER_VAR("I"), 8), 0, 0),
                       gen_Shape(1, 8, DIM_WIDTH("In"), DIM_DEPTH("In"))))))))

// 34. OP_ITER over the inputs of an existing op.
DEF_PACKAGE_OPTIMIZATION(TILING,
    OpVarIn("Concat", "axis", "a"),
    OK,
    OP_ITER(Op("Concat", "axis"), "J", 1, INPUTS_OF("*"), Op("Relu", ITER_INPUT_OF("*", "J"))))

// 35. SELECT between replacements, and between AUTOSPLITs at the root.
DEF_PACKAGE_OPTIMIZATION(LATE,
    Op("Relu", "x"),
    OK,
    SELECT(IS_FLOAT16("x"), Op("Relu.fp16", "x"), SELECT(IS_QUINT8("x"), Op("Relu.q8", "x"), "x")))
DEF_PACKAGE_OPTIMIZATION(LATE,
    Op("Exp", "x"),
    GT(DIM_DEPTH("*"), 32),
    SELECT(GT(DIM_WIDTH("*"), 8),
        AUTOSPLIT(2, "W", 8, Op("Exp", TYPICAL_SLICE("x", "W"))),
        AUTOSPLIT(3, "D", 32, Op("Exp", TYPICAL_SLICE("x", "D")))))

// 37. The modifiers.
DEF_PACKAGE_OPTIMIZATION(LATE,
    Op("Quantize", "x"),
    OK,
    WITH_SAME_OUTPUT("*",
        WITH_OUTPUT_TYPE(DType::QUInt8, 128, 0.0625f,
            WITH_TYPE("*", WITH_SIZE("x", Op("Quantize.v2", "x"))))))
DEF_PACKAGE_OPTIMIZATION(LATE,
    Op("Split", "x"),
    OK,
    WITH_SAME_ID("*", WITH_MULTI_OUT(2, ResizeDim(3, 4, Op("Split.v2", "x")))))
DEF_PACKAGE_OPTIMIZATION(LATE,
    Op("Relu", "x"),
    OK,
    WITH_SPLIT_HISTORY("*", WITH_SPLIT_HISTORY("x", 1, Op("Relu.v2", "x"))))

// 40. External functions.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Pad", "x"), OK, Op("Pad.v2", "x", SHAPEFN_APPLY(pad_shape, "x", 2)))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Fused", "x"), OK, EXTERNAL_REPLACE(fuse_everything))
DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("Conv2d", "in", "w"),
    GT(DIM_HEIGHT("*"), 8),
    AUTOSPLIT(1, "H", 8,
        Op("Conv2d",
            AUTOSPLIT_SLICE("in",
                AUTOSPLIT_SHAPEFN_APPLY(conv_split_start_valid, "H", "in"),
                gen_Shape(DIM_BATCHES("in"), ADD(SPLIT_SIZE("H"), 2), DIM_WIDTH("in"), DIM_DEPTH("in"))),
            "w")))

// 43. The slice macros.
DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("Add", "a", "b"),
    GT(DIM_DEPTH("*"), 32),
    AUTOSPLIT(3, "I", 32, Op("Add", TYPICAL_SLICE("a", "I"), TYPICAL_SLICE("b", "I"))))
DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("Transpose", "x"),
    GT(DIM_WIDTH("*"), 8),
    AUTOSPLIT(2, "I", 8, Op("Transpose", CHANGEDIM_SLICE("x", "I", 1))))

// 45. OpMultiOut picks one output of a two-output op.
DEF_PACKAGE_OPTIMIZATION(LATE,
    Op("TopK", "x"),
    OK,
    OpMultiOut(2, 0, "TopK.v2", "x", gen_ConstScalar_i32(1)))
