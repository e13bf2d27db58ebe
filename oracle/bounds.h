// Rigorous per-element bounds: for every output element, an interval that
// holds the result of every legal evaluation of the program (docs/ORACLE.md
// states the model: which reorderings, wider accumulation, FMA, the error
// allowed to math functions).
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"

#include <span>
#include <vector>

namespace teval::oracle {

/// The values one element may take over every legal evaluation: the closed
/// range [lo, hi] (endpoints are values of the dtype, possibly infinite),
/// plus NaN when `nan` is set. `any` means nothing could be proven: a
/// reordering, an index or a branch depends on rounding in a way the model
/// cannot bound, so every value is possible.
struct Interval {
  core::Scalar lo;
  core::Scalar hi;
  bool nan = false;
  bool any = false;

  /// The one value \p v (NaN gives the NaN-only interval).
  static Interval point(const core::Scalar& v);
  /// Every value of \p t.
  static Interval everything(core::DType t);
  /// No number, only (possibly) NaN.
  bool no_number() const;
  /// A single value, no NaN.
  bool singleton() const;
  /// True when \p v is one of the values (NaN included when allowed).
  bool contains(const core::Scalar& v) const;
};

/// What the model allows besides the program's own roundings.
struct BoundOptions {
  /// A product that is a term of a sum or an operand of + or - may be fused
  /// into it (not rounded on its own).
  bool fma = false;
  /// Overrides the per-function error allowance of math functions, in
  /// ulps of the result dtype (negative: the documented table).
  int math_ulps = -1;
};

/// The allowance, in ulps of \p t, of math function \p op when
/// options.math_ulps is negative: the table in docs/ORACLE.md.
int math_allowance(core::Op op);

/// The bounds of one output tensor, row-major.
struct BoundTensor {
  core::DType dtype;
  core::Shape shape;
  std::vector<Interval> elements;
};

/// The bounds of every output of \p kernel on \p inputs (one per input
/// tensor in declaration order). The caller has already run the program:
/// errors of the sequential evaluation are the interpreter's to report.
std::vector<BoundTensor> bounds(const core::Kernel& kernel, std::span<const core::Tensor> inputs,
                                const BoundOptions& options = {});

} // namespace teval::oracle
