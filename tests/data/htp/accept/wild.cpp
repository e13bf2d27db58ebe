// clang-format off
// Forms used in public op packages that the seed grammar does not list.
#include "HTP/core/optimize.h"
#include "HTP/core/op_register_ext.h"

#define MY_RELU(X) Op("Relu", X)
#define MY_LIMIT 64
#define NOT_A_RULE_EXPRESSION(x) do { x++; } while (0)

// :::EXTERNAL_SHAPEFN::: { OpRef unused_fn(Replacement &rpx, OpRef const &in); }

template <typename T> int impl(T& out, const T& in);

// 46. Op registrations.
DEF_PACKAGE_OP((impl<PlainFloatTensor>), "Relu")
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((impl<Tensor>), "Relu.fp16", FAST, Flags::RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(relu_const, "Relu.const", SNAIL, Flags::RESOURCE_HVX, Flags::IS_CONST)
DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS((softmax_impl<Tensor>), "Softmax", softmax_cost, Flags::RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((impl<QuantUint8Tensor>), "Relu.q8", "SNAIL", Flags::RESOURCE_HVX)

// 51. Tensor properties and parameter order.
DEF_TENSOR_PROPERTIES(Op("Relu", "in"), Flat("*", "in"), MainMemory("in"), Tcm("*"))
DEF_TENSOR_PROPERTIES(Op("Softmax.tcm", "in", "beta"), Crouton("in"), Outputs("*"))
DEF_PACKAGE_PARAM_ORDER("Softmax", "beta", false, nullptr, "axis", false, &default_axis)

// 54. Relaxed-precision rules.
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY + 5, relaxed_precision_flag,
    Op("Relu", "x"),
    IS_FLOAT32("x"),
    MAKE_OP_FP16_AND_INSERT_CAST(Op("Relu.fp16", CAST_TO_FP16("x"))))

// 55. Newer pass names, and the legacy EARLY - k seen in the wild (a warning).
DEF_PACKAGE_OPTIMIZATION(CLEANUP_GRAPH + 50, Op("Identity", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(TILING + 100, Op("Identity.t", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(HARD_OPS + 130, Op("Identity.h", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY - 2, Op("Identity.e", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(QNN_PRE_PASS, Op("Identity.q", "x"), OK, "x")

// 60. The file's own macros, comments between tokens, adjacent strings, a
// package-qualified opstring, and text after the rule that is ignored.
DEF_PACKAGE_OPTIMIZATION(LATE /* after everything */ + 1000,
    MY_RELU("x"), // the file's macro
    LE(DIM_DEPTH("x"), MY_LIMIT),
    Op("q::flat" "_to_vtcm", "x")) ; static_assert(true, "ignored");

// 61. Octal constants: 07 is fine, 010 is 8 (a warning).
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Relu", "x"), AND(EQ(07, 7), EQ(010, 8)), Op("Relu.oct", "x"))

// 62. DEF_OPT, the HTP-core form (a warning).
DEF_OPT(TILING, Op("Relu.o", "x"), OK, "x")
  DEF_PACKAGE_OPTIMIZATION(LATE, Op("Indented", "x"), OK, "x")

// A rule macro not at the start of a line is not read (a warning):
int x; DEF_PACKAGE_OPTIMIZATION(LATE, Op("Hidden", "x"), OK, "x")
/* Nor one inside a comment:
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Commented", "x"), OK, "x")
*/
#if 0
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Disabled", "x"), OK, "x")
#endif
