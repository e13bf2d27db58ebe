// Printing tensors the way numpy prints arrays.
#include "tools/teval/array_print.h"

#include "core/format.h"

#include <algorithm>

namespace teval::tools {

namespace {

constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdge = 3;
constexpr size_t kLineWidth = 75;

class ArrayPrinter {
public:
  explicit ArrayPrinter(const core::Tensor& t)
      : t_(t), summarise_(t.numel() > kThreshold), strides_(core::strides(t.shape())) {
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
    if (!summarise_ || n <= 2 * kEdge) {
      for (int64_t i = 0; i < n; ++i)
        out.push_back(i);
      return out;
    }
    for (int64_t i = 0; i < kEdge; ++i)
      out.push_back(i);
    out.push_back(-1); // the ellipsis
    for (int64_t i = n - kEdge; i < n; ++i)
      out.push_back(i);
    return out;
  }

  void collect(size_t d, int64_t offset) {
    if (d == t_.shape().size()) {
      width_ = std::max(width_, core::format_scalar(t_.get(offset)).size());
      return;
    }
    for (int64_t i : shown(d))
      if (i >= 0)
        collect(d + 1, offset + i * strides_[d]);
  }

  void body(size_t d, int64_t offset, size_t indent, std::string& out) {
    if (d == t_.shape().size()) {
      std::string v = core::format_scalar(t_.get(offset));
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
  bool summarise_;
  std::vector<int64_t> strides_;
  size_t width_ = 0;
};

} // namespace

std::string format_array(const core::Tensor& t) {
  std::string dtype(core::name(t.dtype()));
  if (t.numel() == 0)
    return "array([], shape=" + core::to_string(t.shape()) + ", dtype=" + dtype + ")";
  std::string prefix = "array(";
  return prefix + ArrayPrinter(t).print(prefix.size()) + ", dtype=" + dtype + ")";
}

} // namespace teval::tools
