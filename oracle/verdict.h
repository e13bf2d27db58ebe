// The verdict of `teval check`: is a candidate tensor a legal result of the
// program? Exact, within the rigorous bound, or a mismatch with its worst
// element.
#pragma once

#include "core/tensor.h"
#include "oracle/bounds.h"
#include "oracle/exact_eval.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace teval::oracle {

/// Which rule decides whether an element passes.
enum class Rule : uint8_t {
  Rigorous,  ///< inside the element's rigorous interval (the default)
  Ulp,       ///< within N ulps of the exact result
  Tolerance, ///< |candidate - exact| <= atol + rtol·|exact| (numpy's allclose)
};

/// How a candidate is judged.
struct CheckOptions {
  Rule rule = Rule::Rigorous;
  int64_t ulps = 0;
  double rtol = 0, atol = 0;
};

/// One element of a verdict: where it is and the values there.
struct ElementReport {
  std::vector<int64_t> index;
  core::Scalar candidate;
  core::Scalar exact;
  Interval bound;      ///< the legal values (rigorous rule)
  double ulps = 0;     ///< |candidate - exact| in ulps of the dtype
  double fraction = 0; ///< the error as a share of the bound on its side
  /// The values the element is computed from (filled in for the worst
  /// mismatch by the caller, see dependencies()), and how many in all.
  std::vector<Dependency> depends_on;
  int64_t dependency_count = 0;
};

/// What kind of verdict one output gets.
enum class Status : uint8_t {
  Exact,        ///< bit-equal to the exact or the sequential result
  WithinBound,  ///< every element passes the rule
  Mismatch,     ///< some element does not, or dtype or shape differ
  Inconclusive, ///< no mismatch, but some element has no finite bound and
                ///< is neither the exact nor the sequential value there
};

/// The verdict on one candidate output.
struct OutputVerdict {
  std::string name;
  Status status = Status::Exact;
  /// For a mismatch: "dtype", "shape", "nan" (NaN where none is legal, or a
  /// number where only NaN is), "inf" or "value".
  std::string kind;
  std::string message;        ///< one line saying what is wrong, for a mismatch
  Rule rule = Rule::Rigorous; ///< the rule the elements were judged by
  int64_t elements = 0;
  int64_t mismatches = 0;
  /// Elements whose bound is not finite (an infinity, NaN or no bound at
  /// all is legal there).
  int64_t unbounded = 0;
  /// Elements of a finite exact value whose bound teval cannot make finite
  /// (it admits an infinity or NaN, or anything), where the candidate lies
  /// inside that bound but is neither the exact nor the sequential value:
  /// no verdict either way (rigorous rule only).
  int64_t inconclusive = 0;
  bool exact_match = false;      ///< bit-equal to the exact result
  bool sequential_match = false; ///< bit-equal to the sequential result
  double max_ulps = 0;           ///< largest error in ulps of a passing element
  double max_fraction = 0;       ///< largest share of its bound used
  /// The worst element: the worst mismatch, else (inconclusive) the first
  /// undecided element, else the largest error.
  std::optional<ElementReport> worst;
};

/// The mismatch verdict of a \p candidate for output \p name whose dtype
/// or shape is not the output's (\p dtype, \p shape); nothing when both
/// agree. Needs no evaluation: `teval check` asks it first.
std::optional<OutputVerdict> wrong_type(const std::string& name, const core::Tensor& candidate,
                                        core::DType dtype, const core::Shape& shape);

/// Judges \p candidate against the \p sequential (interpreter) and
/// \p exact results and the \p bound of output \p name.
OutputVerdict judge(const std::string& name, const core::Tensor& candidate,
                    const core::Tensor& sequential, const core::Tensor& exact,
                    const BoundTensor& bound, const CheckOptions& options);

/// The verdicts on \p candidate for output \p name where \p value is the
/// only legal result teval knows (an MLIR function without a kernel: its
/// native references' value): exact, or within options' ulps or tolerance
/// of it; a complex output part by part, as NAME.real and NAME.imag.
std::vector<OutputVerdict> judge_against_value(const std::string& name,
                                               const core::Tensor& candidate,
                                               const core::Tensor& value,
                                               const CheckOptions& options);

/// For a mismatch, fills in the values the worst element of output number
/// \p output of \p kernel is computed from (dependencies()), so it can be
/// redone by hand. Nothing for other verdicts.
void explain(OutputVerdict& verdict, const core::Kernel& kernel,
             std::span<const core::Tensor> inputs, size_t output);

/// "exact", "within-bound", "mismatch" or "inconclusive".
std::string status_name(Status s);

/// The verdict as `teval check` prints it: "NAME: STATUS ..." and, for a
/// mismatch with its values traced, a second line listing them.
std::string describe(const OutputVerdict& v);

/// The distance between two values of floating dtype \p t in units in the
/// last place: the number of values of t from one to the other (0 for
/// equal values, +0 and -0 included).
double ulp_distance(core::DType t, double a, double b);

} // namespace teval::oracle
