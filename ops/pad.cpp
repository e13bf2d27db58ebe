// pad's two meanings (see pad.h).
#include "ops/pad.h"

#include "ops/text.h"

#include "core/interrupt.h"

namespace teval::ops::detail {

core::Tensor pad(const core::GraphNode& n, const core::Tensor& x, const core::Tensor& value,
                 const core::ValueType& result) {
  const std::vector<int64_t>& low = n.ints_attr("low");
  const std::vector<int64_t>& interior = n.ints_attr("interior");
  const core::Shape& in = x.shape();
  const std::vector<int64_t> xs = core::strides(in), os = core::strides(result.shape);
  core::Tensor out(x.dtype(), result.shape);
  for (int64_t at = 0; at < out.numel(); ++at) {
    core::poll_interrupt();
    int64_t from = 0;
    bool inside = true;
    for (size_t d = 0; d < in.size() && inside; ++d) {
      int64_t t = at / os[d] % result.shape[d] - low[d], step = interior[d] + 1;
      inside = t >= 0 && t % step == 0 && t / step < in[d];
      from += inside ? t / step * xs[d] : 0;
    }
    out.set(at, inside ? x.get(from) : value.get(0));
  }
  return out;
}

std::string pad_statement(const core::GraphNode& n, const core::ValueType& x,
                          const std::string& x_name, const std::string& value_name,
                          const core::ValueType& result, const std::string& target) {
  const std::vector<int64_t>& low = n.ints_attr("low");
  const std::vector<int64_t>& interior = n.ints_attr("interior");
  std::vector<std::string> out, index, conditions, where;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    std::string axis = "D" + std::to_string(d);
    out.push_back(axis);
    where.push_back(axis + " in " + std::to_string(result.shape[d]));
    std::string t = low[d] == 0  ? axis
                    : low[d] > 0 ? "(" + axis + " - " + std::to_string(low[d]) + ")"
                                 : "(" + axis + " + " + std::to_string(-low[d]) + ")";
    std::string step = std::to_string(interior[d] + 1);
    std::string j = interior[d] == 0 ? t : "(" + t + " / " + step + ")";
    if (low[d] > 0)
      conditions.push_back(t + " >= 0");
    if (interior[d] > 0)
      conditions.push_back(t + " % " + step + " == 0");
    if (result.shape[d] > low[d] + (x.shape[d] - 1) * (interior[d] + 1) + 1)
      conditions.push_back(j + " < " + std::to_string(x.shape[d]));
    index.push_back(j);
  }
  std::string read = x_name + "[" + join(index) + "]";
  for (int64_t e : x.shape)
    if (e == 0) // no element to read: all padding
      read = value_name + "[]", conditions.clear();
  std::string value =
      conditions.empty() ? read : read + ".when([" + join(conditions) + "], " + value_name + "[])";
  return target + "[" + join(out) + "] = " + value + (where.empty() ? "" : " where " + join(where));
}

} // namespace teval::ops::detail
