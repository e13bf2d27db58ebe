// Bypass rules: the replaced nodes disappear from the graph.
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op("Identity", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP, Op("Neg", Op("Neg", "x")), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Mul", "x", "x"), IS_FLOAT32("x"), Op("Square", "x"))
