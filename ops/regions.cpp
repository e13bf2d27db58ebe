// The ops whose meaning runs regions (see regions.h).
#include "ops/regions.h"

#include "ops/reduce.h"

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

std::vector<core::Tensor> scan(const core::GraphNode& n, const std::vector<core::Tensor>& operands,
                               const std::vector<core::ValueType>& outputs,
                               const RegionRunner& run) {
  const auto dimension = static_cast<size_t>(n.int_attr("dimension"));
  const int64_t length = n.int_attr("length");
  const auto inputs = static_cast<size_t>(n.int_attr("inputs"));
  const bool reverse = n.bool_attr("is_reverse");
  // Element e of the slice at i of a tensor of shape s along the dimension
  // is its element (o * s[d] + i) * inner + r, e = o * inner + r.
  auto inner_of = [&](const core::Shape& s) {
    int64_t inner = 1;
    for (size_t d = dimension + 1; d < s.size(); ++d)
      inner *= s[d];
    return inner;
  };
  auto at = [](int64_t e, int64_t i, int64_t extent, int64_t inner) {
    return (e / inner * extent + i) * inner + e % inner;
  };
  std::vector<core::Tensor> results;
  for (const core::ValueType& t : outputs)
    results.emplace_back(t.dtype, t.shape);
  std::vector<core::Tensor> carries(operands.begin() + static_cast<long>(inputs), operands.end());
  for (int64_t step = 0; step < length; ++step) {
    const int64_t i = reverse ? length - 1 - step : step;
    std::vector<core::Tensor> args;
    for (size_t k = 0; k < inputs; ++k) {
      const core::Tensor& x = operands[k];
      core::Shape shape = x.shape();
      const int64_t extent = shape[dimension], inner = inner_of(shape);
      shape.erase(shape.begin() + static_cast<long>(dimension));
      core::Tensor slice(x.dtype(), shape);
      for (int64_t e = 0; e < slice.numel(); ++e)
        slice.set(e, x.get(at(e, i, extent, inner)));
      args.push_back(std::move(slice));
    }
    args.insert(args.end(), carries.begin(), carries.end());
    std::vector<core::Tensor> got = run(n.regions[0], std::move(args));
    for (size_t k = 0; k < results.size(); ++k) {
      const core::Shape& shape = results[k].shape();
      const int64_t extent = shape[dimension], inner = inner_of(shape);
      for (int64_t e = 0; e < got[k].numel(); ++e)
        results[k].set(at(e, i, extent, inner), got[k].get(e));
    }
    carries.assign(got.begin() + static_cast<long>(results.size()), got.end());
  }
  results.insert(results.end(), carries.begin(), carries.end());
  return results;
}

std::vector<core::Tensor> reduce_region(const core::GraphNode& n,
                                        const std::vector<core::Tensor>& operands,
                                        const RegionRunner& run) {
  const size_t count = operands.size() / 2;
  const core::Shape& shape = operands[0].shape();
  const auto& dims = n.ints_attr("dimensions");
  core::Shape kept;
  for (size_t d = 0; d < shape.size(); ++d)
    if (!std::count(dims.begin(), dims.end(), static_cast<int64_t>(d)))
      kept.push_back(shape[d]);
  std::vector<core::Tensor> results;
  for (size_t i = 0; i < count; ++i) {
    results.emplace_back(operands[count + i].dtype(), kept);
    for (int64_t at = 0; at < results.back().numel(); ++at)
      results.back().set(at, operands[count + i].get(0));
  }
  const std::vector<int64_t> out_strides = core::strides(kept);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t at = 0; at < operands[0].numel(); ++at) {
    // The result element the input element at \p index folds into.
    int64_t to = 0;
    for (size_t d = 0, k = 0; d < shape.size(); ++d)
      if (!std::count(dims.begin(), dims.end(), static_cast<int64_t>(d)))
        to += index[d] * out_strides[k++];
    std::vector<core::Tensor> args;
    for (size_t i = 0; i < count; ++i)
      args.push_back(element(results[i], to));
    for (size_t i = 0; i < count; ++i)
      args.push_back(element(operands[i], at));
    std::vector<core::Tensor> folded = run(n.regions[0], std::move(args));
    for (size_t i = 0; i < count; ++i)
      results[i].set(to, folded[i].get(0));
    for (size_t d = shape.size(); d-- > 0;) // the next index in row-major order
      if (++index[d] < shape[d])
        break;
      else
        index[d] = 0;
  }
  return results;
}

std::vector<core::Tensor> reduce_window_region(const core::GraphNode& n,
                                               const std::vector<core::Tensor>& operands,
                                               const core::Shape& shape, const RegionRunner& run) {
  const size_t count = operands.size() / 2;
  const Window g(n);
  const int64_t terms = core::checked_numel(g.window).value_or(0);
  std::vector<core::Tensor> results;
  for (size_t i = 0; i < count; ++i)
    results.emplace_back(operands[count + i].dtype(), shape);
  for (int64_t at = 0; at < results[0].numel(); ++at) {
    std::vector<core::Tensor> running;
    for (size_t i = 0; i < count; ++i)
      running.push_back(operands[count + i]);
    for (int64_t k = 0; k < terms; ++k) {
      const int64_t from = g.input_at(operands[0].shape(), shape, at, k);
      std::vector<core::Tensor> args = running;
      for (size_t i = 0; i < count; ++i)
        args.push_back(from >= 0 ? element(operands[i], from) : operands[count + i]);
      running = run(n.regions[0], std::move(args));
    }
    for (size_t i = 0; i < count; ++i)
      results[i].set(at, running[i].get(0));
  }
  return results;
}

