// The text of an ops file's definitions (see htp_ops_text.h).
#include "rules/htp_ops_text.h"

#include "core/format.h"

#include <cctype>
#include <charconv>
#include <limits>

namespace teval::rules::detail {

namespace {

// Integer arithmetic of a `$(...)` field: + - * / (truncating) and
// parentheses over integer literals, with the usual precedence.
class Arithmetic {
public:
  Arithmetic(std::string_view text, const std::string& op) : text_(text), op_(op) {}
  int64_t run() {
    int64_t v = sum();
    skip();
    if (at_ != text_.size())
      fail();
    return v;
  }

private:
  [[noreturn]] void fail() {
    throw IllTyped{op_ + "'s definition has a malformed $(...) field: $(" + std::string(text_) +
                   ")"};
  }
  void skip() {
    while (at_ < text_.size() && text_[at_] == ' ')
      ++at_;
  }
  bool eat(char c) {
    skip();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  [[noreturn]] void overflow() {
    throw IllTyped{op_ + "'s definition overflows in $(" + std::string(text_) + ")"};
  }
  int64_t sum() {
    int64_t v = product();
    for (;;) {
      if (eat('+')) {
        if (__builtin_add_overflow(v, product(), &v))
          overflow();
      } else if (eat('-')) {
        if (__builtin_sub_overflow(v, product(), &v))
          overflow();
      } else {
        return v;
      }
    }
  }
  int64_t product() {
    int64_t v = atom();
    for (;;) {
      if (eat('*')) {
        if (__builtin_mul_overflow(v, atom(), &v))
          overflow();
      } else if (eat('/')) {
        int64_t d = atom();
        if (d == 0 || (d == -1 && v == INT64_MIN))
          throw IllTyped{op_ + "'s definition divides by zero in $(" + std::string(text_) + ")"};
        v /= d;
      } else {
        return v;
      }
    }
  }
  int64_t atom() {
    // Brackets and signs nest; as in every grammar, 256 deep at most.
    if (++depth_ > 256)
      throw IllTyped{op_ + "'s definition nests a $(...) field more than 256 deep"};
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth_};
    if (eat('(')) {
      int64_t v = sum();
      if (!eat(')'))
        fail();
      return v;
    }
    if (eat('-')) {
      int64_t v = atom();
      if (v == INT64_MIN)
        overflow();
      return -v;
    }
    skip();
    size_t b = at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])) &&
           at_ - b < 12)
      ++at_;
    if (at_ == b)
      fail();
    return std::stoll(std::string(text_.substr(b, at_ - b)));
  }
  std::string_view text_;
  const std::string& op_;
  size_t at_ = 0;
  int depth_ = 0;
};

// The number a field's digits spell; past size_t's range it saturates, an
// operand or an axis no node has.
size_t field_number(const std::ssub_match& digits) {
  std::string text = digits.str();
  size_t value = 0;
  if (std::from_chars(text.data(), text.data() + text.size(), value).ec != std::errc())
    return std::numeric_limits<size_t>::max();
  return value;
}

} // namespace

// `$(expr)` fields of \p text evaluated.
// The end of the parenthesized text opening at \p open, or npos.
size_t closing(const std::string& text, size_t open) {
  size_t depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    depth += text[i] == '(';
    if (text[i] == ')' && --depth == 0)
      return i;
  }
  return std::string::npos;
}

std::string evaluate_arithmetic(const std::string& text, const std::string& op) {
  std::string out;
  size_t last = 0;
  for (size_t at = text.find("$("); at != std::string::npos; at = text.find("$(", last)) {
    size_t end = closing(text, at + 1);
    if (end == std::string::npos)
      throw IllTyped{op + "'s definition has an unclosed $(...) field"};
    out += text.substr(last, at - last);
    out +=
        std::to_string(Arithmetic(std::string_view(text).substr(at + 2, end - at - 2), op).run());
    last = end + 1;
  }
  return out + text.substr(last);
}

// A definition's $ fields: $inK[d], $inK.zero, .step, .dtype, .float,
// .rank, .qmin, .qmax, and the same of $out0.
const std::regex& field_pattern() {
  static const std::regex field(
      R"(\$(in|out)(\d+)(?:\[(\d+)\]|\.(zero|step|dtype|float|rank|qmin|qmax)))");
  return field;
}

