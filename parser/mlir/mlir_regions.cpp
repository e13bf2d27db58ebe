// The ops with regions of an MLIR function — if, case, while, sort, map,
// scatter, select_and_scatter and reduce of a region — and the regions
// themselves (mlir_elaborator.h).
#include "parser/mlir/mlir_elaborator.h"

#include "core/error.h"
#include "core/format.h"
#include "core/kernel.h"
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_values.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>

namespace teval::parser::mlir_detail {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphNode;
using core::GraphOp;
using core::Shape;
using core::Span;
using core::ValueType;

void Elaborator::control_flow(const OpSite& site, GraphNode node, const ast::Expr* target) {
  const std::string op(core::graph_op_name(site.op));
  mlir_detail::only(site, {});
  const auto& regions = site.call->regions;
  std::vector<const ast::Expr*> names = result_names(target);
  // The values a region's blocks are named after: the op's first result.
  std::string site_name = names.empty() ? "@" + op : ast::as_name(*names[0])->id;
  site_name = site_name.substr(0, site_name.find('#'));
  std::vector<ValueType> results = site.declared_outs;
  if (site.op == GraphOp::While) {
    results.clear();
    for (int v : site.operands)
      results.push_back(g_.values[static_cast<size_t>(v)]);
    if (regions.size() != 2)
      throw Error(ErrorKind::Shape, site.span, "while has two regions, cond and body");
    node.regions.push_back(region(*regions[0], results, {ValueType{DType::Bool, {}}},
                                  "while's cond", site_name + "/@0/"));
    node.regions.push_back(
        region(*regions[1], results, results, "while's body", site_name + "/@1/"));
  } else {
    if (site.operands.size() != 1)
      throw Error(ErrorKind::Shape, site.span,
                  op + " takes one operand, its " +
                      (site.op == GraphOp::If ? "predicate" : "index"));
    const ValueType& selector = g_.values[static_cast<size_t>(site.operands[0])];
    const ValueType wanted{site.op == GraphOp::If ? DType::Bool : DType::Int32, {}};
    if (selector.dtype != wanted.dtype || !selector.shape.empty())
      throw Error(ErrorKind::Shape, site.call->args[0]->span,
                  op + "'s " + (site.op == GraphOp::If ? "predicate" : "index") + " is " +
                      type_string(selector) + "; it must be " + type_string(wanted));
    if (site.op == GraphOp::If ? regions.size() != 2 : regions.empty())
      throw Error(ErrorKind::Shape, site.span,
                  site.op == GraphOp::If ? "if has two regions, then and else"
                                         : "case has a region for each branch");
    for (size_t r = 0; r < regions.size(); ++r)
      node.regions.push_back(region(*regions[r], {}, results,
                                    op + "'s " +
                                        (site.op == GraphOp::If ? std::string(r ? "else" : "then")
                                                                : "branch " + std::to_string(r)),
                                    site_name + "/@" + std::to_string(r) + "/"));
  }
  define_results(site, std::move(node), target, results);
}

void Elaborator::sort(const OpSite& site, GraphNode node, const ast::Expr* target) {
  mlir_detail::only(site, {"dimension", "is_stable"});
  std::vector<ValueType> inputs, params;
  for (int v : site.operands) {
    inputs.push_back(g_.values[static_cast<size_t>(v)]);
    params.insert(params.end(), 2, ValueType{inputs.back().dtype, {}, inputs.back().quant});
  }
  if (inputs.empty())
    throw Error(ErrorKind::Shape, site.span, "sort takes at least one input (C1)");
  for (const ValueType& t : inputs)
    if (t.shape != inputs[0].shape)
      throw Error(ErrorKind::Shape, site.span,
                  "sort's inputs have one shape; they are " + type_string(inputs[0]) + " and " +
                      type_string(t) + " (C2)");
  const int64_t rank = static_cast<int64_t>(inputs[0].shape.size());
  int64_t dimension =
      mlir_detail::find(site, "dimension", false) ? mlir_detail::int_attr(site, "dimension") : -1;
  if (dimension < -rank || dimension >= rank)
    throw Error(ErrorKind::Range, site.attrs_span,
                "sort's dimension " + std::to_string(dimension) + " is outside [-" +
                    std::to_string(rank) + ", " + std::to_string(rank) + ") (C4)");
  if (site.call->regions.size() != 1)
    throw Error(ErrorKind::Shape, site.span, "sort has one region, its comparator");
  std::vector<const ast::Expr*> names = result_names(target);
  std::string site_name = names.empty() ? "@sort" : ast::as_name(*names[0])->id;
  node.regions.push_back(region(*site.call->regions[0], params, {ValueType{DType::Bool, {}}},
                                "sort's comparator",
                                site_name.substr(0, site_name.find('#')) + "/@0/"));
  node.attrs["dimension"] = dimension < 0 ? dimension + rank : dimension;
  node.attrs["is_stable"] = mlir_detail::bool_attr(site, "is_stable", false);
  define_results(site, std::move(node), target, inputs);
}

void Elaborator::map(const OpSite& site, GraphNode node, const ast::Expr* target) {
  mlir_detail::only(site, {"dimensions"});
  std::vector<ValueType> params;
  for (int v : site.operands)
    params.push_back(g_.values[static_cast<size_t>(v)]);
  if (params.empty())
    throw Error(ErrorKind::Shape, site.span, "map takes at least one input (C2)");
  const core::Shape shape = params[0].shape;
  for (ValueType& t : params) {
    if (t.shape != shape)
      throw Error(ErrorKind::Shape, site.span,
                  "map's inputs have one shape; they are " + type_string(params[0]) + " and " +
                      type_string(t) + " (C1)");
    t.shape.clear();
  }
  std::vector<int64_t> dims = mlir_detail::ints_attr(site, "dimensions"), all(shape.size());
  std::iota(all.begin(), all.end(), 0);
  if (dims != all)
    throw Error(ErrorKind::Shape, mlir_detail::find(site, "dimensions", true)->span,
                "map's dimensions must be every dimension in order, [0, ..., " +
                    std::to_string(static_cast<int64_t>(shape.size()) - 1) + "] (C3)");
  if (site.call->regions.size() != 1 || site.declared_outs.size() != 1)
    throw Error(ErrorKind::Shape, site.span, "map has one region, its computation, and one result");
  const ValueType out{site.declared_outs[0].dtype, {}, site.declared_outs[0].quant};
  std::vector<const ast::Expr*> names = result_names(target);
  std::string site_name = names.empty() ? "@map" : ast::as_name(*names[0])->id;
  node.regions.push_back(region(*site.call->regions[0], params, {out}, "map's computation",
                                site_name.substr(0, site_name.find('#')) + "/@0/"));
  define_results(site, std::move(node), target, {ValueType{out.dtype, shape, out.quant}});
}

void Elaborator::scan(const OpSite& site, GraphNode node, const ast::Expr* target) {
  mlir_detail::only(site, {"inputs", "dimension", "is_reverse", "is_associative", "scan_dim_size",
                           "operandSegmentSizes", "resultSegmentSizes"});
  // The inputs' count: the pretty form's `inputs`, the generic form's
  // operandSegmentSizes.
  int64_t count = 0;
  if (mlir_detail::find(site, "inputs", false)) {
    count = mlir_detail::int_attr(site, "inputs");
  } else {
    std::vector<int64_t> segments = mlir_detail::ints_attr(site, "operandSegmentSizes");
    if (segments.size() != 2)
      throw Error(ErrorKind::Shape, site.attrs_span,
                  "chlo.scan's operandSegmentSizes counts its inputs and its inits");
    count = segments[0];
  }
  const size_t inputs = static_cast<size_t>(count);
  if (count < 0 || inputs > site.operands.size())
    throw Error(ErrorKind::Shape, site.span, "chlo.scan has more inputs than operands");
  const size_t inits = site.operands.size() - inputs;
  const std::vector<ValueType>& outs = site.declared_outs;
  if (outs.size() < inits)
    throw Error(ErrorKind::Shape, site.span,
                "chlo.scan declares " + std::to_string(outs.size()) + " results; its " +
                    std::to_string(inits) + " carries need as many");
  const size_t outputs = outs.size() - inits;
  const int64_t dimension = mlir_detail::int_attr(site, "dimension");
  // The scan's length: the inputs' extent along the dimension, else the
  // outputs', else scan_dim_size.
  int64_t length = -1;
  auto sliced = [&](const ValueType& t, const char* what) {
    if (dimension < 0 || dimension >= static_cast<int64_t>(t.shape.size()))
      throw Error(ErrorKind::Shape, site.attrs_span,
                  std::string("chlo.scan's dimension ") + std::to_string(dimension) +
                      " is not one of its " + what + " " + type_string(t));
    const int64_t extent = t.shape[static_cast<size_t>(dimension)];
    if (length >= 0 && extent != length)
      throw Error(ErrorKind::Shape, site.span,
                  std::string("chlo.scan's ") + what + " " + type_string(t) + " has " +
                      std::to_string(extent) + " elements along dimension " +
                      std::to_string(dimension) + "; the scan has " + std::to_string(length));
    length = extent;
    ValueType slice = t;
    slice.shape.erase(slice.shape.begin() + dimension);
    return slice;
  };
  std::vector<ValueType> params, returns;
  for (size_t i = 0; i < inputs; ++i)
    params.push_back(sliced(g_.values[static_cast<size_t>(site.operands[i])], "input"));
  for (size_t i = 0; i < outputs; ++i)
    returns.push_back(sliced(outs[i], "output"));
  if (mlir_detail::find(site, "scan_dim_size", false)) {
    const int64_t size = mlir_detail::int_attr(site, "scan_dim_size");
    if (size < 0 || (length >= 0 && size != length))
      throw Error(ErrorKind::Shape, site.attrs_span,
                  "chlo.scan's scan_dim_size is " + std::to_string(size) + "; its inputs have " +
                      std::to_string(length));
    length = size;
  }
  if (length < 0)
    throw Error(ErrorKind::Shape, site.span,
                "chlo.scan with neither inputs nor outputs needs its scan_dim_size");
  for (size_t i = 0; i < inits; ++i) {
    const ValueType& carry = g_.values[static_cast<size_t>(site.operands[inputs + i])];
    if (!fits(outs[outputs + i], carry))
      throw Error(ErrorKind::Shape, site.span,
                  "chlo.scan's carry " + std::to_string(i) + " is " + type_string(carry) +
                      ", but its result is declared " + type_string(outs[outputs + i]));
    params.push_back(carry);
    returns.push_back(carry);
  }
  if (site.call->regions.size() != 1)
    throw Error(ErrorKind::Shape, site.span, "chlo.scan has one region, its body");
  std::vector<const ast::Expr*> names = result_names(target);
  std::string site_name = names.empty() ? "@scan" : ast::as_name(*names[0])->id;
  node.regions.push_back(region(*site.call->regions[0], params, returns, "chlo.scan's body",
                                site_name.substr(0, site_name.find('#')) + "/@0/"));
  node.attrs["dimension"] = dimension;
  node.attrs["inputs"] = count;
  node.attrs["length"] = length;
  node.attrs["is_reverse"] = mlir_detail::bool_attr(site, "is_reverse", false);
  std::vector<ValueType> results(outs.begin(), outs.begin() + static_cast<long>(outputs));
  for (size_t i = 0; i < inits; ++i)
    results.push_back(g_.values[static_cast<size_t>(site.operands[inputs + i])]);
  define_results(site, std::move(node), target, results);
}

void Elaborator::select_and_scatter(const OpSite& site, GraphNode node, const ast::Expr* target) {
  const ValueType element =
      mlir_detail::select_and_scatter_meaning(site, operand_types(site), node);
  if (site.call->regions.size() != 2)
    throw Error(ErrorKind::Shape, site.span,
                "select_and_scatter has two regions, its select and its scatter");
  std::vector<const ast::Expr*> names = result_names(target);
  std::string prefix = names.empty() ? "@select_and_scatter" : ast::as_name(*names[0])->id;
  prefix = prefix.substr(0, prefix.find('#'));
  node.regions.push_back(region(*site.call->regions[0], {element, element},
                                {ValueType{DType::Bool, {}}}, "select_and_scatter's select",
                                prefix + "/@0/"));
  node.regions.push_back(region(*site.call->regions[1], {element, element}, {element},
                                "select_and_scatter's scatter", prefix + "/@1/"));
  define_results(site, std::move(node), target, {operand_types(site)[0]});
}

void Elaborator::scatter(const OpSite& site, GraphNode node, const ast::Expr* target) {
  const std::vector<ValueType> operands = operand_types(site);
  const std::vector<ValueType> params = mlir_detail::scatter_meaning(site, operands, node);
  const auto n = static_cast<std::ptrdiff_t>(params.size() / 2);
  if (site.call->regions.size() != 1)
    throw Error(ErrorKind::Shape, site.span, "scatter has one region, its update computation");
  std::vector<const ast::Expr*> names = result_names(target);
  std::string site_name = names.empty() ? "@scatter" : ast::as_name(*names[0])->id;
  node.regions.push_back(region(
      *site.call->regions[0], params, std::vector<ValueType>(params.begin(), params.begin() + n),
      "scatter's update computation", site_name.substr(0, site_name.find('#')) + "/@0/"));
  define_results(site, std::move(node), target,
                 std::vector<ValueType>(operands.begin(), operands.begin() + n));
}

void Elaborator::reduce_region(const OpSite& site, GraphNode node, const ast::Expr* target) {
  const bool window = site.op == GraphOp::ReduceWindow;
  const std::string op = window ? "reduce_window" : "reduce";
  const std::vector<ValueType> results =
      window ? mlir_detail::reduce_window_region_types(site, operand_types(site), node)
             : mlir_detail::reduce_region_types(site, operand_types(site), node);
  std::vector<ValueType> elements;
  for (const ValueType& r : results)
    elements.push_back({r.dtype, {}, r.quant});
  std::vector<ValueType> params = elements;
  params.insert(params.end(), elements.begin(), elements.end());
  std::vector<const ast::Expr*> names = result_names(target);
  std::string site_name = names.empty() ? "@" + op : ast::as_name(*names[0])->id;
  const std::string prefix = site_name.substr(0, site_name.find('#')) + "/@0/";
  if (const ast::Expr* applies = mlir_detail::find(site, "applies", false)) {
    // `applies OP` of quantized values: the region of OP on two quantized
    // scalars (each application dequantize_op_quantize), as MLIR prints
    // a reduce whose body is that one op.
    core::GraphRegion body;
    GraphNode apply;
    apply.op = mlir_detail::applied_op(site);
    apply.span = applies->span;
    apply.attrs["dequantize_op_quantize"] = true;
    for (const char* name : {"lhs", "rhs"}) {
      body.params.push_back(g_.add_value(elements[0], name));
      g_.value_paths.emplace(prefix_ + prefix + name, body.params.back());
    }
    apply.operands = body.params;
    apply.results.push_back(g_.add_value(elements[0], "applied"));
    g_.value_paths.emplace(prefix_ + prefix + "applied", apply.results[0]);
    body.results = apply.results;
    body.nodes.push_back(std::move(apply));
    node.regions.push_back(std::move(body));
    define_results(site, std::move(node), target, results);
    return;
  }
  if (site.call->regions.size() != 1)
    throw Error(ErrorKind::Shape, site.span, op + " needs its body, one region");
  node.regions.push_back(region(*site.call->regions[0], params, elements, op + "'s body", prefix));
  define_results(site, std::move(node), target, results);
}

std::vector<ValueType> Elaborator::operand_types(const OpSite& site) const {
  std::vector<ValueType> types;
  for (int v : site.operands)
    types.push_back(g_.values[static_cast<size_t>(v)]);
  return types;
}

void Elaborator::define_results(const OpSite& site, GraphNode node, const ast::Expr* target,
                                const std::vector<ValueType>& results) {
  const std::string op(core::graph_op_name(site.op));
  std::vector<const ast::Expr*> names = result_names(target);
  if (names.size() != results.size() || site.declared_outs.size() != results.size())
    throw Error(ErrorKind::Shape, target ? target->span : site.span,
                op + " gives " + std::to_string(results.size()) + " results; " +
                    std::to_string(names.size()) + " are named and its type declares " +
                    std::to_string(site.declared_outs.size()));
  for (size_t i = 0; i < results.size(); ++i) {
    if (!fits(site.declared_outs[i], results[i]))
      throw Error(ErrorKind::Shape, site.span,
                  "result " + std::to_string(i) + " of " + op + " is " + type_string(results[i]) +
                      ", but its type says " + type_string(site.declared_outs[i]));
    node.results.push_back(define(ast::as_name(*names[i])->id, results[i], names[i]->span));
  }
  g_.nodes.push_back(std::move(node));
}

core::GraphRegion Elaborator::region(const ast::Function& r, const std::vector<ValueType>& params,
                                     const std::vector<ValueType>& returns, const std::string& what,
                                     const std::string& prefix) {
  if (r.params.size() != params.size())
    throw Error(ErrorKind::Shape, r.body.empty() ? Span() : r.body.front()->span,
                what + " takes " + std::to_string(params.size()) + " block arguments, not " +
                    std::to_string(r.params.size()));
  core::GraphRegion out;
  ++regions_;
  const std::map<std::string, int> outer = names_;
  const std::string outer_prefix = prefix_;
  prefix_ = outer_prefix + prefix;
  std::swap(out.nodes, g_.nodes);
  for (size_t i = 0; i < params.size(); ++i) {
    ValueType declared = r.params[i].type_expr ? tensor_type(*r.params[i].type_expr) : params[i];
    if (!fits(declared, params[i]))
      throw Error(ErrorKind::Shape, r.params[i].span,
                  what + "'s argument " + r.params[i].name + " is declared " +
                      type_string(declared) + "; it carries " + type_string(params[i]));
    out.params.push_back(define(r.params[i].name, params[i], r.params[i].span));
  }
  bool returned = false;
  for (const ast::StmtPtr& s : r.body) {
    const ast::Expr* expr = nullptr;
    const ast::Expr* target = nullptr;
    if (const auto* a = std::get_if<ast::Assign>(&s->node)) {
      expr = a->value.get();
      target = a->target.get();
    } else if (const auto* e = std::get_if<ast::ExprStmt>(&s->node)) {
      expr = e->expr.get();
    } else {
      throw Error(ErrorKind::Syntax, s->span, what + " holds operations and its return");
    }
    if (returned)
      throw Error(ErrorKind::Syntax, s->span, "an operation after " + what + "'s return");
    const ast::Call* typed = ast::as_call(*expr);
    const ast::Call* call = typed && typed->callee == ":" ? ast::as_call(*typed->args[0]) : nullptr;
    if (call && !target && (call->callee == "stablehlo.return" || call->callee == "mhlo.return")) {
      if (call->args.size() != returns.size())
        throw Error(ErrorKind::Shape, s->span,
                    what + " returns " + std::to_string(call->args.size()) + " values; " +
                        std::to_string(returns.size()) + " are needed");
      for (size_t i = 0; i < returns.size(); ++i) {
        int v = use(*call->args[i]);
        if (!fits(returns[i], g_.values[static_cast<size_t>(v)]))
          throw Error(ErrorKind::Shape, call->args[i]->span,
                      what + " returns " + type_string(g_.values[static_cast<size_t>(v)]) +
                          " where " + type_string(returns[i]) + " is needed");
        out.results.push_back(v);
      }
      returned = true;
      continue;
    }
    operation(*expr, target);
  }
  if (!returned)
    throw Error(ErrorKind::Syntax, r.body.empty() ? Span() : r.body.back()->span,
                what + " does not end in stablehlo.return");
  std::swap(out.nodes, g_.nodes);
  names_ = outer;
  prefix_ = outer_prefix;
  --regions_;
  return out;
}

} // namespace teval::parser::mlir_detail
