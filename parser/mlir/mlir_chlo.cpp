// CHLO's ops that are StableHLO ops with sugar (the CHLO dialect's
// ChloOps.td, and its legalization to StableHLO): the broadcasting binary
// ops (chlo.broadcast_add ...), read as broadcast_in_dim of the operands
// that need it and then the StableHLO op, and chlo.square, chlo.conj and
// chlo.constant_like, read as the compositions CHLO defines them as. So
// every engine, the oracle and --dump-values see the ops they stand for.
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"

#include <algorithm>
#include <utility>

namespace teval::parser::mlir_detail {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphNode;
using core::GraphOp;
using core::ValueType;

int add_node(core::Graph& g, core::Span span, GraphOp op, std::vector<int> operands,
             const ValueType& t, const std::string& path,
             std::map<std::string, core::GraphAttr> attrs) {
  GraphNode n;
  n.op = op;
  n.operands = std::move(operands);
  n.attrs = std::move(attrs);
  n.span = span;
  const int id = g.add_value(t, path);
  g.value_paths.emplace(path, id);
  n.results.push_back(id);
  g.nodes.push_back(std::move(n));
  return id;
}

namespace {

const ValueType& type_of(const core::Graph& g, int v) {
  return g.values[static_cast<size_t>(v)];
}

} // namespace

void chlo_broadcast(OpSite& site, core::Graph& g, const std::string& prefix) {
  const size_t n = site.operands.size();
  if (n < 2)
    return; // the op's own reading reports the count
  std::vector<ValueType> in;
  for (int v : site.operands)
    in.push_back(type_of(g, v));
  size_t rank = 0;
  for (const ValueType& t : in)
    rank = std::max(rank, t.shape.size());
  // Where each operand's dimensions go in the result: broadcast_dimensions
  // for the operand of lower rank, else aligned to the trailing dimensions
  // ("numpy" rank broadcasting, ChloOps.td).
  std::vector<std::vector<int64_t>> where(n);
  std::optional<std::vector<int64_t>> explicit_dims;
  if (find(site, "broadcast_dimensions", false))
    explicit_dims = ints_attr(site, "broadcast_dimensions");
  const core::Span attr_span =
      explicit_dims ? find(site, "broadcast_dimensions", true)->span : site.attrs_span;
  if (explicit_dims && n != 2)
    throw Error(ErrorKind::Shape, attr_span, site.call->callee + " has no broadcast_dimensions");
  for (size_t i = 0; i < n; ++i) {
    const size_t r = in[i].shape.size();
    // The operand of lower rank takes the explicit mapping; of two of one
    // rank, the mapping must be the identity.
    const bool mapped = explicit_dims && (r < rank || in[0].shape.size() == in[1].shape.size());
    if (mapped && explicit_dims->size() != r)
      throw Error(ErrorKind::Shape, attr_span,
                  "broadcast_dimensions has " + std::to_string(explicit_dims->size()) +
                      " entries; it maps the dimensions of the operand of lower rank, " +
                      type_string(in[i]) + ", which has " + std::to_string(r));
    for (size_t k = 0; k < r; ++k)
      where[i].push_back(mapped ? (*explicit_dims)[k] : static_cast<int64_t>(rank - r + k));
    if (mapped && r == rank)
      for (size_t k = 0; k < r; ++k)
        if (where[i][k] != static_cast<int64_t>(k))
          throw Error(ErrorKind::Shape, attr_span,
                      "broadcast_dimensions of operands of one rank must be the identity");
    std::vector<int64_t> seen;
    for (int64_t d : where[i]) {
      if (d < 0 || d >= static_cast<int64_t>(rank) ||
          std::find(seen.begin(), seen.end(), d) != seen.end())
        throw Error(ErrorKind::Shape, attr_span,
                    "broadcast_dimensions must be distinct dimensions of the result's rank " +
                        std::to_string(rank) + ", not " + std::to_string(d));
      seen.push_back(d);
    }
  }
  // The result's extents: an extent of 1 stretches to the other's.
  core::Shape extents(rank, 1);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < where[i].size(); ++k) {
      const auto d = static_cast<size_t>(where[i][k]);
      const int64_t e = in[i].shape[k];
      if (extents[d] == 1) {
        extents[d] = e;
      } else if (e != 1 && e != extents[d]) {
        std::string all;
        for (const ValueType& t : in)
          all += (all.empty() ? "" : ", ") + type_string(t);
        throw Error(ErrorKind::Shape, site.span,
                    site.call->callee + "'s operands " + all + " do not broadcast: dimension " +
                        std::to_string(d) + " of the result is " + std::to_string(extents[d]) +
                        " in one and " + std::to_string(e) + " in another");
      }
    }
  static const char* const kNames[] = {"lhs", "rhs", "third"};
  static const char* const kSelectNames[] = {"pred", "on_true", "on_false"};
  for (size_t i = 0; i < n; ++i) {
    if (in[i].shape == extents)
      continue;
    ValueType t = in[i];
    t.shape = extents;
    const std::string name = (site.op == GraphOp::Select ? kSelectNames : kNames)[std::min(i, 2ul)];
    site.operands[i] = add_node(g, site.span, GraphOp::BroadcastInDim, {site.operands[i]}, t,
                                prefix + name + "_bcast", {{"dims", where[i]}});
    site.declared_ins[i] = t;
  }
  site.attrs.erase("broadcast_dimensions");
  site.attr_names.erase("broadcast_dimensions");
  // CHLO's compare_type NOTYPE is no type: the element type's (StableHLO
  // compare's (C3)).
  if (site.op == GraphOp::Compare && enum_word(site, "compare_type", 99) == "NOTYPE") {
    site.attrs.erase("compare_type");
    site.attr_names.erase("compare_type");
  }
}

