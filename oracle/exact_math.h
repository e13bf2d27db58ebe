// Correctly rounded math functions: the exact mode's elementwise functions
// and the endpoints of the rigorous bounds, through MPFR.
#pragma once

#include "core/kernel.h"

namespace teval::oracle {

/// Which way a real number is rounded to a dtype.
enum class Rounding : uint8_t {
  Nearest, ///< to nearest, ties to even
  Down,    ///< toward -infinity
  Up,      ///< toward +infinity
};

/// True for the operators computed here: every operator of type rule Float
/// (exp, log, sqrt, rsqrt, the trigonometric and hyperbolic functions,
/// erf, normcdf, sigmoid, remainder, rfloor, rceil, pow).
bool is_math_function(core::Op op);

/// op(x) (op(x, y) for pow) rounded once from the exact real value to
/// floating dtype \p t in direction \p r, with t's subnormals, overflow and
/// IEEE special values (C99 Annex F for the special cases of pow). \p x and
/// \p y are values of \p t. normcdf(x) is 0.5·erfc(-x/√2), sigmoid(x) is
/// 1/(1 + exp(-x)) and remainder(x) is x - floor(x), each as one exact
/// function (Ziv's method: bounds at rising precision until they round
/// alike).
double correctly_rounded(core::Op op, core::DType t, double x, double y = 0,
                         Rounding r = Rounding::Nearest);

/// \p x, any double, rounded to floating dtype \p t in direction \p r.
double round_double(core::DType t, double x, Rounding r);

} // namespace teval::oracle
