// clang-format off
// Several comparisons of one extent: a guided draw takes a value every one
// of them admits (the last comparison's own candidates alone had none
// equal to 48, and the rule was unverifiable).
// Sound: Tanh split along a depth of exactly 48.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Tanh", "x"), AND(EQ(DIM_DEPTH("*"), 48), GT(DIM_DEPTH("*"), 16)),
    AUTOSPLIT(3, "I", 16, Op("Tanh", TYPICAL_SLICE("x", "I"))))
// Unsound: Softmax split along the depth it normalises, between 40 and 44.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Softmax", "x"), AND(GE(DIM_DEPTH("*"), 40), LT(DIM_DEPTH("*"), 45), NE(DIM_DEPTH("*"), 42)),
    AUTOSPLIT(3, "I", 16, Op("Softmax", TYPICAL_SLICE("x", "I"))))
