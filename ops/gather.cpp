// gather's two meanings (see gather.h).
#include "ops/gather.h"

#include "ops/text.h"

#include "core/interrupt.h"

#include <algorithm>

namespace teval::ops::detail {

namespace {

// Where each operand dimension's index comes from: the start index vector's
// element k (start_index_map[k] = d), a result batch axis (a batching
// dimension), a result offset axis (a kept dimension), or several of
// these summed.
struct Plan {
  std::vector<int64_t> start_of;  // per operand dimension: k, or -1
  std::vector<int64_t> batch_of;  // per operand dimension: result axis, or -1
  std::vector<int64_t> offset_of; // per operand dimension: result axis, or -1
  // Per start-indices dimension: the result axis indexing it (-1: the
  // index vector dimension).
  std::vector<int64_t> indices_axis;
  int64_t index_vector_dim;
  std::vector<int64_t> limit; // per operand dimension: dim - slice size

  Plan(const core::GraphNode& n, const core::Shape& operand, const core::Shape& indices,
       size_t result_rank) {
    const auto& offset_dims = n.ints_attr("offset_dims");
    const auto& collapsed = n.ints_attr("collapsed_slice_dims");
    const auto& operand_batching = n.ints_attr("operand_batching_dims");
    const auto& indices_batching = n.ints_attr("start_indices_batching_dims");
    const auto& map = n.ints_attr("start_index_map");
    const auto& sizes = n.ints_attr("slice_sizes");
    index_vector_dim = n.int_attr("index_vector_dim");
    const size_t rank = operand.size();
    start_of.assign(rank, -1);
    batch_of.assign(rank, -1);
    offset_of.assign(rank, -1);
    for (size_t k = 0; k < map.size(); ++k)
      start_of[static_cast<size_t>(map[k])] = static_cast<int64_t>(k);
    for (size_t d = 0; d < rank; ++d)
      limit.push_back(operand[d] - sizes[d]);
    // The result's batch axes, in order, index the start indices'
    // dimensions other than index_vector_dim, in order.
    std::vector<int64_t> batch_axes;
    for (size_t d = 0; d < result_rank; ++d)
      if (!std::count(offset_dims.begin(), offset_dims.end(), static_cast<int64_t>(d)))
        batch_axes.push_back(static_cast<int64_t>(d));
    for (int64_t d = 0, b = 0; d < static_cast<int64_t>(indices.size()); ++d)
      indices_axis.push_back(d == index_vector_dim ? -1 : batch_axes[static_cast<size_t>(b++)]);
    for (size_t i = 0; i < operand_batching.size(); ++i)
      batch_of[static_cast<size_t>(operand_batching[i])] =
          indices_axis[static_cast<size_t>(indices_batching[i])];
    for (size_t d = 0, o = 0; d < rank; ++d)
      if (!std::count(collapsed.begin(), collapsed.end(), static_cast<int64_t>(d)) &&
          !std::count(operand_batching.begin(), operand_batching.end(), static_cast<int64_t>(d)))
        offset_of[d] = offset_dims[o++];
  }
};

} // namespace

core::Tensor gather(const core::GraphNode& n, const core::Tensor& operand,
                    const core::Tensor& indices, const core::ValueType& result) {
  const Plan p(n, operand.shape(), indices.shape(), result.shape.size());
  const std::vector<int64_t> xs = core::strides(operand.shape()),
                             is = core::strides(indices.shape()), os = core::strides(result.shape);
  core::Tensor out(operand.dtype(), result.shape);
  std::vector<int64_t> index(result.shape.size());
  for (int64_t at = 0; at < out.numel(); ++at) {
    core::poll_interrupt();
    for (size_t d = 0; d < index.size(); ++d)
      index[d] = at / os[d] % result.shape[d];
    // The start index vector's position in the start indices, less the
    // index vector dimension's.
    int64_t base = 0;
    for (size_t d = 0; d < p.indices_axis.size(); ++d)
      if (p.indices_axis[d] >= 0)
        base += index[static_cast<size_t>(p.indices_axis[d])] * is[d];
    int64_t from = 0;
    for (size_t d = 0; d < xs.size(); ++d) {
      int64_t i = 0;
      if (int64_t k = p.start_of[d]; k >= 0) {
        int64_t start = indices
                            .get(base + (p.index_vector_dim < static_cast<int64_t>(is.size())
                                             ? k * is[static_cast<size_t>(p.index_vector_dim)]
                                             : 0))
                            .index_value();
        i += std::clamp<int64_t>(start, 0, p.limit[d]);
      }
      if (p.batch_of[d] >= 0)
        i += index[static_cast<size_t>(p.batch_of[d])];
      if (p.offset_of[d] >= 0)
        i += index[static_cast<size_t>(p.offset_of[d])];
      from += i * xs[d];
    }
    out.set(at, operand.get(from));
  }
  return out;
}

std::string gather_statement(const core::GraphNode& n, const core::ValueType& operand,
                             const std::string& operand_name, const core::ValueType& indices,
                             const std::string& indices_name, const core::ValueType& result,
                             const std::string& target) {
  const Plan p(n, operand.shape, indices.shape, result.shape.size());
  std::vector<std::string> out = axes(result.shape.size()), where, read;
  for (size_t d = 0; d < result.shape.size(); ++d)
    where.push_back(out[d] + " in " + std::to_string(result.shape[d]));
  for (size_t d = 0; d < operand.shape.size(); ++d) {
    std::vector<std::string> terms;
    if (int64_t k = p.start_of[d]; k >= 0) {
      std::vector<std::string> at;
      for (int64_t axis : p.indices_axis)
        at.push_back(axis < 0 ? std::to_string(k) : out[static_cast<size_t>(axis)]);
      // The start, clamped in int64 (where every index type's values fit).
      terms.push_back("(" + indices_name + "[" + join(at) +
                      "].cast(`int64`).call(`max`, [const(0, dtype=`int64`)]).call(`min`, "
                      "[const(" +
                      std::to_string(p.limit[d]) + ", dtype=`int64`)]))");
    }
    if (p.batch_of[d] >= 0)
      terms.push_back(out[static_cast<size_t>(p.batch_of[d])]);
    if (p.offset_of[d] >= 0)
      terms.push_back(out[static_cast<size_t>(p.offset_of[d])]);
    std::string index = terms.empty() ? "0" : terms[0];
    for (size_t t = 1; t < terms.size(); ++t)
      index += " + " + terms[t];
    read.push_back(index);
  }
  return target + "[" + join(out) + "] = " + operand_name + "[" + join(read) + "]" +
         (where.empty() ? "" : " where " + join(where));
}

} // namespace teval::ops::detail
