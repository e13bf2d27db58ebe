// clang-format off
// Rules that cannot be evaluated are skipped and reported once per node.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK, EXTERNAL_REPLACE(fuse_relu))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", "x"), GT(OPTION_UINT("tile_height"), 4), Op("Neg.tiled", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Exp", "x"), EXTERNAL_CONSTRAINT(fast_exp_ok, "x"), Op("Exp.fast", "x"))
