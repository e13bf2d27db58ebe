// clang-format off
// AUTOSPLIT along depth with TYPICAL_SLICE; a broadcast input keeps its
// single slice.
DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("Relu", "x"),
    GT(DIM_DEPTH("*"), 2),
    AUTOSPLIT(3, "I", 2, Op("Relu", TYPICAL_SLICE("x", "I"))))
DEF_PACKAGE_OPTIMIZATION(TILING,
    Op("Add", "a", "b"),
    GT(DIM_WIDTH("*"), 2),
    AUTOSPLIT(2, "W", 2, Op("Add", TYPICAL_SLICE("a", "W"), TYPICAL_SLICE("b", "W"))))
