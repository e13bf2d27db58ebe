// clang-format off
// Match expressions: Op, OpVarIn, LET, repeated tags, nesting.
#include "HTP/core/optimize.h"

// 1. The simplest rule: a bypass of an identity op.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Identity", "x"), OK, "x")

// 2. Nested ops and two inputs.
DEF_PACKAGE_OPTIMIZATION(EARLY + 1,
    Op("Add", Op("Relu", "a"), "b"),
    SAME_SHAPE("a", "b"),
    Op("Add", Op("Relu", "a"), "b"))

// 3. A repeated tag: both operands must be one node.
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("Mul", "x", "x"), OK, Op("Square", "x"))

// 4. OpVarIn matches a Concat with any number of further inputs.
DEF_PACKAGE_OPTIMIZATION(EARLY + 3,
    OpVarIn("Concat", "axis", "first"),
    EQ(INPUTS_OF("*"), 2),
    "first")

// 5. LET names the output of an inner op for the constraint and replacement.
DEF_PACKAGE_OPTIMIZATION(MIDDLE,
    Op("Relu", LET("conv", Op("Conv2d", "in", "w"))),
    GT(DIM_DEPTH("conv"), 0),
    Op("ConvRelu", "in", "w"))

// 6. Two LETs, nested.
DEF_PACKAGE_OPTIMIZATION(MIDDLE + 1,
    Op("Neg", LET("outer", Op("Neg", LET("inner", Op("Relu", "x"))))),
    SAME_OP(INPUT_OF("outer", 0), "inner"),
    "inner")

// 7. FROM_DEFAULT_PACKAGE names a built-in op.
DEF_PACKAGE_OPTIMIZATION(LATE,
    Op(FROM_DEFAULT_PACKAGE("Relu6"), "x"),
    IS_FLOAT32("x"),
    Op(FROM_DEFAULT_PACKAGE("ReluMinMax"), "x", gen_ConstScalar_f32(0.0f), gen_ConstScalar_f32(6.0f)))

// 8. OPCONST matches a constant input.
DEF_PACKAGE_OPTIMIZATION(LATE + 1,
    Op("AddScalar", "x", OPCONST("c")),
    EQ(CONSTVAL_FLOAT("c", 0), 0.0f),
    "x")

// 9. An op with no inputs.
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op("Zero"), OK, WrapOp("Zero", gen_ConstArr_f32(0.0, 4)))
