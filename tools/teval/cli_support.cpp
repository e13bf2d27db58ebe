// What the `teval` subcommands share (see cli_support.h).
#include "tools/teval/cli_support.h"

#include "core/files.h"

#include "core/error.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace teval::tools {

uint64_t parse_count(const std::string& option, const std::string& v, uint64_t max) {
  char* end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end || errno || v[0] == '-')
    throw UsageError{option + " takes a non-negative integer, not '" + v + "'"};
  if (n > max)
    throw UsageError{option + " is at most " + std::to_string(max) + ", not " + v};
  return n;
}

bool is_identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool is_identifier(const std::string& s) {
  return !s.empty() && is_identifier_start(s[0]) &&
         std::all_of(s.begin(), s.end(), is_identifier_char);
}

std::string type_text(core::DType t, const core::Shape& s) {
  return std::string(core::name(t)) + core::to_string(s);
}

std::string read_source(const std::string& path) {
  return core::read_file(path, core::kMaxSourceBytes, "a source text");
}

} // namespace teval::tools
