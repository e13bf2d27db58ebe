// Passes run in priority order, each to a fixed point: A becomes B early,
// B becomes C late; the C -> D rule belongs to an earlier pass and never
// sees a C.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("B", "x"), OK, Op("C", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("C", "x"), OK, Op("D", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("B", "x"))