// An ops file's functions, expanded in \p program: $real(inK[...]), the
// real value of an element of input K in float64; $quantize(x), the
// float64 real x in the output's quantized encoding, clamped to its dtype's
// codes and rounded to nearest, ties to even (adding and subtracting
// 1.5 * 2^52 rounds a float64 of magnitude below 2^51 so; a float output
// has no codes: the node is ill-typed); $encode(x), x in the output's
// encoding whichever it is: $quantize(x) for a quantized output
// (\p quantized_output), x rounded to the dtype of a float one. Throws the
// reason a use is malformed.
std::string expand_functions(const std::string& program, bool quantized_output) {
  static const std::regex function(R"(\$(real|quantize|encode)\()");
  std::string out;
  size_t last = 0;
  std::smatch m;
  for (auto it = program.cbegin() + last; std::regex_search(it, program.cend(), m, function);
       it = program.cbegin() + last) {
    size_t at = size_t(m.position()) + last;
    size_t open = at + size_t(m.length()) - 1;
    size_t close = closing(program, open);
    if (close == std::string::npos)
      throw "an unclosed $" + m[1].str() + "(...)";
    // The argument is expanded too: $quantize($real(in0[...]) + ...).
    std::string arg =
        expand_functions(program.substr(open + 1, close - open - 1), quantized_output);
    out += program.substr(last, at - last);
    if (m[1] == "real") {
      static const std::regex element(R"(^\s*in([0-9]+)\s*\[)");
      std::smatch e;
      if (!std::regex_search(arg, e, element))
        throw std::string("$real(...) takes an element of an input, inK[...]");
      std::string k = e[1].str();
      out += "((" + arg + ".cast(`float64`) - $in" + k + ".zero) * const($in" + k +
             ".step, dtype=`float32`).cast(`float64`))";
    } else if (m[1] == "encode" && !quantized_output) {
      out += "((" + arg + ").cast(`$out0.dtype`))";
    } else {
      const std::string magic = "const(6755399441055744.0, dtype=`float64`)";
      out += "(((((" + arg +
             ") / const($out0.step, dtype=`float32`).cast(`float64`) + $out0.zero).call(`max`, "
             "[const($out0.qmin, dtype=`float64`)]).call(`min`, [const($out0.qmax, "
             "dtype=`float64`)]) + " +
             magic + ") - " + magic + ").cast(`$out0.dtype`))";
    }
    last = close + 1;
  }
  return out + program.substr(last);
}

// The definition's program with its $ fields replaced for one node.
std::string instantiate(const OpDef& def, const std::vector<const TensorType*>& in,
                        const TensorType* out) {
  std::string result;
  std::string text = expand_functions(def.program, out && quantized(out->dtype));
  auto begin = std::sregex_iterator(text.begin(), text.end(), field_pattern());
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    result += text.substr(last, m.position() - last);
    last = m.position() + m.length();
    bool is_in = m[1] == "in";
    size_t k = field_number(m[2]);
    const TensorType* t = nullptr;
    if (is_in && k < in.size())
      t = in[k];
    if (!is_in && k == 0)
      t = out;
    if (!t)
      throw IllTyped{def.name + "'s definition uses " + m.str() + ", but the node has " +
                     (is_in ? std::to_string(in.size()) + " input(s)" : "no known output type")};
    if (m[3].matched) {
      size_t d = field_number(m[3]);
      if (d >= t->shape.size())
        throw IllTyped{def.name + "'s definition uses " + m.str() + " of a rank-" +
                       std::to_string(t->shape.size()) + " tensor"};
      result += std::to_string(t->shape[d]);
    } else if (m[4] == "zero") {
      result += std::to_string(t->zero_offset);
    } else if (m[4] == "step") {
      result += core::format_scalar(core::Scalar::of_float(core::DType::Float32, t->step));
    } else if (m[4] == "float") {
      result += t->dtype == HtpType::Float16 ? "float16" : "float32";
    } else if (m[4] == "rank") {
      result += std::to_string(t->shape.size());
    } else if (m[4] == "qmin" || m[4] == "qmax") {
      if (!quantized(t->dtype))
        throw IllTyped{def.name + "'s definition uses " + m.str() + " of a " + to_string(*t) +
                       " tensor, which is not quantized"};
      auto [lo, hi] = code_range(t->dtype);
      result += std::to_string(m[4] == "qmin" ? lo : hi);
    } else {
      result += std::string(core::name(storage(t->dtype)));
    }
  }
  return evaluate_arithmetic(result + text.substr(last), def.name);
}

} // namespace teval::rules::detail
