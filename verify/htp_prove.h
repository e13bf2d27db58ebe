// Symbolic verification of HTP optimization rules (`teval rules verify
// --prove`): a rule is proved when, for every shape, graph option and
// input value its constraint admits, the rewritten graph computes the
// original's output bit for bit; refuted with a counterexample the
// sampling evaluator reproduces; or unknown, with the reason. The solver
// (Z3) stays behind this interface: nothing here names it.
#pragma once

#include "parser/htp/htp_rules.h"
#include "rules/htp_ops.h"
#include "verify/htp_verify.h"

#include <optional>
#include <string>

namespace teval::verify::htp {

enum class ProofVerdict { Proved, Refuted, Unknown };

/// "proved", "refuted", "unknown".
const char* proof_verdict_name(ProofVerdict v);

struct ProveOptions {
  /// The solver's time limit per query, in milliseconds.
  unsigned timeout_ms = 10000;
  /// The sampling check run beside the proof: on a proved rule (it must
  /// find no counterexample), on an unknown one (its verdict stands).
  VerifyOptions sampling;
};

struct ProofResult {
  ProofVerdict verdict = ProofVerdict::Unknown;
  /// Unknown: why (a construct outside the fragment the encoding covers, a
  /// solver timeout). Proved: what the proof covers.
  std::string reason;
  /// Wall time spent in the solver, in seconds.
  double solver_seconds = 0;
  /// Refuted: the solver's counterexample as a graph, replayed by the
  /// evaluator (before, after and the difference it shows).
  std::optional<Counterexample> counterexample;
  /// The sampling check's result (proved and unknown rules).
  std::optional<VerifyResult> sampled;
  /// Set when the prover contradicts itself or the sampler (a proved rule
  /// the sampler refutes, a model that does not replay): the verdict is
  /// then unknown and this says what happened.
  std::string inconsistency;
};

/// Proves or refutes one well-formed optimization rule against \p ops.
ProofResult prove_rule(const parser::htp::Rule& rule, const rules::OpSet& ops,
                       const ProveOptions& o);

} // namespace teval::verify::htp
