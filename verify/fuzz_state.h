// A campaign's state on disk (internal to fuzz.cpp and the merge): the
// settings file, the case log, finding directories, report.json and
// junit.xml.
#pragma once

#include "verify/fuzz.h"

#include <set>
#include <string>

namespace teval::verify::state {

/// The settings as DIR/campaign.txt holds them.
std::string settings_text(const CampaignSettings& s);
CampaignSettings parse_settings(const std::string& text, const std::string& path);

/// One line of DIR/cases.log: "<case> ok|error|skip|lost" or
/// "<case> finding <signature>".
struct LogLine {
  uint64_t index = 0;
  std::string status;
  std::string signature;
};
std::string log_line_text(const LogLine& l);

/// Adds \p l to \p s (counts and finding groups); \p dir holds the
/// findings' directories, whose meta files give each group's details.
void account(FuzzSummary& s, const LogLine& l, const std::string& dir);

/// Reads DIR/cases.log into \p s and \p done (a torn last line, from a
/// campaign killed while writing it, is ignored).
void load_log(const std::string& dir, FuzzSummary& s, std::set<uint64_t>& done);

/// Appends \p l to DIR/cases.log at once (unbuffered).
void append_log(const std::string& dir, const LogLine& l);

/// What a finding directory's meta file records.
struct FindingMeta {
  std::string backend, kind, lang;
  int statements = 0, inputs = 0;
};
void write_meta(const std::string& finding_dir, const FindingMeta& m);
std::optional<FindingMeta> read_meta(const std::string& finding_dir);

/// Rewrites DIR/report.json and DIR/junit.xml (each through a temporary,
/// so a reader never sees half a file).
void write_reports(const std::string& dir, const CampaignSettings& settings, const FuzzSummary& s,
                   bool finished);

/// Writes \p text to \p path through a temporary and a rename.
void write_atomically(const std::string& path, const std::string& text);

} // namespace teval::verify::state
