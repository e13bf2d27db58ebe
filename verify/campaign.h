// A differential campaign outside the test runner: `teval diff`.
#pragma once

#include "core/backend.h"
#include "verify/program.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace teval::verify {

struct CampaignOptions {
  int cases = 1000;
  uint64_t seed = 0;
  std::string lang = "antares";
};

/// A program on which the backends disagree, shrunk as far as it goes.
struct Mismatch {
  Program program;
  uint64_t input_seed = 0;
  Disagreement disagreement;
  int shrinks = 0;
};

struct CampaignResult {
  int cases = 0;
  /// Cases some backend could not run (core::Outcome::unsupported).
  int unsupported = 0;
  double seconds = 0;
  std::vector<Mismatch> mismatches;
};

/// Generates options.cases programs (case i from the seed and i, with sizes
/// cycling through 0..99 as RapidCheck's do) and checks each with
/// disagreement() on \p backends. Each disagreement is shrunk and handed to
/// \p report as soon as it is found.
CampaignResult run_campaign(const CampaignOptions& options,
                            const std::vector<core::Backend*>& backends,
                            const std::function<void(const Mismatch&)>& report);

} // namespace teval::verify
