// The ops whose meaning runs regions — if, case, while (StableHLO
// specification, the sections of the same names), sort, map, scatter,
// select_and_scatter and reduce and reduce_window of a region — as native
// references over a runner of regions the evaluator gives (native.cpp).
// None has an einstein_v2 decomposition. Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <functional>
#include <vector>

namespace teval::ops::detail {

/// The values a region returns, its block arguments bound to the tensors
/// given.
using RegionRunner =
    std::function<std::vector<core::Tensor>(const core::GraphRegion&, std::vector<core::Tensor>)>;

/// if: the then or else region's values; case: branch i's, the last
/// branch's when i is out of range; while: the carried values, from
/// \p operands, once the cond region gives false.
std::vector<core::Tensor> control_flow(const core::GraphNode& n, std::vector<core::Tensor> operands,
                                       const RegionRunner& run);

/// sort: each 1-dimensional slice of \p inputs along `dimension` sorted
/// together by a stable merge sort, an element moving before an earlier
/// one only when the comparator region says it is less (a stable order is
/// one an unstable sort may give too; any comparator gives a defined one).
std::vector<core::Tensor> sort(const core::GraphNode& n, const std::vector<core::Tensor>& inputs,
                               const RegionRunner& run);

/// map: the computation region at each index of \p inputs, in row-major
/// order, into a tensor of type \p result.
core::Tensor map(const core::GraphNode& n, const std::vector<core::Tensor>& inputs,
                 const core::ValueType& result, const RegionRunner& run);

/// chlo.scan: for each index along `dimension` (`length` of them, last
/// first when `is_reverse`), the body region of the inputs' slices there
/// and the carries (from the inits) gives the outputs' slices there and
/// the new carries; the outputs (of types \p outputs), then the carries.
std::vector<core::Tensor> scan(const core::GraphNode& n, const std::vector<core::Tensor>& operands,
                               const std::vector<core::ValueType>& outputs,
                               const RegionRunner& run);

/// scatter: \p operands the N inputs, the scatter indices and the N
/// updates; for each update index in row-major order (the specification
/// leaves the schedule to implementations), the update computation region
/// of the results' current values and the updates at the result index it
/// names, when that index is in bounds (else nothing: the specification
/// leaves it to implementations, and teval skips it, as XLA does).
std::vector<core::Tensor> scatter(const core::GraphNode& n,
                                  const std::vector<core::Tensor>& operands,
                                  const RegionRunner& run);

/// reduce of N inputs whose body is a region (\p operands: the N inputs,
/// then the N initial values): each result element starts as its initial
/// value; for each input element in row-major order, as the
/// specification's reference interpreter does (the specification leaves
/// the schedule to implementations), the body region of the running values
/// and the inputs' elements there gives the new running values.
std::vector<core::Tensor> reduce_region(const core::GraphNode& n,
                                        const std::vector<core::Tensor>& operands,
                                        const RegionRunner& run);

/// reduce_window of N inputs whose body is a region (\p operands: the N
/// inputs, then the N initial values): each result element starts as its
/// initial values and folds, by the body region, its window's elements in
/// row-major order of the window — the initial values where the window
/// lies in padding or between dilated elements, as the specification pads
/// with them. \p shape is the results' shape.
std::vector<core::Tensor> reduce_window_region(const core::GraphNode& n,
                                               const std::vector<core::Tensor>& operands,
                                               const core::Shape& shape, const RegionRunner& run);

/// select_and_scatter: \p operands the operand, the source and the
/// initial value; the result starts as the initial value everywhere. For
/// each source index in row-major order, the window at it (the index times
/// window_strides plus each window offset, minus the low padding; positions
/// outside the operand skipped) selects one operand element: the first,
/// then each one in row-major order for which the select region of the
/// selected and the current element gives false; the result at the
/// selected element becomes scatter(scatter(init, source value), result
/// there), as the specification's reduce of the two from the initial value
/// computes it. A window with no operand element selects nothing.
core::Tensor select_and_scatter(const core::GraphNode& n, const std::vector<core::Tensor>& operands,
                                const RegionRunner& run);

} // namespace teval::ops::detail
