// Pass specs.
DEF_PACKAGE_OPTIMIZATION(EARLY + 1U, Op("Relu", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(EARLY + 0x10, Op("Relu", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(DType::Float32, Op("Relu", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION("EARLY", Op("Relu", "x"), OK, "x")
DEF_PACKAGE_OPTIMIZATION(3050, Op("Relu", "x"), OK, "x")
