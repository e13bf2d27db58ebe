// The dynamic slices' two meanings (see dynamic_slice.h).
#include "ops/dynamic_slice.h"

#include "ops/text.h"

#include "core/interrupt.h"

#include <algorithm>

namespace teval::ops::detail {

namespace {

bool is_update(const core::GraphNode& n) {
  return n.op == core::GraphOp::DynamicUpdateSlice;
}

// The slice's extents: its sizes, or the update's (\p update, given for
// dynamic_update_slice only).
core::Shape sizes(const core::GraphNode& n, const core::Shape* update) {
  if (update)
    return *update;
  const std::vector<int64_t>& s = n.ints_attr("sizes");
  return core::Shape(s.begin(), s.end());
}

} // namespace

core::Tensor dynamic_slice(const core::GraphNode& n,
                           const std::vector<const core::Tensor*>& operands,
                           const core::ValueType& result) {
  const core::Tensor& x = *operands[0];
  const core::Shape& in = x.shape();
  const core::Shape size = sizes(n, is_update(n) ? &operands[1]->shape() : nullptr);
  const size_t first_start = is_update(n) ? 2 : 1;
  std::vector<int64_t> start(in.size());
  for (size_t d = 0; d < in.size(); ++d)
    start[d] =
        std::clamp<int64_t>(operands[first_start + d]->get(0).index_value(), 0, in[d] - size[d]);
  const std::vector<int64_t> xs = core::strides(in), ss = core::strides(size);
  core::Tensor out = is_update(n) ? x : core::Tensor(x.dtype(), result.shape);
  const int64_t count = core::checked_numel(size).value_or(0);
  for (int64_t at = 0; at < count; ++at) { // each element of the slice
    core::poll_interrupt();
    int64_t in_x = 0;
    for (size_t d = 0; d < in.size(); ++d)
      in_x += (at / ss[d] % size[d] + start[d]) * xs[d];
    if (is_update(n))
      out.set(in_x, operands[1]->get(at));
    else
      out.set(at, x.get(in_x));
  }
  return out;
}

std::string dynamic_slice_statement(const core::GraphNode& n, const std::vector<std::string>& names,
                                    const std::vector<core::ValueType>& types,
                                    const core::ValueType& result, const std::string& target) {
  const core::Shape& in = types[0].shape;
  const core::Shape size = sizes(n, is_update(n) ? &types[1].shape : nullptr);
  const size_t first_start = is_update(n) ? 2 : 1;
  std::vector<std::string> axes, where, starts, read, conditions;
  for (size_t d = 0; d < in.size(); ++d) {
    std::string axis = "D" + std::to_string(d);
    axes.push_back(axis);
    where.push_back(axis + " in " + std::to_string(result.shape[d]));
    // The start, clamped in int64 (where every start type's values fit).
    std::string c = "(" + names[first_start + d] +
                    "[].cast(`int64`).call(`max`, [const(0, dtype=`int64`)]).call(`min`, "
                    "[const(" +
                    std::to_string(in[d] - size[d]) + ", dtype=`int64`)]))";
    read.push_back(axis + (is_update(n) ? " - " : " + ") + c);
    conditions.push_back(axis + " >= " + c);
    conditions.push_back(axis + " < " + c + " + const(" + std::to_string(size[d]) +
                         ", dtype=`int64`)");
  }
  const std::string all = "[" + join(axes) + "]";
  std::string value;
  if (!is_update(n))
    value = names[0] + "[" + join(read) + "]";
  else if (core::checked_numel(size).value_or(0) == 0) // nothing to write
    value = names[0] + all;
  else
    value = conditions.empty() ? names[1] + "[]"
                               : names[1] + "[" + join(read) + "].when([" + join(conditions) +
                                     "], " + names[0] + all + ")";
  return target + all + " = " + value + (where.empty() ? "" : " where " + join(where));
}

} // namespace teval::ops::detail
