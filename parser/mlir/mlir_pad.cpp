// pad (StableHLO specification, "pad"): the padding amounts in the generic
// spelling (edge_padding_low, edge_padding_high, interior_padding) or the
// pretty one (low, high, interior), checked as the specification's
// constraints (C1)-(C4) say.
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"

#include <algorithm>
#include <cstdlib>

namespace teval::parser::mlir_detail {

core::ValueType pad_meaning(const OpSite& site, const core::ValueType& x,
                            const core::ValueType& value, core::GraphNode& node) {
  using core::Error;
  using core::ErrorKind;
  const bool pretty = site.attrs.count("low") || site.attrs.count("high");
  const char* names[3] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
  if (pretty) {
    names[0] = "low";
    names[1] = "high";
    names[2] = "interior";
  }
  only(site, {names[0], names[1], names[2]});
  return pad_type(site, x, value, ints_attr(site, names[0]), ints_attr(site, names[1]),
                  ints_attr(site, names[2]), node);
}

core::ValueType pad_type(const OpSite& site, const core::ValueType& x, const core::ValueType& value,
                         const std::vector<int64_t>& low, const std::vector<int64_t>& high,
                         const std::vector<int64_t>& interior, core::GraphNode& node) {
  using core::Error;
  using core::ErrorKind;
  if (!value.shape.empty() || value.dtype != x.dtype)
    throw Error(ErrorKind::Shape, site.span,
                "pad's padding value is " + type_string(value) + "; it must be " +
                    type_string(core::ValueType{x.dtype, {}}));
  const size_t rank = x.shape.size();
  if (low.size() != rank || high.size() != rank || interior.size() != rank)
    throw Error(ErrorKind::Shape, site.attrs_span,
                "pad needs a low, a high and an interior padding for each of the operand's " +
                    std::to_string(rank) + " dimensions");
  core::ValueType out{x.dtype, {}};
  for (size_t d = 0; d < rank; ++d) {
    if (interior[d] < 0 || interior[d] > INT32_MAX || std::abs(low[d]) > INT32_MAX ||
        std::abs(high[d]) > INT32_MAX)
      throw Error(ErrorKind::Shape, site.attrs_span,
                  "pad's interior padding of dimension " + std::to_string(d) + " is " +
                      std::to_string(interior[d]) +
                      ": it must be in [0, 2^31), and edge paddings in (-2^31, 2^31)");
    int64_t extent =
        x.shape[d] + low[d] + high[d] + std::max<int64_t>(x.shape[d] - 1, 0) * interior[d];
    if (extent < 0)
      throw Error(ErrorKind::Shape, site.attrs_span,
                  "pad of dimension " + std::to_string(d) + " (extent " +
                      std::to_string(x.shape[d]) +
                      ") removes more elements than it has: the "
                      "result's extent would be " +
                      std::to_string(extent));
    out.shape.push_back(extent);
  }
  node.attrs["low"] = low;
  node.attrs["high"] = high;
  node.attrs["interior"] = interior;
  return out;
}

} // namespace teval::parser::mlir_detail
