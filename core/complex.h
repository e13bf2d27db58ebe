// Complex arithmetic and functions: StableHLO's complex64 and complex128
// (docs/SEMANTICS.md, "Complex numbers"). Each function computes in double
// from the operands' parts and rounds each part of the result once to the
// parts' dtype; complex64's add, subtract and multiply round each real
// operation to float32, as the part arithmetic of numpy and StableHLO's
// reference interpreter does. Nothing here has undefined behaviour.
#pragma once

#include "core/kernel.h"
#include "core/numeric.h"

namespace teval::core {

/// A complex number in double precision.
struct Complex {
  double re = 0;
  double im = 0;
};

/// The complex operators of the Kernel IR that apply() takes for complex
/// operands: + - * / neg abs (a float result), max, min (lexicographic),
/// the comparisons (==, != of both parts; the others lexicographic),
/// exp, log, sqrt, rsqrt, sin, cos, tan, tanh, sinh (-i sin(iz)), cosh
/// (cos(iz)), sigmoid and pow.
Scalar complex_apply(Op op, const Scalar* args, DType result);

/// The functions only MLIR functions' native references call.
Complex complex_expm1(Complex z);
Complex complex_log1p(Complex z);
Complex complex_cbrt(Complex z);
/// StableHLO's complex atan2(y, x): -i log((x + iy) / sqrt(x^2 + y^2)).
Complex complex_atan2(Complex y, Complex x);
/// z / |z|; 0 for 0, NaN in both parts when a part is NaN.
Complex complex_sign(Complex z);

/// \p z's parts rounded to complex dtype \p t's.
Scalar complex_result(DType t, Complex z);

} // namespace teval::core