bool is_chlo_composition(const std::string& name) {
  return name == "chlo.square" || name == "chlo.conj" || name == "chlo.constant_like";
}

std::vector<int> chlo_composition(const OpSite& site, core::Graph& g, const std::string& prefix) {
  if (site.operands.size() != 1)
    throw Error(ErrorKind::Shape, site.span,
                site.name + " takes one operand, not " + std::to_string(site.operands.size()));
  const int x = site.operands[0];
  const ValueType t = type_of(g, x);
  if (site.name == "chlo.constant_like") {
    // A splat of `value` (of the operand's element type) in the operand's
    // shape.
    only(site, {"value"});
    const ast::Expr* v = find(site, "value", true);
    const Typed written = typed(*v);
    if (written.type && element_type(text(*written.type)) != t.dtype)
      throw Error(ErrorKind::Type, v->span,
                  "chlo.constant_like's value is of " + text(*written.type) + "; its operand is " +
                      type_string(t));
    const core::Scalar s = element_value(*written.value, t.dtype);
    core::Tensor c(t.dtype, t.shape);
    for (int64_t i = 0; i < c.numel(); ++i)
      c.set(i, s);
    return {add_node(g, site.span, GraphOp::Constant, {}, {t.dtype, t.shape}, prefix + "value",
                     {{"value", std::move(c)}})};
  }
  only(site, {});
  if (t.quant || !(core::is_float(t.dtype) || core::is_complex(t.dtype)))
    throw Error(ErrorKind::Type, site.span,
                site.name + " takes float or complex values, not " + type_string(t));
  if (site.name == "chlo.square") {
    if (!core::is_complex(t.dtype)) // x * x
      return {add_node(g, site.span, GraphOp::Multiply, {x, x}, t, prefix + "square")};
    // complex((re - im) * (re + im), re * im * 2), as ChloOps.td defines it.
    const ValueType part{core::complex_part(t.dtype), t.shape};
    const int re = add_node(g, site.span, GraphOp::Real, {x}, part, prefix + "real");
    const int im = add_node(g, site.span, GraphOp::Imag, {x}, part, prefix + "imag");
    const int difference =
        add_node(g, site.span, GraphOp::Subtract, {re, im}, part, prefix + "difference");
    const int sum = add_node(g, site.span, GraphOp::Add, {re, im}, part, prefix + "sum");
    const int real =
        add_node(g, site.span, GraphOp::Multiply, {difference, sum}, part, prefix + "square_real");
    const int product =
        add_node(g, site.span, GraphOp::Multiply, {re, im}, part, prefix + "product");
    core::Tensor two(part.dtype, part.shape);
    for (int64_t i = 0; i < two.numel(); ++i)
      two.set(i, core::Scalar::of_float(part.dtype, 2.0));
    const int twos =
        add_node(g, site.span, GraphOp::Constant, {}, part, prefix + "two", {{"value", two}});
    const int imag =
        add_node(g, site.span, GraphOp::Multiply, {product, twos}, part, prefix + "square_imag");
    return {add_node(g, site.span, GraphOp::Complex, {real, imag}, t, prefix + "square")};
  }
  // chlo.conj: a float is its own conjugate; a complex value's imaginary
  // part is negated.
  if (!core::is_complex(t.dtype))
    return {x};
  const ValueType part{core::complex_part(t.dtype), t.shape};
  const int re = add_node(g, site.span, GraphOp::Real, {x}, part, prefix + "real");
  const int im = add_node(g, site.span, GraphOp::Imag, {x}, part, prefix + "imag");
  const int negated = add_node(g, site.span, GraphOp::Negate, {im}, part, prefix + "negated_imag");
  return {add_node(g, site.span, GraphOp::Complex, {re, negated}, t, prefix + "conj")};
}

} // namespace teval::parser::mlir_detail
