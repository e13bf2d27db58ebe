// Texts handed to a grammar, and where each of their bytes came from.
//
// A COMPUTE_V1 wrapper holds the einstein_v2 program inside a Python string
// literal, possibly an f-string with `{expr}` fields. The program is parsed
// from the decoded text; every byte of that text remembers the source range
// it came from (an escape sequence, a field, or itself), so diagnostics
// point into the file the user wrote.
#pragma once

#include "core/source.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace teval::parser {

/// The source range one byte of a derived text came from.
struct CharOrigin {
  uint32_t begin = 0;
  uint32_t end = 0;
};

/// A text and the origin of each of its bytes.
struct MappedText {
  std::string text;
  std::vector<CharOrigin> origin;

  void append(char c, CharOrigin from);
  void append(const MappedText& other);
  /// Bytes [begin, end) with their origins.
  MappedText slice(size_t begin, size_t end) const;
};

/// Maps byte ranges of a text being parsed back to spans of its source:
/// either the text is a slice of the file starting at `base`, or each byte
/// has an explicit origin.
class TextOrigin {
public:
  /// The text is the file's bytes from offset \p base on.
  TextOrigin(const core::SourceFile* file, uint32_t base) : file_(file), base_(base) {}
  /// The text is \p mapped (which must outlive this object).
  TextOrigin(const core::SourceFile* file, const MappedText* mapped)
      : file_(file), mapped_(mapped) {}

  /// The span of text bytes [begin, end); an empty range is a point.
  core::Span span(size_t begin, size_t end) const;
  const core::SourceFile* file() const { return file_; }

private:
  const core::SourceFile* file_;
  uint32_t base_ = 0;
  const MappedText* mapped_ = nullptr;
};

/// One or more adjacent Python string literals (`"a" f'{b}'`, `"""..."""`,
/// or einstein_v2's backquoted `` `float32` ``), decoded.
struct DecodedString {
  MappedText value;
  bool formatted = false;
};

/// Decodes the literal text \p raw found at source offset \p offset.
/// Escapes: \\ \' \" \` \n \t \r \0; a backslash before a newline or other
/// whitespace is a line continuation and disappears (so text whose newlines
/// were flattened into spaces still reads); any other backslash is kept, as
/// Python does. Prefixes f/F mark f-strings; r/R turns escapes off. Throws
/// Error(Syntax) when f-strings and plain strings are mixed.
DecodedString decode_string_literals(std::string_view raw, uint32_t offset,
                                     const core::SourceFile* file);

/// Python-like line handling for a preamble: outside string literals,
/// `#` comments become spaces, a backslash before whitespace becomes a space,
/// and a newline outside brackets becomes `;`. The result has the same
/// length as \p text, so offsets are unchanged.
std::string logical_lines(std::string_view text);

/// One logical line of Python text: bytes [begin, end) (brackets and
/// backslashes may join physical lines), and the indentation of its first
/// physical line in columns (a tab advances to the next multiple of 8).
struct LogicalLine {
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t indent = 0;
};

/// The non-blank logical lines of \p text (lines holding only a comment are
/// blank), in order.
std::vector<LogicalLine> logical_line_ranges(std::string_view text);

} // namespace teval::parser
