// Printing tensors the way numpy prints arrays.
#include "tools/teval/array_print.h"

#include "core/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace teval::tools {

namespace {

constexpr size_t kLineWidth = 75;

// Drops the trailing zeros of a fraction, keeping one digit: "2.500" ->
// "2.5", "3.000e+02" -> "3.0e+02".
std::string trim_fraction(std::string text) {
  size_t point = text.find('.');
  if (point == std::string::npos)
    return text;
  size_t exp = text.find('e');
  std::string tail = exp == std::string::npos ? "" : text.substr(exp);
  std::string digits = text.substr(0, exp);
  size_t last = digits.find_last_not_of('0');
  digits.erase(std::max(last, point + 1) + 1);
  return digits + tail;
}

class ArrayPrinter {
public:
  ArrayPrinter(const core::Tensor& t, const PrintOptions& o)
      : t_(t), o_(o), summarise_(t.numel() > o.threshold), strides_(core::strides(t.shape())) {
    // One width for all printed values, as numpy aligns columns.
    collect(0, 0);
  }

  std::string print(size_t indent) {
    std::string out;
    body(0, 0, indent, out);
    return out;
  }

private:
  // The positions printed along dimension d.
  std::vector<int64_t> shown(size_t d) const {
    int64_t n = t_.shape()[d];
    std::vector<int64_t> out;
    int64_t edge = std::max<int64_t>(o_.edge_items, 1);
    if (!summarise_ || n <= 2 * edge) {
      for (int64_t i = 0; i < n; ++i)
        out.push_back(i);
      return out;
    }
    for (int64_t i = 0; i < edge; ++i)
      out.push_back(i);
    out.push_back(-1); // the ellipsis
    for (int64_t i = n - edge; i < n; ++i)
      out.push_back(i);
    return out;
  }

  void collect(size_t d, int64_t offset) {
    if (d == t_.shape().size()) {
      width_ = std::max(width_, format_value(t_.get(offset), o_.precision).size());
      return;
    }
    for (int64_t i : shown(d))
      if (i >= 0)
        collect(d + 1, offset + i * strides_[d]);
  }

  void body(size_t d, int64_t offset, size_t indent, std::string& out) {
    if (d == t_.shape().size()) {
      std::string v = format_value(t_.get(offset), o_.precision);
      out += std::string(width_ - v.size(), ' ') + v;
      return;
    }
    out += '[';
    std::vector<int64_t> positions = shown(d);
    bool last_dim = d + 1 == t_.shape().size();
    for (size_t k = 0; k < positions.size(); ++k) {
      if (k) {
        out += ',';
        if (last_dim) {
          // Wrap a row that would pass the line width, as numpy does.
          size_t line = out.size() - (out.rfind('\n') + 1);
          if (line + 1 + width_ + 1 > kLineWidth) {
            out += '\n';
            out += std::string(indent + d + 1, ' ');
          } else {
            out += ' ';
          }
        } else {
          out += std::string(t_.shape().size() - d - 1, '\n');
          out += std::string(indent + d + 1, ' ');
        }
      }
      if (positions[k] < 0)
        out += "...";
      else
        body(d + 1, offset + positions[k] * strides_[d], indent, out);
    }
    out += ']';
  }

  const core::Tensor& t_;
  const PrintOptions& o_;
  bool summarise_;
  std::vector<int64_t> strides_;
  size_t width_ = 0;
};

} // namespace

std::string format_value(const core::Scalar& v, int precision) {
  std::string exact = core::format_scalar(v);
  if (precision < 0 || !core::is_float(v.dtype) || !std::isfinite(v.f))
    return exact;
  // The shortest text when it is short enough, else rounded, in the same
  // notation (positional or exponent) the shortest text uses.
  bool exponent = exact.find('e') != std::string::npos;
  size_t point = exact.find('.');
  size_t fraction =
      point == std::string::npos ? 0 : (exponent ? exact.find('e') : exact.size()) - point - 1;
  if (static_cast<int>(fraction) <= precision)
    return exact;
  char buf[400];
  std::snprintf(buf, sizeof buf, exponent ? "%.*e" : "%.*f", precision, v.f);
  std::string text = trim_fraction(buf);
  if (text.find('.') == std::string::npos && !exponent)
    text += "."; // numpy's "1." for a value rounded to a whole number
  return text;
}

std::string format_array(const core::Tensor& t, const PrintOptions& options) {
  std::string dtype(core::name(t.dtype()));
  if (t.numel() == 0)
    return "array([], shape=" + core::to_string(t.shape()) + ", dtype=" + dtype + ")";
  std::string prefix = "array(";
  return prefix + ArrayPrinter(t, options).print(prefix.size()) + ", dtype=" + dtype + ")";
}

} // namespace teval::tools
