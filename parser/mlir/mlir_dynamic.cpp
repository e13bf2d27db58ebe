// The dynamic forms whose results are static (StableHLO specification,
// "dynamic_iota", "dynamic_reshape", "dynamic_broadcast_in_dim",
// "dynamic_pad") and
// get_dimension_size: each read as the static op it then is, its shape
// operand a constant that must say the result type's shape.
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"
#include "core/format.h"

namespace teval::parser::mlir_detail {

namespace {

using core::Error;
using core::ErrorKind;
using core::ValueType;

// The values of operand \p at of \p site (its \p what), a constant
// 1-dimensional integer tensor of \p count elements.
std::vector<int64_t> constant_ints(const OpSite& site, const core::Graph& g, size_t at,
                                   const std::string& what, size_t count) {
  const int v = site.operands.at(at);
  const ValueType& t = g.values[static_cast<size_t>(v)];
  const std::string op = site.name;
  if (t.shape.size() != 1 || !core::is_integer(t.dtype) || core::is_bool(t.dtype))
    throw Error(ErrorKind::Type, site.span,
                op + "'s " + what + " is " + type_string(t) +
                    ": a 1-dimensional tensor of integers is needed");
  const core::Tensor* c = core::constant_value(g, v);
  if (!c)
    throw Error(ErrorKind::Unsupported, site.span,
                op + "'s " + what +
                    " is not a constant: teval reads the dynamic forms whose "
                    "result shape is static and given by constants");
  if (c->numel() != static_cast<int64_t>(count))
    throw Error(ErrorKind::Shape, site.span,
                op + "'s " + what + " has " + std::to_string(c->numel()) + " elements; " +
                    std::to_string(count) + " are needed, one per dimension");
  std::vector<int64_t> values;
  for (int64_t i = 0; i < c->numel(); ++i)
    values.push_back(c->get(i).i);
  return values;
}

// The constant shape operand \p at of \p site, checked to be the result
// type's shape.
void check_shape_operand(const OpSite& site, const core::Graph& g, size_t at) {
  const ValueType& t = g.values[static_cast<size_t>(site.operands.at(at))];
  const core::Shape& result = site.declared_outs.at(0).shape;
  std::vector<int64_t> held =
      constant_ints(site, g, at, "shape operand", t.shape.size() == 1 ? size_t(t.shape[0]) : 0);
  if (held != std::vector<int64_t>(result.begin(), result.end()))
    throw Error(ErrorKind::Shape, site.span,
                site.name + "'s shape operand holds [" + core::format_index(held) +
                    "], but the result type is " + type_string(site.declared_outs.at(0)));
}

} // namespace

std::optional<std::vector<ValueType>> alias_meaning(const OpSite& site, const core::Graph& g,
                                                    core::GraphNode& node) {
  if (site.name == "get_dimension_size") {
    if (site.operands.size() != 1)
      throw Error(ErrorKind::Shape, site.span, "get_dimension_size takes one operand");
    const bool pretty = site.attrs.count("dim") > 0;
    only(site, {pretty ? "dim" : "dimension"});
    const ValueType& x = g.values[static_cast<size_t>(site.operands[0])];
    int64_t d = axis_attr(site, pretty ? "dim" : "dimension", x.shape.size());
    core::Tensor size(core::DType::Int32, {});
    size.set(0, core::Scalar::of_int(core::DType::Int32, x.shape[static_cast<size_t>(d)]));
    node.op = core::GraphOp::Constant; // the extent, known from the type
    node.operands.clear();
    node.attrs["value"] = size;
    return std::vector<ValueType>{ValueType{core::DType::Int32, {}}};
  }
  if (site.name == "dynamic_pad") {
    if (site.operands.size() != 5)
      throw Error(ErrorKind::Shape, site.span,
                  "dynamic_pad takes 5 operands (operand, padding value, low, high, interior), "
                  "not " +
                      std::to_string(site.operands.size()));
    only(site, {});
    const ValueType& x = g.values[static_cast<size_t>(site.operands[0])];
    std::vector<int64_t> amounts[3];
    const char* names[3] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
    for (size_t k = 0; k < 3; ++k)
      amounts[k] = constant_ints(site, g, 2 + k, names[k], x.shape.size());
    node.op = core::GraphOp::Pad;
    node.operands.resize(2);
    return std::vector<ValueType>{pad_type(site, x, g.values[static_cast<size_t>(site.operands[1])],
                                           amounts[0], amounts[1], amounts[2], node)};
  }
  if (site.name == "dynamic_conv") { // convolution, its padding a constant operand
    if (site.operands.size() != 3)
      throw Error(ErrorKind::Shape, site.span,
                  "dynamic_conv takes 3 operands (lhs, rhs, padding), not " +
                      std::to_string(site.operands.size()));
    const ValueType& lhs = g.values[static_cast<size_t>(site.operands[0])];
    const ValueType& rhs = g.values[static_cast<size_t>(site.operands[1])];
    const ValueType& pad = g.values[static_cast<size_t>(site.operands[2])];
    const int64_t spatial = lhs.shape.size() >= 2 ? static_cast<int64_t>(lhs.shape.size()) - 2 : 0;
    if (pad.shape != core::Shape{spatial, 2} || !core::is_integer(pad.dtype))
      throw Error(ErrorKind::Type, site.span,
                  "dynamic_conv's padding is " + type_string(pad) + ": a tensor<" +
                      std::to_string(spatial) +
                      "x2> of integers is needed, a low and a high amount per spatial dimension");
    const core::Tensor* c = core::constant_value(g, site.operands[2]);
    if (!c)
      throw Error(ErrorKind::Unsupported, site.span,
                  "dynamic_conv's padding is not a constant: teval reads the dynamic forms whose "
                  "result shape is static and given by constants");
    std::vector<int64_t> padding;
    for (int64_t i = 0; i < c->numel(); ++i)
      padding.push_back(c->get(i).i);
    node.op = core::GraphOp::Convolution;
    node.operands.resize(2);
    return std::vector<ValueType>{convolution_meaning(site, lhs, rhs, node, &padding)};
  }
  if (site.name == "dynamic_gather") {
    if (site.operands.size() != 3)
      throw Error(ErrorKind::Shape, site.span,
                  "dynamic_gather takes 3 operands (operand, start indices, slice sizes), not " +
                      std::to_string(site.operands.size()));
    only(site, {"dimension_numbers", "indices_are_sorted"});
    bool_attr(site, "indices_are_sorted", false);
    const ValueType& x = g.values[static_cast<size_t>(site.operands[0])];
    std::vector<int64_t> sizes = constant_ints(site, g, 2, "slice_sizes", x.shape.size());
    node.operands.resize(2);
    return std::vector<ValueType>{
        gather_meaning(site, x, g.values[static_cast<size_t>(site.operands[1])], sizes, node)};
  }
  size_t shape_at = 0;
  if (site.name == "dynamic_reshape" || site.name == "dynamic_broadcast_in_dim")
    shape_at = 1;
  else if (site.name != "dynamic_iota")
    return std::nullopt;
  if (site.operands.size() != shape_at + 1)
    throw Error(ErrorKind::Shape, site.span,
                site.name + " takes " + std::to_string(shape_at + 1) + " operand" +
                    (shape_at ? "s" : "") + ", not " + std::to_string(site.operands.size()));
  if (site.declared_outs.size() != 1)
    throw Error(ErrorKind::Shape, site.span, site.name + " has one result");
  check_shape_operand(site, g, shape_at);
  OpSite static_site = site;
  static_site.name = site.name.substr(std::string("dynamic_").size());
  static_site.operands.erase(static_site.operands.begin() + static_cast<std::ptrdiff_t>(shape_at));
  if (static_site.declared_ins.size() > shape_at)
    static_site.declared_ins.erase(static_site.declared_ins.begin() +
                                   static_cast<std::ptrdiff_t>(shape_at));
  // The expansion hints say nothing a static shape does not: read, checked
  // as lists of the operand's dimensions, and left.
  for (const char* hint : {"known_expanding_dimensions", "known_nonexpanding_dimensions"})
    if (site.name == "dynamic_broadcast_in_dim" && site.attrs.count(hint)) {
      const ValueType& x = g.values[static_cast<size_t>(site.operands[0])];
      for (int64_t d : ints_attr(site, hint))
        if (d < 0 || d >= static_cast<int64_t>(x.shape.size()))
          throw Error(ErrorKind::Range, find(site, hint, true)->span,
                      std::string(hint) + " lists dimension " + std::to_string(d) +
                          "; the operand has " + std::to_string(x.shape.size()));
      static_site.attrs.erase(hint);
    }
  node.operands = static_site.operands;
  return meaning(static_site, g, node);
}

} // namespace teval::parser::mlir_detail
