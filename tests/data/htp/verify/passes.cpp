// clang-format off
// Rules verified together, in pass order (teval rules verify --passes): a
// graph is first rewritten by the rules of earlier passes.
// verify flags: --passes
// The early pass folds a double ReLU of a wide tensor, and any double Neg.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", Op("Relu", "x")), GT(DIM_WIDTH("*"), 3), Op("Relu", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", Op("Neg", "x")), OK, "x")
// Unreachable: the early pass always removes its match first.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Neg", Op("Neg", "x")), OK, "x")
// Reachable on narrow tensors only: sound there, the other graphs counted.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Relu", Op("Relu", "x")), OK, Op("Relu", "x"))
// Rules of one pass compete at each node: neither hides the other.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Tanh", "x"), OK, Op("Tanh", "x"))
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Tanh", "x"), OK, Op("Tanh", "x"))
