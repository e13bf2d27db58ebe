// Source texts and spans into them.
#include "core/source.h"

#include "core/error.h"

#include <algorithm>

namespace teval::core {

SourceFile::SourceFile(std::string name, std::string text, uint32_t first_line)
    : name_(std::move(name)), text_(std::move(text)), first_line_(first_line) {
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n')
      line_starts_.push_back(i + 1);
}

std::shared_ptr<const SourceFile> SourceFile::make(std::string name, std::string text,
                                                   uint32_t first_line) {
  return std::make_shared<const SourceFile>(std::move(name), std::move(text), first_line);
}

SourceFile::Location SourceFile::location(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());
  return {line + first_line_ - 1, offset - line_starts_[line - 1] + 1};
}

std::string_view SourceFile::line(uint32_t line) const {
  line = line + 1 - first_line_;
  TEVAL_ASSERT(line >= 1 && line <= line_starts_.size(), "line out of range");
  uint32_t begin = line_starts_[line - 1];
  uint32_t end = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
  std::string_view view(text_);
  std::string_view text = view.substr(begin, end - begin);
  if (!text.empty() && text.back() == '\r')
    text.remove_suffix(1);
  return text;
}

std::string_view Span::text() const {
  if (!valid())
    return {};
  return std::string_view(file->text()).substr(begin, end - begin);
}

Span Span::to(Span other) const {
  if (!valid())
    return other;
  if (!other.valid())
    return *this;
  TEVAL_ASSERT(file == other.file, "joining spans of different files");
  return {file, std::min(begin, other.begin), std::max(end, other.end)};
}

} // namespace teval::core
