// The arithmetic of the ground truth: one function per Kernel IR operator
// on Scalars, exactly as docs/SEMANTICS.md states it. Integers wrap in
// two's complement (computed in unsigned); floats are computed in double and
// rounded once to the result dtype (exact for + - * / on every teval float
// type), math functions use the C library's function of the argument's
// precision (float for float32, float16 and bfloat16; double for float64).
// Conditions that have no value (integer division by zero, an out-of-range
// shift or float-to-integer conversion, overflow where it traps) are
// reported through a Fault, never undefined behaviour.
#pragma once

#include "core/error.h"
#include "core/kernel.h"
#include "core/numeric.h"

#include <functional>
#include <string>

namespace teval::core {

/// Why an operation has no value. The caller turns it into an Error with
/// the node's span and the index point.
struct Fault {
  std::string message;
};

/// Calls \p f with the comparison function object of \p op (Lt, Le, Gt,
/// Ge, Eq, Ne): std::less<> and so on, IEEE for doubles. The one mapping
/// from operator to comparison, for scalar and block evaluation alike.
template <class F> decltype(auto) with_comparison(core::Op op, F&& f) {
  switch (op) {
  case core::Op::Lt:
    return f(std::less<>{});
  case core::Op::Le:
    return f(std::less_equal<>{});
  case core::Op::Gt:
    return f(std::greater<>{});
  case core::Op::Ge:
    return f(std::greater_equal<>{});
  case core::Op::Eq:
    return f(std::equal_to<>{});
  case core::Op::Ne:
    return f(std::not_equal_to<>{});
  default:
    break;
  }
  TEVAL_UNREACHABLE("not a comparison: " + std::string(core::spelling(op)));
}

/// Thrown by ExactDiv when the quotient is not an integer: the index point
/// has no value there (Tile's integrality rule).
struct Inexact {
  std::string message;
};

/// Applies a non-lazy operator (everything but And, Or, Not) to \p args,
/// which already have the operand dtype the IR states; the result has
/// dtype \p result. Throws Fault.
core::Scalar apply(core::Op op, const core::Scalar* args, core::DType result,
                   core::Overflow overflow);

/// Converts \p v to \p to (the Cast node). Throws Fault for float-to-integer
/// conversions of NaN or of values out of range.
core::Scalar cast(const core::Scalar& v, core::DType to);

/// Folds \p v into accumulator \p acc for aggregation \p a (not Assign).
core::Scalar combine(core::Aggregation a, const core::Scalar& acc, const core::Scalar& v);

} // namespace teval::core