core::Tensor select_and_scatter(const core::GraphNode& n, const std::vector<core::Tensor>& operands,
                                const RegionRunner& run) {
  const core::Tensor &x = operands[0], &source = operands[1], &init = operands[2];
  const core::Shape& shape = x.shape();
  const auto& window = n.ints_attr("window_dimensions");
  const auto& strides = n.ints_attr("window_strides");
  const auto& padding = n.ints_attr("padding"); // low, high per dimension
  const size_t rank = shape.size();
  const std::vector<int64_t> xs = core::strides(shape), ss = core::strides(source.shape()),
                             ws = core::strides(window);
  const int64_t offsets = core::checked_numel(window).value_or(0);
  core::Tensor result(x.dtype(), shape);
  for (int64_t i = 0; i < result.numel(); ++i)
    result.set(i, init.get(0));
  for (int64_t s = 0; s < source.numel(); ++s) {
    int64_t selected = -1;
    for (int64_t w = 0; w < offsets; ++w) {
      int64_t at = 0;
      bool inside = true;
      for (size_t d = 0; d < rank && inside; ++d) {
        const int64_t i =
            s / ss[d] % source.shape()[d] * strides[d] + w / ws[d] % window[d] - padding[2 * d];
        inside = i >= 0 && i < shape[d];
        at += i * xs[d];
      }
      if (!inside)
        continue;
      if (selected < 0 ||
          run(n.regions[0], {element(x, selected), element(x, at)})[0].get(0).i == 0)
        selected = at;
    }
    if (selected < 0)
      continue;
    core::Tensor acc = run(n.regions[1], {init, element(source, s)})[0];
    result.set(selected, run(n.regions[1], {acc, element(result, selected)})[0].get(0));
  }
  return result;
}

std::vector<core::Tensor> scatter(const core::GraphNode& n,
                                  const std::vector<core::Tensor>& operands,
                                  const RegionRunner& run) {
  const size_t count = (operands.size() - 1) / 2;
  std::vector<core::Tensor> results(operands.begin(),
                                    operands.begin() + static_cast<std::ptrdiff_t>(count));
  const core::Tensor& indices = operands[count];
  const core::Shape& shape = results[0].shape();
  const core::Shape& updates = operands[count + 1].shape();
  const auto& window = n.ints_attr("update_window_dims");
  const auto& inserted = n.ints_attr("inserted_window_dims");
  const auto& input_batching = n.ints_attr("input_batching_dims");
  const auto& indices_batching = n.ints_attr("scatter_indices_batching_dims");
  const auto& to_operand = n.ints_attr("scatter_dims_to_operand_dims");
  const int64_t vector_dim = n.int_attr("index_vector_dim");
  const size_t rank = shape.size(), index_rank = indices.shape().size();
  // The update dimensions that index the scatter indices (in order), and
  // the input dimension each window dimension walks.
  std::vector<size_t> scatter_dims;
  for (size_t d = 0; d < updates.size(); ++d)
    if (!std::count(window.begin(), window.end(), static_cast<int64_t>(d)))
      scatter_dims.push_back(d);
  std::vector<size_t> window_input;
  for (size_t d = 0; d < rank; ++d)
    if (!std::count(inserted.begin(), inserted.end(), static_cast<int64_t>(d)) &&
        !std::count(input_batching.begin(), input_batching.end(), static_cast<int64_t>(d)))
      window_input.push_back(d);
  const std::vector<int64_t> us = core::strides(updates), is = core::strides(indices.shape()),
                             rs = core::strides(shape);
  const int64_t total = core::checked_numel(updates).value_or(0);
  std::vector<int64_t> u(updates.size()), start(rank), result(rank);
  for (int64_t at = 0; at < total; ++at) {
    for (size_t d = 0; d < updates.size(); ++d)
      u[d] = at / us[d] % updates[d];
    // The start index vector: the indices at the update's scatter index,
    // along index_vector_dim.
    int64_t base = 0;
    for (size_t d = 0, s = 0; d < index_rank; ++d)
      if (static_cast<int64_t>(d) != vector_dim)
        base += u[scatter_dims[s++]] * is[d];
    std::fill(result.begin(), result.end(), 0);
    for (size_t k = 0; k < to_operand.size(); ++k)
      result[static_cast<size_t>(to_operand[k])] +=
          indices
              .get(base + (vector_dim < static_cast<int64_t>(index_rank)
                               ? static_cast<int64_t>(k) * is[static_cast<size_t>(vector_dim)]
                               : 0))
              .index_value();
    for (size_t i = 0; i < input_batching.size(); ++i) {
      int64_t s = indices_batching[i];
      result[static_cast<size_t>(input_batching[i])] +=
          u[scatter_dims[static_cast<size_t>(s - (s < vector_dim ? 0 : 1))]];
    }
    for (size_t w = 0; w < window.size(); ++w)
      result[window_input[w]] += u[static_cast<size_t>(window[w])];
    int64_t to = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      inside = inside && result[d] >= 0 && result[d] < shape[d];
      to += result[d] * rs[d];
    }
    if (!inside)
      continue;
    std::vector<core::Tensor> args;
    for (size_t i = 0; i < count; ++i)
      args.push_back(element(results[i], to));
    for (size_t i = 0; i < count; ++i)
      args.push_back(element(operands[count + 1 + i], at));
    std::vector<core::Tensor> values = run(n.regions[0], std::move(args));
    for (size_t i = 0; i < count; ++i)
      results[i].set(to, values[i].get(0));
  }
  return results;
}

} // namespace teval::ops::detail
