// The soundness verifier of HTP optimization rules: random graphs that
// match a rule and satisfy its constraint, evaluated before and after the
// rewrite with the ground-truth interpreter.
#pragma once

#include "core/error.h"
#include "parser/htp/htp_rules.h"
#include "rules/htp_ops.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace teval::verify::htp {

struct VerifyOptions {
  /// Graphs that must agree before a rule is called sound.
  int cases = 50;
  uint64_t seed = 0;
  /// Draws per case before giving up on finding a graph the rule applies to.
  int attempts_per_case = 40;
  /// The rules that run before this one (`teval rules verify --passes`:
  /// the file's optimization rules of earlier priority groups,
  /// rules::run_order). Each graph drawn is first rewritten by them to
  /// their fixed point; a graph on which the rule then applies nowhere is
  /// not a case but counted as rewritten away.
  std::vector<const parser::htp::Rule*> earlier;
};

enum class Verdict { Sound, Unsound, Unverifiable, ChangesPrecision, Unreachable };
/// "sound", "unsound", "unverifiable", "changes-precision", "unreachable".
const char* verdict_name(Verdict v);

/// A graph on which a rule changes the result, shrunk.
struct Counterexample {
  std::string before; ///< the graph (text format), input values as comments
  std::string after;  ///< the graph after the rewrite
  /// What differs: "out[0, 1, 0, 2]: before 0.25, after 0.5", or a shape,
  /// dtype or type error of the rewritten graph.
  std::string difference;
};

/// A rule lowers precision on purpose when it is flagged
/// relaxed_precision_flag or its replacement computes in float16
/// (WITH_OUTPUT_TYPE(DType::Float16, ...), as CAST_TO_FP16 expands). Its
/// outputs may then differ by at most this much, relative to the largest
/// magnitude among the graph's inputs and outputs (16 float16 roundings).
inline constexpr double kPrecisionChangeBound = 1.0 / 128;

struct VerifyResult {
  Verdict verdict = Verdict::Unverifiable;
  /// Graphs checked (for sound and changes-precision: all of them).
  int cases = 0;
  /// For changes-precision: the largest difference seen, relative to the
  /// graph's largest magnitude; the counterexample is that graph.
  double worst_error = 0;
  /// Why a rule is unverifiable, or (unreachable) which earlier rule
  /// rewrote its match away.
  std::string reason;
  /// With VerifyOptions::earlier: graphs the rule applied to that the
  /// earlier rules rewrote so that it applied nowhere (unreachable: all).
  int rewritten_away = 0;
  std::optional<Counterexample> counterexample;
};

/// The ops \p rule's match and replacement construct (`Op`, `OpVarIn`,
/// `WrapOp`) that \p ops does not define: mistakes of the ops file, not
/// verdicts on the rule, one error per op at its first use in the rule
/// (\p ops_name says where definitions were looked for, in the message).
std::vector<core::Diagnostic> undefined_ops(const parser::htp::Rule& rule, const rules::OpSet& ops,
                                            const std::string& ops_name);

/// Verifies one well-formed optimization rule against \p ops.
VerifyResult verify_rule(const parser::htp::Rule& rule, const rules::OpSet& ops,
                         const VerifyOptions& o);

} // namespace teval::verify::htp
