// `teval fuzz`: a resumable, parallel, sharded campaign of generated
// programs against teval's engines and other compilers. Findings are
// shrunk, grouped by signature and written to disk the moment they are
// found; the campaign's state is a log, so a stopped campaign resumes where
// it stopped. docs/CAMPAIGNS.md describes the directory, report.json
// (schema teval.fuzz/1) and the findings' kinds.
#pragma once

#include "verify/fuzz_case.h"
#include "verify/shrink.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace teval::verify {

/// What defines a campaign's cases and what they test: saved in
/// DIR/campaign.txt by the first run, and taken from there on resume.
struct CampaignSettings {
  CaseSpace space;
  Target target;
  uint64_t shard_index = 0;
  uint64_t shard_count = 1;
};

/// How long this run goes on and how it works.
struct FuzzRun {
  /// Stop once this shard's case numbers 0 .. cases-1 are all done
  /// (including those of earlier runs); nullopt: only `time` stops.
  std::optional<uint64_t> cases;
  /// Stop dispatching after this long (this run's own time).
  std::optional<std::chrono::milliseconds> time;
  int jobs = 1;
  /// Stop dispatching once this many cases of this run have findings
  /// (0: never), as a CI gate that needs only the first does.
  uint64_t stop_after = 0;
  ShrinkLimits shrink;
  /// Print one line per finding and the progress (on a terminal a live
  /// line, else a line every 10 s) to stderr.
  bool verbose = true;
  /// How the reproduce commands name teval.
  std::string teval = "teval";
};

/// One group of findings with the same signature.
struct FindingGroup {
  std::string signature; ///< "<backend>-<kind>-<hash>", the directory name
  std::string backend;
  std::string kind;
  uint64_t count = 0;
  std::vector<uint64_t> cases; ///< case indices, the first ones (at most 20)
  int statements = 0;          ///< of the shrunk program
  int inputs = 0;              ///< of the shrunk program
  std::string lang;
};

/// A campaign's results so far (this run and the earlier ones).
struct FuzzSummary {
  uint64_t cases = 0;              ///< cases run
  uint64_t reference_errors = 0;   ///< of them, programs the interpreter rejects
  uint64_t external_skipped = 0;   ///< of them, not given to the external backend
  uint64_t engine_unsupported = 0; ///< of them, not run by one of teval's engines
  uint64_t unsupported = 0;        ///< of them, declined by the external backend
  std::map<std::string, FindingGroup> findings;
  uint64_t finding_cases = 0; ///< cases with a finding
  double seconds = 0;         ///< this run's time
  uint64_t run_cases = 0;     ///< cases run by this run
  bool interrupted = false;   ///< stopped by SIGINT or SIGTERM
};

/// Reads DIR/campaign.txt: nullopt when there is none. Throws
/// core::Error(Input) when it is malformed.
std::optional<CampaignSettings> load_settings(const std::string& dir);

/// The case's signature: backend, kind, and a hash of the shrunk
/// program's shape (its text with every digit run replaced by `#`, its
/// notation and its inputs' dtypes).
std::string finding_signature(const Program& shrunk, const Disagreement& d);

/// Runs the campaign in \p dir (created, or resumed when it holds one:
/// \p settings must then equal the saved ones). Returns the summary of
/// every run of it; report.json and junit.xml are current on return, and
/// after every finding.
FuzzSummary run_fuzz(const std::string& dir, const CampaignSettings& settings, const FuzzRun& run);

/// Merges the campaign directories \p dirs (shards of one campaign, or
/// runs of the same settings) into \p out: their case logs, findings and a
/// report over all of them. Throws core::Error(Input) when their settings
/// differ in anything but the shard, or when two name one case differently.
FuzzSummary merge_campaigns(const std::vector<std::string>& dirs, const std::string& out);

/// Every file of the campaign directory \p dir (settings, log, findings;
/// not the reports) as one string, for sending it to another machine.
std::string pack_campaign(const std::string& dir);

/// Writes what pack_campaign() packed into \p dir. Throws
/// core::Error(Input) when \p bytes are not a packed campaign.
void unpack_campaign(const std::string& bytes, const std::string& dir);

/// The summary as the command prints it at the end.
std::string summary_text(const FuzzSummary& s, const std::string& dir);

} // namespace teval::verify
