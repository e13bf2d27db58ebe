// REPL definitions: `x = float32[4, 8]`, `y = int32[16] in [0, 8)`,
// `w = load("w.npy")`.
#include "tools/teval/repl_definition.h"

#include "core/error.h"
#include "core/numeric.h"
#include "tools/teval/cli_support.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace teval::tools::repl {

namespace {

using core::Error;
using core::ErrorKind;
using core::Span;

// A cursor over the entry with the few tokens definitions use.
class Reader {
public:
  explicit Reader(const core::SourceFile& file) : file_(file), text_(file.text()) {}

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ == text_.size();
  }
  Span span(size_t begin, size_t end) const {
    return {&file_, static_cast<uint32_t>(begin), static_cast<uint32_t>(end)};
  }
  // The span of the next token (or the end of the entry).
  Span here() {
    skip_space();
    size_t end = pos_;
    while (end < text_.size() && is_identifier_char(text_[end]))
      ++end;
    return span(pos_, std::max(end, std::min(pos_ + 1, text_.size())));
  }
  [[noreturn]] void fail(const std::string& message) {
    throw Error(ErrorKind::Syntax, here(), message);
  }

  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c, const std::string& what) {
    if (!accept(c))
      fail("expected " + what);
  }
  std::string identifier(Span& where) {
    skip_space();
    size_t begin = pos_;
    if (pos_ == text_.size() || !is_identifier_start(text_[pos_]))
      fail("expected a name");
    while (pos_ < text_.size() && is_identifier_char(text_[pos_]))
      ++pos_;
    where = span(begin, pos_);
    return std::string(text_.substr(begin, pos_ - begin));
  }
  // A decimal number with an optional sign; \p integer tells whether it has
  // neither a point nor an exponent.
  std::string number(Span& where, bool& integer) {
    skip_space();
    size_t begin = pos_;
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+'))
      ++pos_;
    size_t digits = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
            ((text_[pos_] == '-' || text_[pos_] == '+') &&
             (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))))
      ++pos_;
    where = span(begin, pos_);
    std::string t(text_.substr(begin, pos_ - begin));
    if (pos_ == digits)
      throw Error(ErrorKind::Syntax, here(), "expected a number");
    integer =
        t.find_first_of(".eE") == std::string::npos || t.find_first_of("xX") != std::string::npos;
    return t;
  }
  std::string string_literal(Span& where) {
    skip_space();
    size_t begin = pos_;
    if (pos_ == text_.size() || (text_[pos_] != '"' && text_[pos_] != '\''))
      fail("expected a quoted path, as in load(\"w.npy\")");
    char quote = text_[pos_++];
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != quote && text_[pos_] != '\n') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size() &&
          (text_[pos_ + 1] == '\\' || text_[pos_ + 1] == quote))
        ++pos_;
      value += text_[pos_++];
    }
    if (pos_ == text_.size() || text_[pos_] != quote)
      throw Error(ErrorKind::Syntax, span(begin, pos_), "unterminated string");
    ++pos_;
    where = span(begin, pos_);
    return value;
  }
  bool keyword(std::string_view word) {
    skip_space();
    if (text_.substr(pos_, word.size()) != word)
      return false;
    size_t after = pos_ + word.size();
    if (after < text_.size() && is_identifier_char(text_[after]))
      return false;
    pos_ = after;
    return true;
  }
  size_t pos() const { return pos_; }

private:
  const core::SourceFile& file_;
  std::string_view text_;
  size_t pos_ = 0;
};

int64_t parse_integer(const std::string& text, Span where) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end)
    throw Error(ErrorKind::Syntax, where, "`" + text + "` is not an integer");
  if (errno == ERANGE)
    throw Error(ErrorKind::Range, where, "`" + text + "` does not fit in 64 bits");
  return v;
}

void read_shape(Reader& r, Definition& d) {
  r.expect('[', "`[` and the shape");
  if (r.accept(']'))
    return;
  do {
    if (r.accept(']'))
      return; // a trailing comma
    Span where;
    bool integer = false;
    std::string t = r.number(where, integer);
    if (!integer || t[0] == '+')
      throw Error(ErrorKind::Syntax, where, "a dimension is a non-negative integer");
    int64_t n = parse_integer(t, where);
    if (n < 0)
      throw Error(ErrorKind::Shape, where, "a dimension is a non-negative integer, not " + t);
    d.shape.push_back(n);
  } while (r.accept(','));
  r.expect(']', "`,` or `]`");
}

