// clang-format off
// Rules the verifier cannot decide, each with the reason.

// External C++ functions.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EXTERNAL_CONSTRAINT(relu_ok, "x"), Op("Relu6", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, EXTERNAL_REPLACE(fuse_relu))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Relu", SHAPEFN_APPLY(pad_shape, "x")))

// Ops the ops file does not define.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Frobnicate", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Relu.tcm", "x"))

// A constraint no small graph satisfies, but graphs drawn around its
// constant do: the rewrite is found unsound.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(DIM_DEPTH("x"), 1000), Op("Relu6", "x"))
// A nonlinear one no drawn graph satisfies.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(MUL(DIM_DEPTH("x"), DIM_WIDTH("x"), DIM_HEIGHT("x")), 100000), Op("Relu6", "x"))

// HTP's internal numbering of DType.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(INT(DTYPE_OF("x")), 7), "x")
