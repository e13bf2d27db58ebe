// Rigorous per-element bounds: for every output element, an interval that
// holds the result of every legal evaluation of the program (docs/ORACLE.md
// states the model: which reorderings, wider accumulation, FMA, the error
// allowed to math functions).
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"

#include <map>
#include <optional>
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
  /// A float16 or bfloat16 result may be kept in float32 (excess
  /// precision, as libraries that compute these dtypes in float32 do):
  /// each arithmetic result, each intermediate tensor and each reduction
  /// may be left unrounded to its dtype.
  bool excess_precision = false;
  /// The error allowance of every math function, in ulps of the result
  /// dtype with no absolute part, instead of the documented table.
  std::optional<int64_t> math_ulps;
  /// The same for one function (before math_ulps).
  std::map<core::Op, int64_t> function_ulps;
};

/// How far a math function's result may be from the exact value: `ulps`
/// ulps of the result dtype plus `absolute` units of the precision it is
/// computed in (2^-24 for float32, float16 and bfloat16, which libraries
/// compute in float32; 2^-53 for float64). The absolute part is for
/// implementations whose error is absolute near a zero of the function.
struct MathAllowance {
  int64_t ulps = 0;
  double absolute = 0;
};

/// The allowance of math function \p op: options.function_ulps's or
/// options.math_ulps's when given, else the table in docs/ORACLE.md.
MathAllowance math_allowance(core::Op op, const BoundOptions& options = {});

/// The math function spelt \p name as a program calls it (exp, erf,
/// sigmoid, ...: every operator of math_allowance()'s table). Throws a
/// core::Error naming them all for any other name.
core::Op math_function(std::string_view name);

/// The bounds of one output tensor, row-major.
struct BoundTensor {
  core::DType dtype;
  core::Shape shape;
  std::vector<Interval> elements;
};

/// The bounds of every output of \p kernel on \p inputs (one per input
/// tensor in declaration order). The caller has already run the program:
/// errors of the sequential evaluation are the interpreter's to report.
/// The bytes bounds() keeps for each output element of the reduction it
/// walks (an accumulator).
size_t bound_accumulator_bytes();

/// \p provided gives the bounds of some tensors, computed otherwise (the
/// fast check's): their statements are not walked.
std::vector<BoundTensor> bounds(const core::Kernel& kernel, std::span<const core::Tensor> inputs,
                                const BoundOptions& options = {},
                                std::map<int, std::vector<Interval>> provided = {});

} // namespace teval::oracle
