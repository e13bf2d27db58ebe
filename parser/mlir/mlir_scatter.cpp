// scatter and select_and_scatter (StableHLO specification, the sections of
// those names): their operands, attributes and region types checked as the
// constraints (C1)-(C22) and (C1)-(C12) say; the Elaborator
// (parser/mlir/mlir.cpp) reads their regions.
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"
#include "core/format.h"

#include <algorithm>
#include <functional>

namespace teval::parser::mlir_detail {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::ValueType;

std::vector<ValueType> scatter_meaning(const OpSite& site, const std::vector<ValueType>& operands,
                                       core::GraphNode& node) {
  only(site, {"scatter_dimension_numbers", "indices_are_sorted", "unique_indices"});
  bool_attr(site, "indices_are_sorted", false); // promises, of no meaning here
  bool_attr(site, "unique_indices", false);
  if (operands.size() < 3 || operands.size() % 2 == 0)
    throw Error(ErrorKind::Shape, site.span,
                "scatter takes N inputs, the scatter indices and N updates (C5)");
  const size_t n = (operands.size() - 1) / 2;
  auto type = [&](size_t i) { return operands[i]; };
  const ValueType indices = type(n);
  auto fail = [&](const std::string& why) -> Error {
    return Error(ErrorKind::Shape, site.span, "scatter: " + why);
  };
  std::vector<ValueType> inputs, params;
  for (size_t i = 0; i < n; ++i) {
    inputs.push_back(type(i));
    if (type(i).shape != type(0).shape || type(n + 1 + i).shape != type(n + 1).shape)
      throw fail("the inputs have one shape, the updates another (C1, C3)");
    // Quantized: per-tensor (I1, I3), the update of its input's quantized
    // type; the update computation runs on quantized scalars.
    if (type(n + 1 + i).dtype != type(i).dtype ||
        !core::same_quantization(type(n + 1 + i), type(i)))
      throw fail("update " + std::to_string(i) + " is " + type_string(type(n + 1 + i)) +
                 "; input " + std::to_string(i) + " is " + type_string(type(i)) + " (C6)");
    if (type(i).quant && type(i).quant->axis)
      throw fail("input " + std::to_string(i) + " is " + type_string(type(i)) +
                 "; quantized inputs are per-tensor (I1)");
    params.push_back(ValueType{type(i).dtype, {}, type(i).quant});
  }
  for (size_t i = 0; i < n; ++i)
    params.push_back(params[i]);
  if (!core::is_integer(indices.dtype))
    throw fail("the scatter indices must be integers, not " + type_string(indices));
  const ast::Expr* e = find(site, "scatter_dimension_numbers", true);
  const ast::Name* written = ast::as_name(*e);
  auto fields = dialect_fields(written ? written->id : text(*e));
  auto list = [&](const char* key) {
    auto it = fields->find(key);
    return it == fields->end() ? std::vector<int64_t>{} : it->second;
  };
  // StableHLO's printer leaves out a field that is empty or 0: an absent
  // index_vector_dim is 0, as its parser reads it.
  if (!fields || (fields->count("index_vector_dim") && fields->at("index_vector_dim").size() != 1))
    throw Error(ErrorKind::Type, e->span,
                "scatter_dimension_numbers must be #stablehlo.scatter<update_window_dims = "
                "[...], inserted_window_dims = [...], input_batching_dims = [...], "
                "scatter_indices_batching_dims = [...], scatter_dims_to_operand_dims = [...], "
                "index_vector_dim = N>");
  const std::vector<int64_t> window = list("update_window_dims"),
                             inserted = list("inserted_window_dims"),
                             input_batching = list("input_batching_dims"),
                             indices_batching = list("scatter_indices_batching_dims"),
                             to_operand = list("scatter_dims_to_operand_dims");
  const int64_t vector_dim =
      fields->count("index_vector_dim") ? fields->at("index_vector_dim")[0] : 0;
  const int64_t rank = static_cast<int64_t>(inputs[0].shape.size());
  const int64_t index_rank = static_cast<int64_t>(indices.shape.size());
  const core::Shape& updates = type(n + 1).shape;
  const int64_t update_rank = static_cast<int64_t>(updates.size());
  auto in_range = [](const std::vector<int64_t>& v, int64_t r) {
    return std::all_of(v.begin(), v.end(), [&](int64_t d) { return d >= 0 && d < r; });
  };
  auto sorted_unique = [](const std::vector<int64_t>& v) {
    return std::adjacent_find(v.begin(), v.end(), std::greater_equal<int64_t>()) == v.end();
  };
  auto unique = [](std::vector<int64_t> v) {
    std::sort(v.begin(), v.end());
    return std::adjacent_find(v.begin(), v.end()) == v.end();
  };
  std::vector<int64_t> dropped = inserted;
  dropped.insert(dropped.end(), input_batching.begin(), input_batching.end());
  std::vector<int64_t> mapped = to_operand;
  mapped.insert(mapped.end(), input_batching.begin(), input_batching.end());
  if (static_cast<int64_t>(window.size() + dropped.size()) != rank)
    throw fail("update_window_dims, inserted_window_dims and input_batching_dims must "
               "together count the inputs' " +
               std::to_string(rank) + " dimensions (C2)");
  if (!sorted_unique(window) || !in_range(window, update_rank))
    throw fail("update_window_dims must be increasing dimensions of the updates (C7, C8)");
  if (!unique(dropped) || !in_range(dropped, rank) || !sorted_unique(inserted) ||
      !sorted_unique(input_batching))
    throw fail("inserted_window_dims and input_batching_dims must be distinct, increasing "
               "dimensions of the inputs (C9-C13)");
  if (vector_dim < 0 || vector_dim > index_rank)
    throw fail("index_vector_dim " + std::to_string(vector_dim) + " is outside [0, " +
               std::to_string(index_rank) + "] (C22)");
  if (!unique(indices_batching) || !in_range(indices_batching, index_rank) ||
      std::count(indices_batching.begin(), indices_batching.end(), vector_dim) ||
      indices_batching.size() != input_batching.size())
    throw fail("scatter_indices_batching_dims must be distinct dimensions of the indices "
               "other than index_vector_dim, one per input batching dimension (C14-C17)");
  for (size_t i = 0; i < input_batching.size(); ++i)
    if (inputs[0].shape[static_cast<size_t>(input_batching[i])] !=
        indices.shape[static_cast<size_t>(indices_batching[i])])
      throw fail("batching dimensions of different extents (C18)");
  const int64_t vector =
      vector_dim < index_rank ? indices.shape[static_cast<size_t>(vector_dim)] : 1;
  if (static_cast<int64_t>(to_operand.size()) != vector || !unique(mapped) ||
      !in_range(to_operand, rank))
    throw fail("scatter_dims_to_operand_dims must name " + std::to_string(vector) +
               " distinct input dimensions, none a batching one (C19-C21)");
  // (C4): the updates' scatter dimensions are the indices' but the
  // vector one; their window dimensions at most the kept input extents.
  std::vector<int64_t> scatter_sizes, kept;
  for (int64_t d = 0; d < index_rank; ++d)
    if (d != vector_dim)
      scatter_sizes.push_back(indices.shape[static_cast<size_t>(d)]);
  for (int64_t d = 0; d < rank; ++d)
    if (!std::count(dropped.begin(), dropped.end(), d))
      kept.push_back(inputs[0].shape[static_cast<size_t>(d)]);
  bool fits_updates = update_rank == static_cast<int64_t>(scatter_sizes.size() + window.size());
  for (int64_t d = 0, s = 0, w = 0; fits_updates && d < update_rank; ++d)
    fits_updates = std::count(window.begin(), window.end(), d)
                       ? updates[static_cast<size_t>(d)] <= kept[static_cast<size_t>(w++)]
                       : updates[static_cast<size_t>(d)] == scatter_sizes[static_cast<size_t>(s++)];
  if (!fits_updates)
    throw fail("the updates' shape " + core::to_string(updates) +
               " is not the indices' batch extents with window extents no larger than the "
               "inputs' (C4)");
  node.attrs["update_window_dims"] = window;
  node.attrs["inserted_window_dims"] = inserted;
  node.attrs["input_batching_dims"] = input_batching;
  node.attrs["scatter_indices_batching_dims"] = indices_batching;
  node.attrs["scatter_dims_to_operand_dims"] = to_operand;
  node.attrs["index_vector_dim"] = vector_dim;
  return params;
}

ValueType select_and_scatter_meaning(const OpSite& site, const std::vector<ValueType>& operands,
                                     core::GraphNode& node) {
  only(site, {"window_dimensions", "window_strides", "padding"});
  if (operands.size() != 3)
    throw Error(ErrorKind::Shape, site.span,
                "select_and_scatter takes an operand, a source and an initial value");
  auto type = [&](size_t i) { return operands[i]; };
  const ValueType x = type(0), source = type(1), init = type(2), element{x.dtype, {}, x.quant};
  auto fail = [&](const std::string& why) {
    return Error(ErrorKind::Shape, site.span, "select_and_scatter: " + why);
  };
  // Quantized: per-tensor, all three of one quantized type (I1-I3); the
  // select and scatter functions run on quantized scalars.
  if (x.quant && x.quant->axis)
    throw fail("the operand is " + type_string(x) + "; a quantized one is per-tensor (I1)");
  if (source.dtype != x.dtype || !core::same_quantization(source, x))
    throw fail("the source is " + type_string(source) + "; the operand is " + type_string(x) +
               " (C1)");
  if (!init.shape.empty() || init.dtype != x.dtype || !core::same_quantization(init, x))
    throw fail("the initial value is " + type_string(init) + "; it must be " +
               type_string(element) + " (C3)");
  const size_t rank = x.shape.size();
  auto list = [&](const char* name, size_t count, int64_t fallback, int64_t least) {
    const ast::Expr* e = find(site, name, false);
    if (!e)
      return std::vector<int64_t>(count, fallback);
    std::vector<int64_t> v = flat_ints(*e, name);
    if (v.size() != count)
      throw Error(ErrorKind::Shape, e->span,
                  std::string("select_and_scatter's `") + name + "` has " +
                      std::to_string(v.size()) + " values; an operand of rank " +
                      std::to_string(rank) + " needs " + std::to_string(count) + " (C4, C6, C8)");
    for (int64_t a : v)
      if (a < least || a > INT32_MAX)
        throw Error(ErrorKind::Shape, e->span,
                    std::string("select_and_scatter's `") + name + "` must be in [" +
                        std::to_string(least) + ", 2^31), not " + std::to_string(a) + " (C5, C7)");
    return v;
  };
  const std::vector<int64_t> window = list("window_dimensions", rank, 1, 1);
  const std::vector<int64_t> strides = list("window_strides", rank, 1, 1);
  const std::vector<int64_t> padding = list("padding", 2 * rank, 0, -INT32_MAX);
  core::Shape windows;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t padded = padding[2 * d] + x.shape[d] + padding[2 * d + 1];
    windows.push_back(padded <= 0 || window[d] > padded ? 0
                                                        : (padded - window[d]) / strides[d] + 1);
  }
  if (source.shape != windows)
    throw fail("the source is " + type_string(source) + "; the operand has windows " +
               core::to_string(windows) + " (C2)");
  node.attrs["window_dimensions"] = window;
  node.attrs["window_strides"] = strides;
  node.attrs["padding"] = padding;
  return element;
}

} // namespace teval::parser::mlir_detail