void read_bounds(Reader& r, Definition& d, Span dtype_span) {
  Span open = r.here();
  bool lo_closed = r.accept('[');
  if (!lo_closed && !r.accept('('))
    r.fail("expected a range `[lo, hi)`");
  Span lo_span, hi_span;
  bool lo_int = false, hi_int = false;
  std::string lo = r.number(lo_span, lo_int);
  r.expect(',', "`,` between the ends of the range");
  std::string hi = r.number(hi_span, hi_int);
  Span close = r.here();
  bool hi_closed = r.accept(']');
  if (!hi_closed && !r.accept(')'))
    r.fail("expected `)` or `]` closing the range");
  Span whole = open.to(close);
  d.has_bounds = true;
  d.bounds_span = whole;
  std::string type(core::name(d.dtype));
  if (core::is_float(d.dtype)) {
    if (!lo_closed || hi_closed)
      throw Error(ErrorKind::Syntax, whole,
                  type + " values are drawn from a half-open range: write [lo, hi)");
    auto value = [&](const std::string& t, Span where) {
      char* end = nullptr;
      double v = std::strtod(t.c_str(), &end);
      if (*end || !std::isfinite(v) || std::fabs(v) > core::float_max(d.dtype))
        throw Error(ErrorKind::Range, where, "`" + t + "` is not a finite " + type + " value");
      return v;
    };
    d.bounds.lo = value(lo, lo_span);
    d.bounds.hi = value(hi, hi_span);
    if (!(core::round_float(d.dtype, d.bounds.lo) < d.bounds.hi))
      throw Error(ErrorKind::Range, whole,
                  "the range " + std::string(whole.text()) + " holds no " + type + " value");
    return;
  }
  for (auto [t, integer, where] : {std::tuple{lo, lo_int, lo_span}, {hi, hi_int, hi_span}})
    if (!integer)
      throw Error(ErrorKind::Type, where, type + " bounds are integers, not `" + t + "`")
          .note(dtype_span, "the dtype is here");
  int64_t a = parse_integer(lo, lo_span);
  int64_t b = parse_integer(hi, hi_span);
  // Open ends step inwards; an empty range is caught below.
  if (!lo_closed && a == INT64_MAX)
    throw Error(ErrorKind::Range, whole, "the range " + std::string(whole.text()) + " is empty");
  if (!hi_closed && b == INT64_MIN)
    throw Error(ErrorKind::Range, whole, "the range " + std::string(whole.text()) + " is empty");
  a += lo_closed ? 0 : 1;
  b -= hi_closed ? 0 : 1;
  if (a > b)
    throw Error(ErrorKind::Range, whole, "the range " + std::string(whole.text()) + " is empty");
  int64_t min = core::is_bool(d.dtype) ? 0 : core::int_min(d.dtype);
  int64_t max = core::is_bool(d.dtype) ? 1 : core::int_max(d.dtype);
  if (a < min || b > max)
    throw Error(ErrorKind::Range, whole,
                "the range " + std::string(whole.text()) + " is outside " + type + " (" +
                    std::to_string(min) + " to " + std::to_string(max) + ")");
  d.bounds.int_lo = a;
  d.bounds.int_hi = b;
}

} // namespace

bool looks_like_definition(std::string_view text, bool any_word) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || !is_identifier_start(text[i]))
    return false;
  while (i < text.size() && is_identifier_char(text[i]))
    ++i;
  i = text.find_first_not_of(" \t", i);
  if (i == std::string_view::npos || text[i] != '=' || (i + 1 < text.size() && text[i + 1] == '='))
    return false;
  i = text.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos || !is_identifier_start(text[i]))
    return false;
  size_t word = i;
  while (i < text.size() && is_identifier_char(text[i]))
    ++i;
  std::string_view name = text.substr(word, i - word);
  i = text.find_first_not_of(" \t", i);
  if (i == std::string_view::npos)
    return false;
  if (name == "load")
    return text[i] == '(';
  return text[i] == '[' && (any_word || core::dtype_from_name(name).has_value());
}

Definition read_definition(const core::SourceFile& entry) {
  Reader r(entry);
  Definition d;
  d.name = r.identifier(d.name_span);
  r.expect('=', "`=`");
  Span value_start = r.here();
  Span word_span;
  std::string word = r.identifier(word_span);
  if (word == "load") {
    r.expect('(', "`(`");
    d.path = r.string_literal(d.path_span);
    r.expect(')', "`)` after the path");
  } else {
    std::optional<core::DType> t = core::dtype_from_name(word);
    if (!t || !core::kernel_dtype(*t))
      throw Error(ErrorKind::Type, word_span,
                  "unknown dtype `" + word + "`" + (t ? core::not_kernel_note(*t) : ""));
    d.dtype = *t;
    read_shape(r, d);
    if (r.keyword("in"))
      read_bounds(r, d, word_span);
  }
  d.value_span = value_start.to(r.span(r.pos(), r.pos()));
  if (!r.at_end())
    r.fail(d.path.empty() && !d.has_bounds ? "unexpected text; a range is written `in [lo, hi)`"
                                           : "unexpected text after the definition");
  if (d.path.empty() && !core::checked_numel(d.shape))
    throw Error(ErrorKind::Limit, d.value_span, "the shape has too many elements");
  return d;
}

} // namespace teval::tools::repl
