// Each rewrite creates another match: no fixed point.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, Op("Relu", WrapOpAlways("Relu", "x")))
