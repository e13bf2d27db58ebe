// Reducing a failing program to the smallest one that still fails, as
// creduce does for C: drop whole statements, outputs and inputs first,
// then simplify expressions, then numbers and shapes, until nothing more
// can go. Every candidate is a program text; one that does not elaborate
// simply does not fail the same way and is not taken.
#pragma once

#include "verify/program.h"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace teval::verify {

struct ShrinkLimits {
  int max_attempts = 2000;
  std::chrono::milliseconds max_time{120'000};
};

struct ShrinkResult {
  Program program;
  int steps = 0;    ///< candidates taken
  int attempts = 0; ///< candidates tried
};

/// Shrinks \p p while \p still_fails holds for the candidate. \p p itself
/// is assumed to fail. MLIR functions are returned as they are.
ShrinkResult shrink(const Program& p, const std::function<bool(const Program&)>& still_fails,
                    const ShrinkLimits& limits = {});

/// The smaller programs one step from \p p, most reducing first: each
/// statement dropped (its output becoming an input where later statements
/// read it), each extra output dropped, each expression replaced by one
/// of its operands or a constant, each integer literal made smaller, each
/// input dimension made smaller. Exposed for tests.
std::vector<Program> shrink_candidates(const Program& p);

/// The statements of an Antares text (split at top-level `;`), trimmed.
std::vector<std::string> antares_statements(const std::string& text);

/// How many statements \p p has (for the campaign's figures): an MLIR
/// function's ops.
int statement_count(const Program& p);

} // namespace teval::verify
