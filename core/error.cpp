// Diagnostics, the user-error type and internal assertions.
#include "core/error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace teval::core {

namespace {

const char* severity_name(Severity s) {
  switch (s) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

// Lines longer than kLongLine are shown as a window of kExcerpt bytes
// around the caret, so a generated one-line program of megabytes gives a
// readable diagnostic; lines people write are shown whole.
constexpr size_t kLongLine = 400;
constexpr size_t kExcerpt = 320;

bool utf8_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The source line of span.begin and a marker line under the span: a caret
// at the start and tildes to the end of the span or of the line. Tabs are
// copied into the marker so the caret lines up. A long line is cut to
// kExcerpt bytes around the caret (at character boundaries), with `...`
// where text was left out.
std::string excerpt(Span span) {
  SourceFile::Location at = span.file->location(span.begin);
  std::string_view line = span.file->line(at.line);
  size_t col = at.column - 1;
  size_t from = 0, to = line.size();
  if (line.size() > kLongLine) {
    from = col > kExcerpt / 4 ? col - kExcerpt / 4 : 0;
    to = std::min(line.size(), from + kExcerpt);
    while (from > 0 && from < line.size() && utf8_continuation(line[from]))
      --from;
    while (to < line.size() && utf8_continuation(line[to]))
      ++to;
  }
  std::string_view prefix = from > 0 ? "..." : "";
  std::string out(prefix);
  out += line.substr(from, to - from);
  if (to < line.size())
    out += "...";
  out += '\n';
  out.append(prefix.size(), ' ');
  for (size_t i = from; i < col && i < to; ++i)
    out += line[i] == '\t' ? '\t' : ' ';
  out += '^';
  size_t width = span.end > span.begin ? span.end - span.begin : 1;
  for (size_t i = col + 1; i < col + width && i < to; ++i)
    out += '~';
  out += '\n';
  return out;
}

} // namespace

std::string render(const Diagnostic& d) {
  std::string out;
  if (d.span.valid()) {
    SourceFile::Location at = d.span.file->location(d.span.begin);
    out += d.span.file->name();
    out += ':';
    out += std::to_string(at.line);
    out += ':';
    out += std::to_string(at.column);
    out += ": ";
  } else if (!d.path.empty()) {
    out += d.path;
    out += ": ";
  }
  out += severity_name(d.severity);
  out += ": ";
  out += d.message;
  out += '\n';
  if (d.span.valid())
    out += excerpt(d.span);
  return out;
}

Error::Error(ErrorKind kind, Span span, std::string message)
    : kind_(kind), main_{Severity::Error, span, {}, std::move(message)} {
  keep(span);
}

Error::Error(ErrorKind kind, std::string path, std::string message)
    : kind_(kind), main_{Severity::Error, {}, std::move(path), std::move(message)} {}

Error& Error::note(Span span, std::string message) {
  keep(span);
  notes_.push_back({Severity::Note, span, {}, std::move(message)});
  return *this;
}

Error& Error::note(std::string message) {
  notes_.push_back({Severity::Note, {}, {}, std::move(message)});
  return *this;
}

std::string Error::render() const {
  std::string out = core::render(main_);
  for (const Diagnostic& n : notes_)
    out += core::render(n);
  return out;
}

void Error::keep(Span span) {
  if (span.valid())
    sources_.push_back(span.file->shared_from_this());
}

void assertion_failed(const char* condition, const char* file, int line,
                      const std::string& message) {
  std::fprintf(stderr, "teval: internal error: %s (%s) at %s:%d\n", message.c_str(), condition,
               file, line);
  std::abort();
}

} // namespace teval::core
