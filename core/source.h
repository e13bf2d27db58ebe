// Source texts and spans into them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace teval::core {

/// One source text: a file, a command-line snippet or a text made by
/// expanding another. Always owned by a shared_ptr (see make()), so errors
/// can keep the text alive after the parser that read it is gone.
class SourceFile : public std::enable_shared_from_this<SourceFile> {
public:
  /// A line and column, both 1-based; the column counts bytes.
  struct Location {
    uint32_t line = 0;
    uint32_t column = 0;
  };

  /// A source named \p name (a path or a label such as "<command line>").
  /// \p first_line numbers its first line: a piece of a longer input (an
  /// entry of a REPL script) reports the lines of the whole input.
  static std::shared_ptr<const SourceFile> make(std::string name, std::string text,
                                                uint32_t first_line = 1);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  /// The line and column of byte \p offset (offset == size() is the end).
  Location location(uint32_t offset) const;
  /// The text of line \p line (numbered from first_line), without its
  /// newline.
  std::string_view line(uint32_t line) const;

  SourceFile(std::string name, std::string text, uint32_t first_line = 1);

private:
  std::string name_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
  uint32_t first_line_ = 1;
};

/// A half-open byte range [begin, end) of one source. A default Span is
/// invalid and means "no position".
struct Span {
  const SourceFile* file = nullptr;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool valid() const { return file != nullptr; }
  /// The covered text.
  std::string_view text() const;
  /// The smallest span covering this one and \p other (same file).
  Span to(Span other) const;
};

} // namespace teval::core
