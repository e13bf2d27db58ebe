// `teval gen`: a corpus of generated cases with inputs and expected
// results, for another compiler's own test harness (docs/CAMPAIGNS.md
// gives the layout and the manifest's schema, teval.gen/1).
#pragma once

#include "verify/fuzz_case.h"

#include <cstdint>
#include <functional>
#include <string>

namespace teval::verify {

/// Which cases a corpus holds: case k of this shard is case
/// shard_index + shard_count * k of the space, for k < cases.
struct CorpusOptions {
  CaseSpace space;
  uint64_t cases = 100;
  uint64_t shard_index = 0;
  uint64_t shard_count = 1;
};

/// The directory name of case \p index: "case-000042".
std::string case_id(uint64_t index);

/// Writes case \p c into root/case_id(c.index)/ (program files, inputs,
/// expected outputs or the expected error, bounds) and returns its entry
/// of the manifest, a JSON object. Paths in the entry are relative to
/// \p root.
std::string export_case(const Case& c, const std::string& root);

/// Writes every case of \p options into \p root and root/manifest.json
/// (last, so a manifest lists only finished cases). The same options give
/// the same bytes. \p progress is called after each case with the number
/// done.
void write_corpus(const CorpusOptions& options, const std::string& root,
                  const std::function<void(uint64_t)>& progress = {});

} // namespace teval::verify
