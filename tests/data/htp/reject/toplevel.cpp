// Top-level forms.
#define TWO(a, b) ADD(a, b)
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), OK)
DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS(EARLY, Op("Relu", "x"), OK, "x")
DEF_PACKAGE_OP("Relu", impl)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(impl, "Relu", FAST, 7)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS(impl, "Relu", SLOWISH, Flags::RESOURCE_HVY)
DEF_TENSOR_PROPERTIES(Flat("in"), Op("Relu", "in"))
DEF_TENSOR_PROPERTIES(Op("Relu", "in"), Flat("out"), Sideways("in"))
DEF_PACKAGE_PARAM_ORDER("Softmax", "beta", maybe, nullptr, "axis")
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Relu", "x"), GT(TWO(1), 0), "x")
// :::EXTERNAL_SHAPEFN::: OpRef broken annotation
