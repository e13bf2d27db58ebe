// The ops whose meaning runs regions (see regions.h).
#include "ops/regions.h"

#include <algorithm>

namespace teval::ops::detail {

namespace {

// The rank-0 tensor of \p t's element \p at (a region's argument).
core::Tensor element(const core::Tensor& t, int64_t at) {
  core::Tensor s(t.dtype(), {});
  s.set(0, t.get(at));
  return s;
}

} // namespace

std::vector<core::Tensor> control_flow(const core::GraphNode& n, std::vector<core::Tensor> operands,
                                       const RegionRunner& run) {
  if (n.op == core::GraphOp::While) {
    while (run(n.regions[0], operands)[0].get(0).i)
      operands = run(n.regions[1], operands);
    return operands;
  }
  const int64_t i = operands[0].get(0).i;
  const int64_t last = static_cast<int64_t>(n.regions.size()) - 1;
  const int64_t branch = n.op == core::GraphOp::If ? (i ? 0 : 1) : i < 0 || i > last ? last : i;
  return run(n.regions[static_cast<size_t>(branch)], {});
}

std::vector<core::Tensor> sort(const core::GraphNode& n, const std::vector<core::Tensor>& inputs,
                               const RegionRunner& run) {
  const core::Shape& shape = inputs[0].shape();
  const size_t d = static_cast<size_t>(n.int_attr("dimension"));
  const int64_t extent = shape[d], stride = core::strides(shape)[d];
  auto less = [&](int64_t a, int64_t b) {
    std::vector<core::Tensor> args;
    for (const core::Tensor& t : inputs) {
      args.push_back(element(t, a));
      args.push_back(element(t, b));
    }
    return run(n.regions[0], std::move(args))[0].get(0).i != 0;
  };
  std::vector<core::Tensor> outs = inputs;
  std::vector<int64_t> order(static_cast<size_t>(extent)), merged(order.size());
  for (int64_t at = 0; at < inputs[0].numel(); ++at) {
    if (at / stride % extent != 0) // not the first element of a slice
      continue;
    for (int64_t k = 0; k < extent; ++k)
      order[static_cast<size_t>(k)] = at + k * stride;
    // Bottom-up merge sort: runs of 1, 2, 4, ... merged, the right run's
    // element first only when it is less than the left run's.
    for (size_t width = 1; width < order.size(); width *= 2)
      for (size_t lo = 0; lo < order.size(); lo += 2 * width) {
        size_t mid = std::min(lo + width, order.size()),
               hi = std::min(lo + 2 * width, order.size());
        size_t i = lo, j = mid, o = lo;
        while (i < mid && j < hi)
          merged[o++] = less(order[j], order[i]) ? order[j++] : order[i++];
        while (i < mid)
          merged[o++] = order[i++];
        while (j < hi)
          merged[o++] = order[j++];
        std::copy(merged.begin() + static_cast<std::ptrdiff_t>(lo),
                  merged.begin() + static_cast<std::ptrdiff_t>(hi),
                  order.begin() + static_cast<std::ptrdiff_t>(lo));
      }
    for (size_t i = 0; i < inputs.size(); ++i)
      for (int64_t k = 0; k < extent; ++k)
        outs[i].set(at + k * stride, inputs[i].get(order[static_cast<size_t>(k)]));
  }
  return outs;
}

core::Tensor map(const core::GraphNode& n, const std::vector<core::Tensor>& inputs,
                 const core::ValueType& result, const RegionRunner& run) {
  core::Tensor out(result.dtype, result.shape);
  for (int64_t at = 0; at < out.numel(); ++at) {
    std::vector<core::Tensor> args;
    for (const core::Tensor& t : inputs)
      args.push_back(element(t, at));
    out.set(at, run(n.regions[0], std::move(args))[0].get(0));
  }
  return out;
}

} // namespace teval::ops::detail
