// clang-format off
// Forms measured in public op packages beyond the seed's grammar, each
// accepted with a warning that names it (docs/HTP_RULES.md, "Beyond the
// grammar").
// :::EXTERNAL_SHAPEFN::: { OpRef pad_start(Replacement &rpx, Split_Context const &sc, OpRef const &in); }
// :::EXTERNAL_SHAPEFN::: { OpRef pad_size(Split_Context const &sc, OpRef const &in); }
// :::EXTERNAL_SHAPEFN::: { OpRef grow(OpRef const &in, int by); }

// Op names bound to C identifiers in the same file.
const char *OpName = "Relu";
static const char* const OtherName = "Relu.alt";
DEF_PACKAGE_OP(relu_impl, OpName)
DEF_PACKAGE_OPTIMIZATION(EARLY, Op(OpName, "x"), OK, Op(OtherName, "x"))

// Tensor properties: Outputs names the outputs, "..." every other operand.
DEF_TENSOR_PROPERTIES(Op("Split2", "in"), Outputs("lo", "hi"), Flat("lo", "hi"), MainMemory("in"))
DEF_TENSOR_PROPERTIES(Op("Attn", "q", "k", "v"), Flat("*"), MainMemory("..."))

// Macros that wrap whole rules: the file's, and the header's.
#define RENAME(FROM, TO) DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op(FROM, "x"), OK, Op(TO, "x"))
#define TANH_TO_NEG(F) \
  DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op(F, "x"), IS_FLOAT32("x"), Op("Neg", "x"))
#define HIDDEN(F) static int unused_##F; DEF_PACKAGE_OPTIMIZATION(EARLY, Op(#F, "x"), OK, "x")
RENAME("Foo", "Bar")
RENAME("Baz", "Qux")
TANH_TO_NEG("Tanh")
HIDDEN(Relu)
CONVERT_BINARY_OP_TO_FP16("Mul", "a", "b")

// size_t(...) casts and header macros in constraints.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(size_t(DIM_WIDTH("*")), 4), Op("B", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), AND(IS_QUANT_TYPE("x"), IS_FLOAT32_ALL("*", "x")), Op("B", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x", "y"), IS_FLOAT16_BOTH("x", "y"), Op("B", "x", "y"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), GT(ESTIMATE_TENSOR_SIZE("x"), 1000), Op("B", "x"))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OR(PRODUCER_FOR("x", "Conv"), PRODUCER_FOR("*", "*Output")), Op("B", "x"))

// Header replacement macros.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("A", "x"), GT(DIM_HEIGHT("*"), 1), AUTOTHREAD_HVX(1, "I", Op("A", TYPICAL_SLICE("x", "I"))))
DEF_PACKAGE_OPTIMIZATION(TILING, Op("Conv", "x", "w", "s"), GT(DIM_HEIGHT("*"), 8), AUTOSPLIT(1, "I", 8, Op("Conv", TYPICAL_CONV_SLICE("x", "I", "s", DIM_HEIGHT("w")), "w", "s")))
DEF_PACKAGE_OPTIMIZATION(TILING, Op("DilatedConv", "x", "w", "s"), GT(DIM_HEIGHT("*"), 8), AUTOSPLIT(1, "I", 8, Op("DilatedConv", TYPICAL_CONV_SLICE("x", "I", "s", DIM_HEIGHT("w"), 2), "w", "s")))

// Breaches of the seed's restrictions that shipped SDK examples contain.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Softmax", "x"), GT(DIM_DEPTH("*"), 8), Op("Quantize", AUTOSPLIT(1, "I", 8, Op("Softmax", TYPICAL_SLICE("x", "I")))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("Mul", "x", WITH_SAME_OUTPUT("x", gen_ConstScalar_f32(1.0f))))
// Warned about once per file: these two say nothing.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Tanh", "x"), GT(DIM_DEPTH("*"), 8), Op("Quantize", AUTOSPLIT(1, "I", 8, Op("Tanh", TYPICAL_SLICE("x", "I")))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("B", "x"), OK, Op("Mul", "x", WITH_SAME_OUTPUT("x", gen_ConstScalar_f32(2.0f))))

// Annotations with and without the context parameters.
DEF_PACKAGE_OPTIMIZATION(TILING, Op("A", "x"), GT(DIM_WIDTH("*"), 4), AUTOSPLIT(2, "I", 4, Op("A", AUTOSPLIT_SLICE("x", AUTOSPLIT_SHAPEFN_APPLY(pad_start, "I", "x"), AUTOSPLIT_SHAPEFN_APPLY(pad_size, "I", "x")))))
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x"), OK, Op("Pad", "x", SHAPEFN_APPLY(grow, "x", 2)))
// A rule wrapped by a macro of a header teval does not read: warned about, not read.
MY_PACKAGE_RULE(EARLY, Op("Gelu", "x"), OK, Op("Gelu.fast", "x"))
// Not at file scope, or #defined here: no word.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("C", "x"), OK,
  SELECT(OK, Op("D", "x"), "x"))
static void helper() {
  LOG_OP(Op("Gelu", "x"));
}
#define LOCAL_CPP(x) do { x; } while (0)
LOCAL_CPP(Op("Gelu", "x"))
