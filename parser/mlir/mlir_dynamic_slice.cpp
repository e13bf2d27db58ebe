// dynamic_slice and dynamic_update_slice (StableHLO specification, the
// sections of those names): the start indices as rank-0 operands, the
// slice's sizes (generic slice_sizes, pretty sizes), checked as the
// specification's constraints say.
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"

namespace teval::parser::mlir_detail {

namespace {

// (C2)-(C5) of dynamic_slice's start indices, (C4)-(C5) of
// dynamic_update_slice's: one rank-0 integer operand per dimension, all of
// one type.
void check_starts(const OpSite& site, const std::vector<core::ValueType>& starts, size_t rank) {
  using core::Error;
  using core::ErrorKind;
  const std::string op(core::graph_op_name(site.op));
  if (starts.size() != rank)
    throw Error(ErrorKind::Shape, site.span,
                op + " takes one start index per dimension of its " + std::to_string(rank) +
                    "-dimensional operand, not " + std::to_string(starts.size()));
  for (const core::ValueType& s : starts)
    if (!s.shape.empty() || !core::is_integer(s.dtype) || core::is_bool(s.dtype) ||
        s.dtype != starts[0].dtype)
      throw Error(ErrorKind::Type, site.span,
                  op + "'s start indices are rank-0 integer tensors of one type; one is " +
                      type_string(s));
}

} // namespace

core::ValueType dynamic_slice_meaning(const OpSite& site,
                                      const std::vector<core::ValueType>& operands,
                                      core::GraphNode& node) {
  using core::Error;
  using core::ErrorKind;
  const bool pretty = site.attrs.count("sizes") > 0;
  const std::string name = pretty ? "sizes" : "slice_sizes";
  only(site, {name});
  if (operands.empty())
    throw Error(ErrorKind::Shape, site.span, "dynamic_slice takes an operand and start indices");
  const core::ValueType& x = operands[0];
  check_starts(site, {operands.begin() + 1, operands.end()}, x.shape.size());
  std::vector<int64_t> sizes = ints_attr(site, name);
  if (sizes.size() != x.shape.size()) // (C2)
    throw Error(ErrorKind::Shape, find(site, name, true)->span,
                "dynamic_slice needs a size for each of the operand's " +
                    std::to_string(x.shape.size()) + " dimensions");
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] < 0 || sizes[d] > x.shape[d]) // (C4)
      throw Error(ErrorKind::Shape, find(site, name, true)->span,
                  "dynamic_slice's size of dimension " + std::to_string(d) + " is " +
                      std::to_string(sizes[d]) + ": it must be in [0, " +
                      std::to_string(x.shape[d]) + "], the operand's extent");
  node.attrs["sizes"] = sizes;
  return core::ValueType{x.dtype, sizes}; // (C1), (C5)
}

core::ValueType dynamic_update_slice_meaning(const OpSite& site,
                                             const std::vector<core::ValueType>& operands,
                                             core::GraphNode&) {
  using core::Error;
  using core::ErrorKind;
  only(site, {});
  if (operands.size() < 2)
    throw Error(ErrorKind::Shape, site.span,
                "dynamic_update_slice takes an operand, an update and start indices");
  const core::ValueType &x = operands[0], &update = operands[1];
  bool fits = update.dtype == x.dtype && update.shape.size() == x.shape.size(); // (C2), (C3)
  for (size_t d = 0; fits && d < x.shape.size(); ++d)
    fits = update.shape[d] <= x.shape[d]; // (C6)
  if (!fits)
    throw Error(ErrorKind::Shape, site.span,
                "dynamic_update_slice's update is " + type_string(update) +
                    ": it must have the operand's element type and rank, and no extent beyond "
                    "the operand's " +
                    type_string(x));
  check_starts(site, {operands.begin() + 2, operands.end()}, x.shape.size());
  return x; // (C1)
}

} // namespace teval::parser::mlir_detail
