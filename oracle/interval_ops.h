// What the bounds are computed with: directed double arithmetic (rounded
// toward -inf or +inf through error-free transformations), hulls of
// intervals, and the bounds of math functions over intervals.
#pragma once

#include "oracle/bounds.h"

#include <cstdint>

namespace teval::oracle {

/// The next double below and above \p x.
double down(double x);
double up(double x);
/// a + b and a·b rounded toward -inf (down) or +inf (up).
double add_down(double a, double b);
double add_up(double a, double b);
double mul_down(double a, double b);
double mul_up(double a, double b);

/// \p v as a Scalar of floating dtype \p t (rounded to nearest).
core::Scalar fl(core::DType t, double v);

/// \p x (a value of dtype \p t) moved outward by \p k ulps of t, an ulp
/// taken in x's own binade.
double widen(core::DType t, double x, int64_t k, bool toward_up);
/// \p x moved outward by a math function's allowance: its ulps as above,
/// then its absolute part.
double widen(core::DType t, double x, const MathAllowance& allowance, bool toward_up);

/// The values of floating dtype \p t inside [lo, hi] (its ends rounded
/// inward), or with \p outward the values of t around it (rounded
/// outward: a float32 value inside lies between them).
Interval values_between(core::DType t, double lo, double hi, bool outward);

/// The smallest interval holding every value of \p a and of \p b.
Interval hull(const Interval& a, const Interval& b);
/// \p v, with NaN possible too when \p nan.
Interval with_nan(Interval v, bool nan);

/// Every result of unary math function \p op of dtype \p t over \p x,
/// within its allowance (math_allowance()).
Interval math_bound(core::Op op, core::DType t, const Interval& x, const BoundOptions& options);
/// Every result of pow over \p x and \p y, with C99's special cases.
Interval pow_bound(core::DType t, const Interval& x, const Interval& y,
                   const BoundOptions& options);
/// Every result of atan2 (the angle of the point (\p y, \p x), C99's
/// special cases) over the box \p y × \p x.
Interval atan2_bound(core::DType t, const Interval& y, const Interval& x,
                     const BoundOptions& options);

/// The bound of a term of a float sum that is node \p e, applying \p a to
/// the values \p operands (a product, fused into the sum with
/// options.fma): what the walk computes for it.
Interval fused_term(const core::ExprNode& e, const core::Apply& a, const core::Scalar* operands,
                    const BoundOptions& options);

} // namespace teval::oracle
