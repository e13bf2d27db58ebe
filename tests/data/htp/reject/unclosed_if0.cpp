// clang-format off
// An #if 0 without #endif would hide every rule after it.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, "x")
#if 0
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu6", "x"), OK, "x")
