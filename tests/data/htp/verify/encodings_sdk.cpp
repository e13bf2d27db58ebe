// clang-format off
// verify ops: standard
// Patterns of the SDK's Softmax example's rules, with teval's standard ops.
#include "HTP/core/optimize.h"

// Sound: a step size the constraint bounds between two constants is drawn
// between them (here about 1/256, which chance never meets), with a zero
// offset of 0.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Requantize", "x"),
  AND(IS_QUINT8("x"), IS_QUINT8("*"), EQ(ZERO_OFFSET_OF("*"), 0),
      GT(DIV(STEPSIZE_OF("*"), DIV(1, 256.0f)), 0.995f),
      LT(DIV(STEPSIZE_OF("*"), DIV(1, 256.0f)), 1.005f)),
  Op("Requantize", WITH_SAME_OUTPUT("x", Op("ForceFormat_Flat", "x"))))

// Changes precision: computing in a fixed quantized encoding and then
// requantizing rounds twice, on purpose (the SDK's Softmax does so); the
// intermediate encoding's range holds every sum.
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Add", "a", "b"), IS_QUINT8("a"),
  Op("Requantize", WITH_OUTPUT_TYPE(DType::QInt32, 0, 0.25f, Op("Add", "a", "b"))))

// Sound: a Concat's axis operand is a constant, drawn as one. (Of float
// tensors: teval's Concat copies quantized codes as they are, so inputs of
// different encodings make it unsound.)
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("Relu", Op("Concat", "axis", "a", "b")), IS_FLOAT32("a"),
  Op("Concat", "axis", WITH_SAME_OUTPUT("a", Op("Relu", "a")), WITH_SAME_OUTPUT("b", Op("Relu", "b"))))
