// Lexical and syntax errors; each rule is read on its own.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x") OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, "x"
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(09, 9), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(4294967296, 0), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, "x"), 1
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, "x") (void)0;
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", ""), OK, Op("Relu", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "a b"), OK, "a b")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Re\\lu", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op(op_name_relu, "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), EQ(DIM_DEPTH("x") + 1, 2), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(-DIM_DEPTH("x"), 2), "x")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, "x", "y")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), IS_QUINT8("x", "y"), "x")
DEF_PACKAGE_OPTIMIZATION
    (EARLY, Op("Relu", "x"), OK, "x")
