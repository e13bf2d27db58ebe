// What the `teval` subcommands share (see cli_support.h).
#include "tools/teval/cli_support.h"

#include "core/files.h"

#include "core/error.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <set>

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

double parse_duration(const std::string& option, const std::string& v) {
  std::string number = v;
  double unit = 1;
  if (!number.empty() && (number.back() == 's' || number.back() == 'm' || number.back() == 'h')) {
    unit = number.back() == 'h' ? 3600 : number.back() == 'm' ? 60 : 1;
    number.pop_back();
  }
  char* end = nullptr;
  double d = std::strtod(number.c_str(), &end);
  if (number.empty() || *end || !(d > 0) || d * unit > 3.6e9)
    throw UsageError{option + " takes a duration such as 90, 90s, 10m or 1.5h, not '" + v + "'"};
  return d * unit;
}

std::pair<uint64_t, uint64_t> parse_shard(const std::string& option, const std::string& v) {
  size_t slash = v.find('/');
  if (slash == std::string::npos)
    throw UsageError{option + " takes I/N (shard I of N, 0 <= I < N), not '" + v + "'"};
  uint64_t i = parse_count(option, v.substr(0, slash));
  uint64_t n = parse_count(option, v.substr(slash + 1), 1'000'000);
  if (n == 0 || i >= n)
    throw UsageError{option + " takes I/N with 0 <= I < N, not '" + v + "'"};
  return {i, n};
}

int64_t parse_bytes(const std::string& option, const std::string& v) {
  std::string digits = v;
  int shift = 0;
  if (!digits.empty()) {
    switch (std::toupper(static_cast<unsigned char>(digits.back()))) {
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    case 'T':
      shift = 40;
      break;
    default:
      break;
    }
    if (shift)
      digits.pop_back();
  }
  auto bad = [&] {
    return UsageError{option + " takes a positive byte count (an integer, optionally with K, M, " +
                      "G or T), not '" + v + "'"};
  };
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    throw bad();
  uint64_t n = parse_count(option, digits, uint64_t{1} << (62 - shift));
  if (n == 0)
    throw bad();
  return int64_t(n << shift);
}

double parse_seconds(const std::string& option, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  double s = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || errno || !(s > 0) || s > 1e6 || !std::isdigit((unsigned char)v[0]))
    throw UsageError{option + " takes a positive number of seconds (at most 10^6), not '" + v +
                     "'"};
  return s;
}

bool is_identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::pair<std::string, std::string> name_value(const std::string& spec, const std::string& usage) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || !is_identifier(spec.substr(0, eq)) || eq + 1 == spec.size())
    throw UsageError{usage + ", not '" + spec + "'"};
  return {spec.substr(0, eq), spec.substr(eq + 1)};
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

void only_program_options(const std::vector<std::string>& args, const std::string& command) {
  static const std::set<std::string> kProgramOptions = {"-e", "--lang", "--entry",     "-p",
                                                        "-i", "--seed", "--max-memory"};
  for (size_t i = 0; i < args.size(); ++i) {
    if (kProgramOptions.count(args[i]))
      ++i; // its value
    else if (args[i].size() > 1 && args[i][0] == '-')
      throw UsageError{args[i] + " is not an option of " + command +
                       ": it takes the program options only (FILE or -e, --lang, --entry, -p, "
                       "-i, --seed, --max-memory)"};
  }
}

} // namespace teval::tools
