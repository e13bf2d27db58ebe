// The signature of a finding (see fuzz.h): what groups findings of one
// cause.
#include "verify/external.h"
#include "verify/fuzz.h"

#include "core/dtype.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>

namespace teval::verify {

namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

} // namespace

namespace {

// The command's first diagnostic (an error, an assertion, a fatal
// signal): the one run_external found from the start of its standard
// error, else one in the tail it kept, else the tail's first line; ""
// when it wrote nothing.
std::string first_diagnostic(const std::string& what) {
  const std::string first = "its first diagnostic:\n";
  if (size_t at = what.find(first); at != std::string::npos)
    return what.substr(at + first.size(), what.find('\n', at + first.size()) - at - first.size());
  const std::string mark = "its standard error ends:\n";
  size_t at = what.find(mark);
  if (at == std::string::npos)
    return "";
  const std::string tail = what.substr(at + mark.size());
  if (std::string line = first_diagnostic_line(tail); !line.empty())
    return line;
  std::istringstream lines(tail);
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(" \t") != std::string::npos)
      return line;
  return "";
}

// \p line without what changes from one program to the next: numbers,
// hexadecimal addresses and paths become placeholders.
std::string normalized(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size();) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j])))
      ++j;
    std::string word = line.substr(i, j - i);
    if (std::isspace(c)) {
      out += ' ';
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
        ++i;
      continue;
    }
    if (word.find('/') != std::string::npos) {
      out += "PATH";
      i = j;
      continue;
    }
    if (std::isdigit(c)) {
      out += '#';
      while (i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i])))
        ++i;
      if (i < line.size() && (line[i] == 'x' || line[i] == 'X'))
        for (++i; i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i]));)
          ++i;
      continue;
    }
    out += line[i++];
  }
  return out;
}

std::string hash_text(const std::string& text) {
  char hash[20];
  std::snprintf(hash, sizeof hash, "%08llx",
                static_cast<unsigned long long>(fnv1a(text) & 0xffffffffULL));
  return hash;
}

} // namespace

std::string finding_signature(const Program& shrunk, const Disagreement& d) {
  // Another compiler's crash or failed exit is grouped by what it said: its
  // first diagnostic, normalized (one assertion reached from programs of
  // many shapes is one bug).
  if (d.backend == "external" && (d.kind == "crash" || d.kind == "exit")) {
    std::string diagnostic = first_diagnostic(d.what);
    if (!diagnostic.empty())
      return d.backend + "-" + d.kind + "-" + hash_text("said\n" + normalized(diagnostic));
  }
  // A wrong value is grouped by the program's shape with its reductions'
  // kinds merged: one wrong loop transformation shows under every
  // reduction operator.
  const bool value = d.kind == "value" || d.kind == "outputs";
  // The program's constructs, not its names, sizes or constants: the
  // operators, the functions and methods called, dtype names, and the kinds
  // of literals, as a set. Shrunk programs of one bug differ in those
  // details more often than in what they are made of.
  std::set<std::string> constructs;
  const std::string t = source(shrunk);
  for (size_t i = 0; i < t.size();) {
    unsigned char c = static_cast<unsigned char>(t[i]);
    if (c == '`' || c == '"') {
      size_t end = t.find(static_cast<char>(c), i + 1);
      end = end == std::string::npos ? t.size() : end;
      constructs.insert(t.substr(i, end - i + 1));
      i = end + 1;
    } else if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < t.size() && (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '_'))
        ++j;
      size_t k = j;
      while (k < t.size() && t[k] == ' ')
        ++k;
      bool called = k < t.size() && t[k] == '(';
      bool method = i > 0 && t[i - 1] == '.';
      if (called || method)
        constructs.insert(t.substr(i, j - i) + "()");
      i = j;
    } else if (std::isdigit(c)) {
      size_t j = i;
      bool real = false;
      while (j < t.size() &&
             (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '.' ||
              ((t[j] == '-' || t[j] == '+') && (t[j - 1] == 'e' || t[j - 1] == 'E')))) {
        real = real || t[j] == '.' || t[j] == 'e' || t[j] == 'E';
        ++j;
      }
      constructs.insert(real ? "float literal" : "int literal");
      i = j;
    } else if (std::ispunct(c) && c != '(' && c != ')' && c != '[' && c != ']' && c != ',' &&
               c != '{' && c != '}' && c != ';' && c != '.') {
      size_t j = i;
      while (j < t.size() && std::ispunct(static_cast<unsigned char>(t[j])) && t[j] != '(' &&
             t[j] != ')' && t[j] != '[' && t[j] != ']' && t[j] != ',' && t[j] != '`')
        ++j;
      std::string op = t.substr(i, j - i);
      const bool reduction = op.size() >= 2 && op.back() == '!' && op[op.size() - 2] == '=';
      constructs.insert(value && reduction ? "a reduction" : op);
      i = j;
    } else {
      ++i;
    }
  }
  std::string shape = shrunk.lang;
  for (const std::string& c : constructs)
    shape += "\n" + c;
  std::set<std::string> dtypes;
  for (const auto& [name, type] : shrunk.inputs)
    dtypes.insert(std::string(core::name(type.dtype)));
  for (const std::string& dt : dtypes)
    shape += "\ninput " + dt;
  return d.backend + "-" + d.kind + "-" + hash_text(shape);
}

} // namespace teval::verify
