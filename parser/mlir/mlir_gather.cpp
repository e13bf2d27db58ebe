// gather and dynamic_gather (StableHLO specification, "gather" and
// "dynamic_gather"): the dimension numbers and slice sizes, checked as the
// specification's constraints (C1)-(C23) say.
//
//   generic  "stablehlo.gather"(%operand, %indices) {dimension_numbers =
//            #stablehlo.gather<offset_dims = [1], collapsed_slice_dims =
//            [0], operand_batching_dims = [], start_indices_batching_dims =
//            [], start_index_map = [0], index_vector_dim = 1>, slice_sizes =
//            array<i64: 1, 8>, indices_are_sorted = false} (#mhlo.gather,
//            lists left out empty; slice sizes as dense<...> too)
//   dynamic  "stablehlo.dynamic_gather"(%operand, %indices, %slice_sizes)
//            with the slice sizes a constant operand
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"

#include <algorithm>

namespace teval::parser::mlir_detail {

namespace {

using core::Error;
using core::ErrorKind;
using core::ValueType;

bool sorted_unique(const std::vector<int64_t>& v) {
  return std::adjacent_find(v.begin(), v.end(), std::greater_equal<int64_t>()) == v.end();
}

bool unique(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}

} // namespace

ValueType gather_meaning(const OpSite& site, const ValueType& operand, const ValueType& indices,
                         const std::vector<int64_t>& slice_sizes, core::GraphNode& node) {
  const ast::Expr* e = find(site, "dimension_numbers", true);
  const ast::Name* name = ast::as_name(*e);
  std::string written = name ? name->id : text(*e);
  std::optional<std::map<std::string, std::vector<int64_t>>> fields = dialect_fields(written);
  auto list = [&](const char* key) {
    auto it = fields->find(key);
    return it == fields->end() ? std::vector<int64_t>{} : it->second;
  };
  // StableHLO's printer leaves out a field that is empty or 0: an absent
  // index_vector_dim is 0, as its parser reads it.
  if (!fields ||
      (fields->count("index_vector_dim") && fields->at("index_vector_dim").size() != 1) ||
      std::any_of(fields->begin(), fields->end(), [](const auto& f) {
        return f.first != "offset_dims" && f.first != "collapsed_slice_dims" &&
               f.first != "operand_batching_dims" && f.first != "start_indices_batching_dims" &&
               f.first != "start_index_map" && f.first != "index_vector_dim";
      }))
    throw Error(ErrorKind::Type, e->span,
                "gather's dimension_numbers must be #stablehlo.gather<offset_dims = [...], "
                "collapsed_slice_dims = [...], operand_batching_dims = [...], "
                "start_indices_batching_dims = [...], start_index_map = [...], index_vector_dim "
                "= N>, not `" +
                    written + "`");
  const std::vector<int64_t> offset_dims = list("offset_dims"),
                             collapsed = list("collapsed_slice_dims"),
                             operand_batching = list("operand_batching_dims"),
                             indices_batching = list("start_indices_batching_dims"),
                             start_index_map = list("start_index_map");
  const int64_t index_vector_dim =
      fields->count("index_vector_dim") ? fields->at("index_vector_dim")[0] : 0;
  auto fail = [&](const std::string& why) -> Error {
    return Error(ErrorKind::Shape, site.attrs_span.valid() ? site.attrs_span : site.span,
                 "gather of " + type_string(operand) + " at " + type_string(indices) + ": " + why);
  };
  if (!core::is_integer(indices.dtype))
    throw Error(ErrorKind::Type, site.span,
                "gather's start indices must be integers, not " + type_string(indices));
  const int64_t rank = static_cast<int64_t>(operand.shape.size());
  const int64_t index_rank = static_cast<int64_t>(indices.shape.size());
  auto in_range = [&](const std::vector<int64_t>& v, int64_t n) {
    return std::all_of(v.begin(), v.end(), [&](int64_t d) { return d >= 0 && d < n; });
  };
  // (C1)-(C21).
  if (static_cast<int64_t>(offset_dims.size() + collapsed.size() + operand_batching.size()) != rank)
    throw fail("offset_dims, collapsed_slice_dims and operand_batching_dims must together "
               "count the operand's " +
               std::to_string(rank) + " dimensions (C1)");
  if (index_vector_dim < 0 || index_vector_dim > index_rank)
    throw fail("index_vector_dim " + std::to_string(index_vector_dim) + " is outside [0, " +
               std::to_string(index_rank) + "] (C2)");
  const int64_t vector =
      index_vector_dim < index_rank ? indices.shape[static_cast<size_t>(index_vector_dim)] : 1;
  if (static_cast<int64_t>(start_index_map.size()) != vector)
    throw fail("start_index_map lists " + std::to_string(start_index_map.size()) +
               " dimensions; the index vectors have " + std::to_string(vector) + " (C3)");
  if (!sorted_unique(offset_dims) || !sorted_unique(collapsed) || !sorted_unique(operand_batching))
    throw fail("offset_dims, collapsed_slice_dims and operand_batching_dims must each be "
               "increasing (C4, C7, C10)");
  std::vector<int64_t> dropped = collapsed;
  dropped.insert(dropped.end(), operand_batching.begin(), operand_batching.end());
  if (!unique(dropped) || !in_range(dropped, rank))
    throw fail("collapsed_slice_dims and operand_batching_dims must be distinct dimensions of "
               "the operand (C6, C8, C11)");
  if (static_cast<int64_t>(slice_sizes.size()) != rank)
    throw fail("slice_sizes has " + std::to_string(slice_sizes.size()) +
               " values for an operand of rank " + std::to_string(rank) + " (C20)");
  for (int64_t d = 0; d < rank; ++d)
    if (slice_sizes[static_cast<size_t>(d)] < 0 ||
        slice_sizes[static_cast<size_t>(d)] > operand.shape[static_cast<size_t>(d)])
      throw fail("slice size " + std::to_string(slice_sizes[static_cast<size_t>(d)]) +
                 " of dimension " + std::to_string(d) + " is outside [0, " +
                 std::to_string(operand.shape[static_cast<size_t>(d)]) + "] (C21)");
  for (int64_t d : dropped)
    if (slice_sizes[static_cast<size_t>(d)] > 1)
      throw fail("dimension " + std::to_string(d) +
                 " is collapsed or batching, so its slice size must be at most 1 (C9, C12)");
  if (!unique(indices_batching) || !in_range(indices_batching, index_rank) ||
      std::count(indices_batching.begin(), indices_batching.end(), index_vector_dim))
    throw fail("start_indices_batching_dims must be distinct dimensions of the start indices "
               "other than index_vector_dim (C13-C15)");
  if (indices_batching.size() != operand_batching.size())
    throw fail("operand_batching_dims and start_indices_batching_dims differ in length (C16)");
  for (size_t i = 0; i < operand_batching.size(); ++i)
    if (operand.shape[static_cast<size_t>(operand_batching[i])] !=
        indices.shape[static_cast<size_t>(indices_batching[i])])
      throw fail("batching dimension " + std::to_string(operand_batching[i]) +
                 " of the operand and " + std::to_string(indices_batching[i]) +
                 " of the start indices have different extents (C17)");
  std::vector<int64_t> mapped = start_index_map;
  mapped.insert(mapped.end(), operand_batching.begin(), operand_batching.end());
  if (!unique(mapped) || !in_range(start_index_map, rank))
    throw fail("start_index_map must name distinct operand dimensions, none a batching one "
               "(C18, C19)");
  // (C22): the batch dimensions of the start indices at the result's axes
  // outside offset_dims, the kept slice sizes at offset_dims.
  std::vector<int64_t> batch_sizes, offset_sizes;
  for (int64_t d = 0; d < index_rank; ++d)
    if (d != index_vector_dim)
      batch_sizes.push_back(indices.shape[static_cast<size_t>(d)]);
  for (int64_t d = 0; d < rank; ++d)
    if (!std::count(dropped.begin(), dropped.end(), d))
      offset_sizes.push_back(slice_sizes[static_cast<size_t>(d)]);
  const int64_t result_rank = static_cast<int64_t>(batch_sizes.size() + offset_sizes.size());
  if (!in_range(offset_dims, result_rank))
    throw fail("offset_dims must be dimensions of the result, in [0, " +
               std::to_string(result_rank) + ") (C5)");
  if (site.declared_outs.size() != 1)
    throw Error(ErrorKind::Shape, site.span, "gather has one result");
  if (site.declared_outs[0].dtype != operand.dtype)
    throw Error(ErrorKind::Type, site.span,
                "gather's result must have the operand's element type (C23)");
  ValueType result{operand.dtype, {}};
  for (int64_t d = 0, b = 0, o = 0; d < result_rank; ++d)
    result.shape.push_back(std::count(offset_dims.begin(), offset_dims.end(), d)
                               ? offset_sizes[static_cast<size_t>(o++)]
                               : batch_sizes[static_cast<size_t>(b++)]);
  node.op = core::GraphOp::Gather;
  node.attrs["offset_dims"] = offset_dims;
  node.attrs["collapsed_slice_dims"] = collapsed;
  node.attrs["operand_batching_dims"] = operand_batching;
  node.attrs["start_indices_batching_dims"] = indices_batching;
  node.attrs["start_index_map"] = start_index_map;
  node.attrs["index_vector_dim"] = index_vector_dim;
  node.attrs["slice_sizes"] = slice_sizes;
  return result;
}

} // namespace teval::parser::mlir_detail
