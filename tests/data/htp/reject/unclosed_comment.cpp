// clang-format off
// A comment that never closes would hide every rule after it.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, "x")
/* forgotten
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu6", "x"), OK, "x")
