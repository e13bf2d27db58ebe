// clang-format off
// Match restrictions.
DEF_PACKAGE_OPTIMIZATION(EARLY, LET("y", Op("Relu", "x")), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, "x", OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "*"), OK, Op("Relu6", "*"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", LET("a", Op("Relu", "x")), LET("a", Op("Neg", "y"))), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("a", Op("Neg", "a"))), OK, "a")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", LET("a", "x")), OK, "a")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("Neg", 3)), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(DIM_DEPTH("y"), 1), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Relu6", "z"))
