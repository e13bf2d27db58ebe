// REPL input, apart from the terminal: when an entry is complete, and what
// Tab completes.
#pragma once

#include "core/error.h"
#include "tools/teval/repl_session.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace teval::tools::repl {

/// Where an entry stands after the lines typed so far.
struct EntryState {
  /// False while a bracket or quote is open or the last line ends in a
  /// backslash outside quotes: the entry continues on the next line.
  bool complete = true;
  /// The byte offset of the innermost bracket or quote still open.
  std::optional<size_t> open_at;
};

/// The scan scan_entry describes, made incrementally: each feed() goes on
/// from where the last one stopped, so an entry of n lines is read in time
/// linear in its length however it continues.
class EntryScanner {
public:
  /// Scans the part of \p text not scanned yet; \p text must extend the
  /// text of the previous calls.
  void feed(std::string_view text);
  EntryState state() const;
  /// The offsets of the backslashes that end a line outside brackets and
  /// quotes and are followed by another line: the line continuations.
  const std::vector<size_t>& joins() const { return joins_; }

private:
  std::vector<size_t> open_; // offsets of open brackets
  std::optional<size_t> quote_at_;
  char quote_ = 0;
  bool triple_ = false;
  bool continued_ = false; // the text ends in a backslash and blanks
  size_t next_ = 0;        // where the next feed() starts
  std::vector<size_t> joins_;
};

/// Scans \p text: brackets ( [ {, quotes ' " ` and Python's triple quotes
/// (a backslash escapes the next character inside quotes), `#` comments to
/// the end of the line outside quotes. Closing brackets that match nothing
/// are left to the parser to report.
EntryState scan_entry(std::string_view text);

/// Gathers the lines of an input into entries, numbering lines across the
/// whole input so diagnostics name the line the user typed.
class EntryReader {
public:
  explicit EntryReader(std::string name) : name_(std::move(name)) {}
  /// Adds one line (without its newline). Returns the entry, with its line
  /// continuations joined, once it is complete; null while it continues.
  std::shared_ptr<const core::SourceFile> add(const std::string& line);
  /// True when no entry is in progress.
  bool empty() const { return pending_.empty(); }
  /// Drops the entry in progress.
  void clear() {
    pending_.clear();
    scanner_ = {};
  }
  /// The error for an input that ends with an entry in progress of more
  /// than blanks, pointing at its open bracket or quote (or its last
  /// backslash); nothing otherwise.
  std::optional<core::Error> unfinished() const;

private:
  std::string name_;
  std::string pending_;
  EntryScanner scanner_;
  uint32_t line_no_ = 0;
  uint32_t first_line_ = 1;
};

/// \p text with every backslash that ends a line outside quotes replaced by
/// a space (same length, so positions hold): line continuations.
std::string join_continuations(std::string_view text);

/// The completions of the word that ends \p line (the text before the
/// cursor, on the current line) in \p session: command names after a
/// leading `:`, their arguments (notations, settings, tensor names, .npy
/// paths), `.when/.cast/.call` and the other methods after a `.`, dtypes
/// inside `.cast(`, math functions inside `.call(`, paths inside
/// `load("`, and otherwise tensor names, dtypes and the notation's
/// builtins. Sorted, without duplicates; \p word_start is set to where the
/// completed word begins.
std::vector<std::string> complete(const Session& session, std::string_view line,
                                  size_t& word_start);

/// The longest common prefix of \p words.
std::string common_prefix(const std::vector<std::string>& words);

} // namespace teval::tools::repl
