// clang-format off
// verify ops: standard
// Rules whose constants and encodings chance almost never meets, with teval's
// standard ops (the SDK's Relu example's rules among them).
#include "HTP/core/optimize.h"

// Sound: a tag the replacement reads with CONSTVAL_FLOAT is a constant (as
// an input it would have no value to read).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("ReluX", "X", "Max"), OK,
  Op("ReluMinMax", "X", gen_ConstScalar_f32(0.0f), gen_ConstScalar_f32(CONSTVAL_FLOAT("Max", 0))))

// Sound: a clamp whose bounds lie outside what the encoding holds is
// dropped. The bounds compared with the encoding's range are drawn far past
// it (small constants never are).
#define MIN_QU8_CHECK(X) MUL(STEPSIZE_OF(X), MUL(-1.0f, ZERO_OFFSET_OF(X)))
#define MAX_QU8_CHECK(X) MUL(STEPSIZE_OF(X), SUB(255.0f, ZERO_OFFSET_OF(X)))
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("ReluMinMax", "In", "Min", "Max"),
  AND(IS_QUINT8("In"), IS_QUINT8("*"), SAME_QUANT("In", "*"),
      GE(MIN_QU8_CHECK("In"), CONSTVAL_FLOAT("Min", 0)),
      LE(MAX_QU8_CHECK("In"), CONSTVAL_FLOAT("Max", 0))),
  "In")

// Unsound: clamping in the input's encoding and then requantizing rounds
// twice. Its constraint negates SAME_QUANT, which draws that make the
// encodings equal never meet.
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("ReluMinMax", "X", "Min", "Max"),
  AND(IS_QUINT8("X"), IS_QUINT8("*"), NOT(SAME_QUANT("X", "*"))),
  Op("Requantize", WITH_SAME_OUTPUT("X", Op("ReluMinMax", "X", "Min", "Max"))))
