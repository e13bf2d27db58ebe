// clang-format off
// Example HTP optimization rules: two that split an op along a dimension.
// `teval rules verify examples/htp/split_rules.cpp --ops examples/htp/ops.txt`
// finds the first sound and the second unsound.
#include "HTP/core/optimize.h"

// ReLU is elementwise: splitting its output along depth into chunks of 2,
// each computed from the matching slice of the input, changes nothing.
DEF_PACKAGE_OPTIMIZATION(TILING + 100,
                         Op("Relu", "in"),
                         GT(DIM_DEPTH("*"), 2),
                         AUTOSPLIT(3, "I", 2, Op("Relu", TYPICAL_SLICE("in", "I"))))

// Softmax normalises along depth: each chunk is normalised on its own, so
// splitting along depth is wrong.
DEF_PACKAGE_OPTIMIZATION(TILING + 100,
                         Op("Softmax", "in"),
                         GT(DIM_DEPTH("*"), 2),
                         AUTOSPLIT(3, "I", 2, Op("Softmax", TYPICAL_SLICE("in", "I"))))

// Splitting softmax along height is fine: each row is independent.
DEF_PACKAGE_OPTIMIZATION(TILING + 101,
                         Op("Softmax", "in"),
                         GT(DIM_HEIGHT("*"), 1),
                         AUTOSPLIT(1, "I", 1, Op("Softmax", TYPICAL_SLICE("in", "I"))))
