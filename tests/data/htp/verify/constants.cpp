// clang-format off
// Plain tags the constraint reads as constants (CONSTVAL_*): HTP matches a
// tag to any node, a Const among them, so they are drawn as constants, the
// elements the constraint compares with constants holding those values.
// Sound: multiplying by a constant one.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("MulScalar", "x", "c"), AND(IS_FLOAT32("x"), EQ(CONSTVAL_FLOAT("c", 0), 1.0f)), "x")
// Sound: clamping float32 values to [0, 6] is Relu6.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("ReluMinMax", "x", "lo", "hi"), AND(IS_FLOAT32("x"), EQ(CONSTVAL_FLOAT("lo", 0), 0.0f), EQ(6.0f, CONSTVAL_FLOAT("hi", 0))), Op("Relu6", "x"))
// Unsound: to [0, 6.5] it is not.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("ReluMinMax", "x", "lo", "hi"), AND(IS_FLOAT32("x"), EQ(CONSTVAL_FLOAT("lo", 0), 0.0f), EQ(CONSTVAL_FLOAT("hi", 0), 6.5f)), Op("Relu6", "x"))
// Sound: the element the constraint reads is the fourth.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("MulScalar", "x", "c"), AND(IS_FLOAT32("x"), CONSTVAL_INT_VALID("c", 3), EQ(CONSTVAL_FLOAT("c", 0), 1.0f)), "x")
