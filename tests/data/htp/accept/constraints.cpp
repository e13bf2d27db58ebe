// clang-format off
// Constraint expressions: every cst form of the grammar.
#include "HTP/core/optimize.h"

// 10. Constants: bool, int, size (U), long (L ignored), float (f), INF.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Relu", "x"),
    AND(OK, true, NOT(false), LT(NEG_INF, 0.5f), GT(INF, -1.331e-2), EQ(12L, 12), EQ(0x10U, 16u)),
    Op("Relu.fp16", "x"))

// 11. Dtype constants and comparisons.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Cast", "x"),
    AND(EQ(DTYPE_OF("x"), DType::QUInt8), NE(DTYPE_OF("*"), DType::Float16)),
    Op("Dequantize", "x"))

// 12. Options of every type.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Relu", "x"),
    AND(GT(OPTION_INT("level"), -1), LE(OPTION_UINT("tile_height"), 64U),
        OPTION_BOOL("enable"), GE(OPTION_FLOAT("scale"), 0.0)),
    Op("Relu6", "x"))

// 13. LAYOUT_CHUNKSIZE of a tensor class.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Relu", "x"),
    EQ(MOD(DIM_DEPTH("x"), LAYOUT_CHUNKSIZE(QUint8CroutonTensor, 3)), 0),
    Op("Relu.crouton", "x"))

// 14. Typecasts.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Relu", "x"),
    AND(GT(UINT(DIM_WIDTH("x")), 1U), LT(INT(STEPSIZE_OF("x")), 4), GT(FLOAT(DIM_HEIGHT("x")), 0.5),
        EQ(DTYPE(INT(DTYPE_OF("x"))), DTYPE_OF("x"))),
    Op("Relu.fp16", "x"))

// 15. Unary operators.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Neg", "x"),
    AND(IS_POW2(DIM_DEPTH("x")), EQ(ABS(NEG(ZERO_OFFSET_OF("x"))), ZERO_OFFSET_OF("x"))),
    Op("Mul", "x", gen_ConstScalar_f32(-1.0)))

// 16. SELECT and ROUNDUP.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Relu", "x"),
    GT(ROUNDUP(SELECT(IS_FLOAT16("x"), DIM_WIDTH("x"), 8), 32), 32),
    Op("Relu.wide", "x"))

// 17. Reductions of many operands.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Add", "a", "b"),
    AND(OR(IS_FLOAT32("a"), IS_FLOAT16("a")), XOR(IS_QUINT8("a"), true),
        GT(ADD(DIM_HEIGHT("a"), DIM_WIDTH("a"), 1), MUL(2, 1)),
        EQ(MIN(DIM_DEPTH("a"), DIM_DEPTH("b")), MAX(DIM_DEPTH("b"), DIM_DEPTH("a")))),
    Op("Add.fast", "a", "b"))

// 18. Binary operators.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Sub", "a", "b"),
    AND(GE(SUB(DIM_DEPTH("a"), 1), 0), EQ(DIV(DIM_DEPTH("a"), 1), DIM_DEPTH("a")),
        EQ(REM(-7, 2), -1), EQ(MOD(-7, 2), 1)),
    Op("Add", "a", Op("Neg", "b")))

// 19. Every comparison.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Relu", "x"),
    AND(EQ(1, 1), NE(1, 2), LT(1, 2), GT(2, 1), LE(1, 1), GE(1, 1)),
    Op("Relu6", "x"))

// 20. Properties of operands.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Relu", "x"),
    AND(EQ(RANK_OF("x"), 4), GT(DIM_OF("x", 3), 0), GT(STEPSIZE_OF("x"), 0.0f),
        EQ(ELEMENTSIZE_OF("x"), 4), EQ(INPUTS_OF("*"), 1), EQ(OUTPUTS_OF("*"), 1),
        GT(SIZE_OF("x"), 0)),
    Op("Relu6", "x"))

// 21. Operand references: INPUT_OF, OUTPUT_OF, SELECT.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Relu", LET("y", Op("Neg", "x"))),
    AND(SAME_OP(INPUT_OF("y", 0), "x"), SAME_OP(OUTPUT_OF("y", 0), "y"),
        SAME_ENCODING(SELECT(IS_FLOAT32("x"), "x", "y"), "*")),
    Op("Relu", "y"))

// 22. Constant values.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("MulScalar", "x", "c"),
    AND(CONSTVAL_INT_VALID("c", 0), EQ(CONSTVAL_INT("c", 0), 1), CONSTVAL_FLOAT_VALID("c", 0),
        EQ(CONSTVAL_FLOAT("c", 0), 1.0)),
    "x")

// 23. An external constraint with scalar parameters.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Relu", "x"),
    EXTERNAL_CONSTRAINT(good_for_hvx, "x", RANK_OF("x"), 2.5f, true),
    Op("Relu.hvx", "x"))

// 24. The dtype macros.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Quantize", "x"),
    OR(IS_QUINT8("*"), IS_QINT8("*"), IS_QUINT16("*"), IS_QINT16("*"), IS_QINT32("*"),
       IS_INT32("*"), IS_FLOAT16("x"), IS_FLOAT32("x"), IS_FLOAT("x")),
    Op("Quantize.any", "x"))

// 25. The dimension macros.
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Conv2d", "in", "w"),
    AND(EQ(DIM_BATCHES("in"), 1), GT(DIM_HEIGHT("in"), 0), GT(DIM_WIDTH("in"), 0),
        EQ(DIM_DEPTH("in"), DIM_FILTDEPTH("w")), GT(DIM_FILTHEIGHT("w"), 0),
        GT(DIM_FILTWIDTH("w"), 0), GT(DIM_NFILTS("w"), 0)),
    Op("Conv2d.valid", "in", "w"))

// 26. SAME_SHAPE and header macros (SAME_QUANT, IS_SCALAR, TILE_HEIGHT).
DEF_PACKAGE_OPTIMIZATION(EARLY,
    Op("Add", "a", "b"),
    AND(SAME_SHAPE("a", "b"), SAME_QUANT("a", "b"), NOT(IS_SCALAR("a")), GT(TILE_HEIGHT, 0)),
    Op("Add.same", "a", "b"))
