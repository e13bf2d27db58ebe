// Texts handed to a grammar, and where each of their bytes came from.
#include "parser/text.h"

#include "core/error.h"

#include <cctype>
#include <cstring>

namespace teval::parser {

using core::Error;
using core::ErrorKind;
using core::Span;

void MappedText::append(char c, CharOrigin from) {
  text += c;
  origin.push_back(from);
}

void MappedText::append(const MappedText& other) {
  text += other.text;
  origin.insert(origin.end(), other.origin.begin(), other.origin.end());
}

MappedText MappedText::slice(size_t begin, size_t end) const {
  MappedText out;
  out.text = text.substr(begin, end - begin);
  out.origin.assign(origin.begin() + static_cast<std::ptrdiff_t>(begin),
                    origin.begin() + static_cast<std::ptrdiff_t>(end));
  return out;
}

Span TextOrigin::span(size_t begin, size_t end) const {
  if (!mapped_)
    return {file_, static_cast<uint32_t>(base_ + begin), static_cast<uint32_t>(base_ + end)};
  const std::vector<CharOrigin>& o = mapped_->origin;
  if (o.empty())
    return {file_, 0, 0};
  if (begin >= o.size()) {
    uint32_t at = o.back().end;
    return {file_, at, at};
  }
  if (end <= begin)
    return {file_, o[begin].begin, o[begin].begin};
  return {file_, o[begin].begin, std::max(o[begin].begin, o[end - 1].end)};
}

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

} // namespace

DecodedString decode_string_literals(std::string_view raw, uint32_t offset,
                                     const core::SourceFile* file) {
  DecodedString out;
  bool seen_plain = false;
  size_t i = 0;
  auto at = [&](size_t k) { return static_cast<uint32_t>(offset + k); };
  while (i < raw.size()) {
    if (is_space(raw[i])) {
      ++i;
      continue;
    }
    size_t piece_begin = i;
    bool formatted = false, verbatim = false;
    while (i < raw.size() && std::strchr("fFrR", raw[i])) {
      formatted |= raw[i] == 'f' || raw[i] == 'F';
      verbatim |= raw[i] == 'r' || raw[i] == 'R';
      ++i;
    }
    TEVAL_ASSERT(i < raw.size(), "string literal without quotes");
    std::string_view close(&raw[i], 1);
    if (raw.substr(i, 3) == "\"\"\"" || raw.substr(i, 3) == "'''")
      close = raw.substr(i, 3);
    i += close.size();
    if ((formatted && seen_plain) || (!formatted && out.formatted))
      throw Error(ErrorKind::Syntax, Span{file, at(piece_begin), at(i)},
                  "adjacent f-string and plain string literals are not supported; join them "
                  "into one literal");
    out.formatted |= formatted;
    seen_plain |= !formatted;
    while (i < raw.size() && raw.substr(i, close.size()) != close) {
      char c = raw[i];
      if (c != '\\' || verbatim || i + 1 >= raw.size()) {
        out.value.append(c, {at(i), at(i + 1)});
        ++i;
        continue;
      }
      char next = raw[i + 1];
      if (is_space(next)) { // line continuation
        i += 1;
        if (next == '\n')
          i += 1;
        continue;
      }
      char decoded = 0;
      switch (next) {
      case '\\':
      case '\'':
      case '"':
      case '`':
        decoded = next;
        break;
      case 'n':
        decoded = '\n';
        break;
      case 't':
        decoded = '\t';
        break;
      case 'r':
        decoded = '\r';
        break;
      case '0':
        decoded = '\0';
        break;
      default:
        break;
      }
      if (decoded == 0 && next != '0') { // unknown escape: kept as written
        out.value.append('\\', {at(i), at(i + 1)});
        ++i;
        continue;
      }
      out.value.append(decoded, {at(i), at(i + 2)});
      i += 2;
    }
    i += close.size();
  }
  return out;
}

namespace {

enum class Mark {
  Comment,      ///< `#` to the end of the line
  Continuation, ///< a backslash and the whitespace character after it
  LineEnd,      ///< a newline outside brackets and strings: a logical line ends
};

// Walks Python text, skipping string literals, and reports comments, line
// continuations and logical line ends as byte ranges [begin, end).
template <class F> void scan_python(std::string_view text, F on) {
  int depth = 0;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '"' || c == '\'') {
      size_t quote = text.substr(i, 3) == std::string(3, c) ? 3 : 1;
      std::string_view close = text.substr(i, quote);
      i += quote;
      while (i < text.size() && text.substr(i, quote) != close)
        i += text[i] == '\\' ? 2 : 1;
      i = std::min(i + quote, text.size());
      continue;
    }
    if (c == '#') {
      size_t end = std::min(text.find('\n', i), text.size());
      on(Mark::Comment, i, end);
      i = end;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && is_space(text[i + 1])) {
      on(Mark::Continuation, i, i + 2);
      i += 2;
      continue;
    }
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
    else if (c == '\n' && depth == 0)
      on(Mark::LineEnd, i, i + 1);
    ++i;
  }
}

} // namespace

std::string logical_lines(std::string_view text) {
  std::string out(text);
  scan_python(text, [&](Mark m, size_t begin, size_t end) {
    char fill = m == Mark::LineEnd ? ';' : ' ';
    for (size_t k = begin; k < end; ++k)
      out[k] = fill;
  });
  return out;
}

std::vector<LogicalLine> logical_line_ranges(std::string_view text) {
  // Comments and continuations blanked; logical lines end at LineEnd marks.
  std::string blanked(text);
  std::vector<size_t> ends;
  scan_python(text, [&](Mark m, size_t begin, size_t end) {
    if (m == Mark::LineEnd)
      ends.push_back(begin);
    else
      for (size_t k = begin; k < end; ++k)
        blanked[k] = ' ';
  });
  ends.push_back(text.size());
  std::vector<LogicalLine> lines;
  size_t start = 0;
  for (size_t end : ends) {
    uint32_t indent = 0;
    size_t i = start;
    while (i < end && (blanked[i] == ' ' || blanked[i] == '\t')) {
      indent = blanked[i] == '\t' ? (indent / 8 + 1) * 8 : indent + 1;
      ++i;
    }
    size_t last = end;
    while (last > i && is_space(blanked[last - 1]))
      --last;
    if (last > i) // not blank, nor only a comment
      lines.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(last), indent});
    start = end + 1;
  }
  return lines;
}

} // namespace teval::parser
