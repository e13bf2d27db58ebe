// clang-format off
// verify ops: standard
// Rules over HTP and QNN ops verified with teval's standard ops alone (no
// ops file): `teval rules verify FILE`.
#include "HTP/core/optimize.h"

// Sound: addition commutes, on floats and on quantized values (each input's
// real value, the sum requantized into the output's encoding).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Add", "a", "b"), OK, Op("Add", "b", "a"))

// Sound: Relu6 clamps the real value to [0, 6], as ReluMinMax(x, 0, 6) does.
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Relu6", "x"), OK,
  Op("ReluMinMax", "x", gen_ConstScalar_f32(0.0f), gen_ConstScalar_f32(6.0f)))

// Sound: moving the operands to TCM and the result back changes no value,
// each move keeping its operand's type (WITH_SAME_OUTPUT).
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Mul", "a", "b"), OK,
  Op("flat_from_vtcm", Op("Mul", WITH_SAME_OUTPUT("a", Op("flat_to_vtcm", "a")),
                                 WITH_SAME_OUTPUT("b", Op("flat_to_vtcm", "b")))))

// Unsound: without WITH_SAME_OUTPUT the moves of the operands take the
// replaced node's type, its encoding among it, and a move does not
// requantize: the operands' codes are read in the output's encoding.
DEF_PACKAGE_OPTIMIZATION(LATE + 1, Op("Sub", "a", "b"), OK,
  Op("flat_from_vtcm", Op("Sub", Op("flat_to_vtcm", "a"), Op("flat_to_vtcm", "b"))))

// Unsound: quantizing after requantizing rounds twice.
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("Requantize", Op("Quantize", "x")), OK, Op("Quantize", "x"))

// Sound: Softmax with beta 1 is the plain Softmax.
DEF_PACKAGE_OPTIMIZATION(EARLY + 3, Op("Softmax", "x", "beta", "axis"),
  EQ(CONSTVAL_FLOAT("beta", 0), 1.0f), Op("Softmax", "x"))

// Sound: ReLU is elementwise, so splitting it along depth changes nothing.
DEF_PACKAGE_OPTIMIZATION(EARLY + 4, Op("Relu", "x"), GT(DIM_DEPTH("*"), 2),
  AUTOSPLIT(3, "I", 2, Op("Relu", TYPICAL_SLICE("x", "I"))))
