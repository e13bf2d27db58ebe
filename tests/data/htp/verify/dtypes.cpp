// clang-format off
// verify ops: standard
// Rules over ops defined for some dtypes only, with teval's standard ops.
#include "HTP/core/optimize.h"

// Sound: the cast defined for float16 inputs only is drawn in float16 (in
// any other dtype it has no definition, as HTP registers it for none).
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Cast_fp16_to_fp32_plain", "x"), OK,
  WITH_OUTPUT_TYPE(DType::Float32, 0, 1.0f, Op("Cast", "x")))

// Changes precision: a QUInt16 sum computed through float16. Quantized
// outputs are compared as the real values they encode, so the rounding of
// float16 is within the bound where the codes themselves differ by many.
DEF_PACKAGE_OPTIMIZATION(EARLY + 1, Op("Add", "a", "b"), IS_QUINT16("a"),
  WITH_SAME_OUTPUT("*", Op("Quantize",
    WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f,
      Op("Add", Op("Dequantize", "a"), Op("Dequantize", "b"))))))

// Unsound: the same through float16 without requantizing changes the type.
DEF_PACKAGE_OPTIMIZATION(EARLY + 2, Op("Sub", "a", "b"), IS_QUINT16("a"),
  WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, Op("Sub", Op("Dequantize", "a"), Op("Dequantize", "b"))))


// Sound: the float16-only cast behind a move from TCM (which keeps its
// input's dtype) is drawn in float16 as well.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("Cast_fp16_to_fp32_plain", Op("flat_from_vtcm", "x")), OK,
  WITH_OUTPUT_TYPE(DType::Float32, 0, 1.0f,
    Op("Cast_fp16_to_fp32_plain", WITH_SAME_OUTPUT("x", Op("flat_from_vtcm", "x")))))
