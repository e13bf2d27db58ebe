// reduce (StableHLO specification, "reduce") of one input whose body is
// one of the binary ops below applied to its two arguments:
//
//   generic  "stablehlo.reduce"(%x, %init) ({
//              ^bb0(%a: tensor<f32>, %b: tensor<f32>):
//                %0 = "stablehlo.add"(%a, %b) : ... ; "stablehlo.return"(%0) : ...
//            }) {dimensions = array<i64: 1>} : (T, tensor<f32>) -> U
//   pretty   stablehlo.reduce(%x init: %init) applies stablehlo.add across
//            dimensions = [1] : (T, tensor<f32>) -> U
//
// (a body in the region form in pretty text is read the same way).
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"
#include "core/format.h"

#include <algorithm>
#include <array>
#include <optional>

namespace teval::parser::mlir_detail {

namespace {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphOp;
using core::ValueType;

constexpr std::array<std::string_view, 6> kBodies = {"add",     "multiply", "maximum",
                                                     "minimum", "and",      "or"};

// `stablehlo.add` or `mhlo.add` (the op after its dialect), or "".
std::string body_op(const std::string& callee) {
  for (std::string_view dialect : {"stablehlo.", "mhlo."})
    if (callee.starts_with(dialect))
      return callee.substr(dialect.size());
  return "";
}

const ast::Call* op_of(const ast::Expr& e) {
  const ast::Call* typed_call = ast::as_call(e);
  return typed_call && typed_call->callee == ":" ? ast::as_call(*typed_call->args[0]) : nullptr;
}

// The op of a body `%r = OP(%a, %b); return %r` (either order), or
// nothing for another body.
std::optional<std::string> region_op(const ast::Function& body) {
  if (body.params.size() != 2 || body.body.size() != 2)
    return std::nullopt;
  const auto* assign = std::get_if<ast::Assign>(&body.body[0]->node);
  const auto* ret = std::get_if<ast::ExprStmt>(&body.body[1]->node);
  const ast::Call* call = assign ? op_of(*assign->value) : nullptr;
  const ast::Call* back = ret ? op_of(*ret->expr) : nullptr;
  const ast::Name* result = assign ? ast::as_name(*assign->target) : nullptr;
  if (!call || !back || !result || body_op(back->callee) != "return" || back->args.size() != 1 ||
      !ast::as_name(*back->args[0]) || ast::as_name(*back->args[0])->id != result->id ||
      call->args.size() != 2 || !call->keywords.empty())
    return std::nullopt;
  std::array<std::string, 2> args;
  for (size_t i = 0; i < 2; ++i) {
    const ast::Name* n = ast::as_name(*call->args[i]);
    if (!n)
      return std::nullopt;
    args[i] = n->id;
  }
  std::array<std::string, 2> params = {body.params[0].name, body.params[1].name};
  if (args != params && args != std::array{params[1], params[0]})
    return std::nullopt;
  return body_op(call->callee);
}

// The op of a body of one op, or an error saying what teval reads.
std::string region_body(const OpSite& site, const ast::Function& body) {
  if (std::optional<std::string> op = region_op(body))
    return *op;
  throw Error(ErrorKind::Unsupported, site.span,
              site.name +
                  "'s body is read when it applies one of add, multiply, maximum, minimum, "
                  "and, or to its two arguments and returns the result; this one is not read "
                  "yet");
}

// The body of a reduce or reduce_window of input \p x: `applies OP` or a
// region of one op, as the op's name ("add", ...; of i1 add and multiply
// are or and and).
std::string body_of(const OpSite& site, const ValueType& x) {
  std::string op;
  if (const ast::Expr* applies = find(site, "applies", false)) {
    const ast::Name* n = ast::as_name(*applies);
    op = n ? body_op(n->id) : "";
    if (std::find(kBodies.begin(), kBodies.end(), op) == kBodies.end())
      throw Error(ErrorKind::Unsupported, applies->span,
                  site.name + " applies `" + text(*applies) +
                      "`; teval reads add, multiply, maximum, minimum, and, or of stablehlo or "
                      "mhlo");
    if (!site.call->regions.empty())
      throw Error(ErrorKind::Syntax, site.span, site.name + " has both `applies` and a body");
  } else {
    if (site.call->regions.size() != 1)
      throw Error(ErrorKind::Shape, site.span, site.name + " needs its body, one region");
    op = region_body(site, *site.call->regions[0]);
    const ast::Function& body = *site.call->regions[0];
    for (const ast::Param& p : body.params)
      if (!p.type_expr || tensor_type(*p.type_expr).dtype != x.dtype ||
          !tensor_type(*p.type_expr).shape.empty())
        throw Error(ErrorKind::Shape, p.span,
                    site.name +
                        "'s body takes rank-0 tensors of the input's element type, or of one "
                        "it promotes to (is_promotable), " +
                        type_string(ValueType{x.dtype, {}}));
    if (std::find(kBodies.begin(), kBodies.end(), op) == kBodies.end())
      throw Error(ErrorKind::Unsupported, site.span,
                  site.name + "'s body applies `" + op +
                      "`; teval reads add, multiply, maximum, minimum, and, or");
  }
  // add and multiply of i1 are or and and (spec "add", "multiply").
  if (x.dtype == DType::Bool && (op == "add" || op == "multiply"))
    op = op == "add" ? "or" : "and";
  const bool logical = op == "and" || op == "or";
  if (logical && x.dtype != DType::Bool)
    throw Error(ErrorKind::Unsupported, site.span,
                site.name + " with " + op + " of " + type_string(x) +
                    " is not read yet: teval reads the logical form, of i1 values");
  return op;
}

// The shape \p x keeps when reduced over `dimensions` (distinct, in range),
// which go into \p node in ascending order.
core::Shape kept_shape(const OpSite& site, const ValueType& x, core::GraphNode& node) {
  std::vector<int64_t> dims = ints_attr(site, "dimensions");
  core::Shape kept;
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (!std::count(dims.begin(), dims.end(), static_cast<int64_t>(d)))
      kept.push_back(x.shape[d]);
  for (int64_t d : dims)
    if (d < 0 || d >= static_cast<int64_t>(x.shape.size()) ||
        std::count(dims.begin(), dims.end(), d) > 1)
      throw Error(ErrorKind::Shape, find(site, "dimensions", true)->span,
                  "reduce's dimensions must be distinct dimensions of the input's rank " +
                      std::to_string(x.shape.size()));
  std::sort(dims.begin(), dims.end());
  node.attrs["dimensions"] = dims;
  return kept;
}

} // namespace

namespace {

// The specification's is_promotable(x, y) of element types.
bool is_promotable(const ValueType& x, const ValueType& y) {
  using core::bit_width;
  if (x.quant || y.quant)
    return x.quant && y.quant && !x.quant->axis && !y.quant->axis &&
           x.quant->expressed == y.quant->expressed &&
           bit_width(x.quant->storage) <= bit_width(y.quant->storage);
  if (x.dtype == DType::Bool || y.dtype == DType::Bool)
    return x.dtype == y.dtype;
  const bool same_kind = (core::is_integer(x.dtype) && core::is_integer(y.dtype)) ||
                         (core::is_float(x.dtype) && core::is_float(y.dtype)) ||
                         (core::is_complex(x.dtype) && core::is_complex(y.dtype));
  return same_kind && bit_width(x.dtype) <= bit_width(y.dtype);
}

} // namespace

void promote_to_body(OpSite& site, core::Graph& g, const std::string& prefix) {
  if (site.call->regions.size() != 1)
    return;
  const ast::Function& body = *site.call->regions[0];
  const size_t count = site.operands.size();
  // Body parameter i types operands which[i].
  std::vector<std::vector<size_t>> which;
  if ((site.op == GraphOp::Reduce || site.op == GraphOp::ReduceWindow) && count % 2 == 0)
    for (size_t i = 0; i < count / 2; ++i)
      which.push_back({i, count / 2 + i});
  if (site.op == GraphOp::Scatter && count >= 3 && count % 2 == 1)
    for (size_t i = 0; i < count / 2; ++i)
      which.push_back({i, count / 2 + 1 + i});
  if (body.params.size() != 2 * which.size())
    return; // the meaning says what is wrong
  for (size_t i = 0; i < which.size(); ++i) {
    if (!body.params[i].type_expr)
      continue;
    const ValueType e = tensor_type(*body.params[i].type_expr);
    // Promotion is from the one element type the operands share (reduce
    // (C2), scatter (C6)).
    const ValueType& first = g.values[static_cast<size_t>(site.operands[which[i][0]])];
    const ValueType& second = g.values[static_cast<size_t>(site.operands[which[i][1]])];
    if (first.dtype != second.dtype || !core::same_quantization(first, second))
      continue;
    for (size_t j : which[i]) {
      const ValueType t = g.values[static_cast<size_t>(site.operands[j])];
      if (!e.shape.empty() || (t.dtype == e.dtype && core::same_quantization(t, e)) ||
          !is_promotable(t, e))
        continue; // the meaning's checks report what does not fit
      const ValueType to{e.dtype, t.shape, e.quant};
      site.operands[j] =
          add_node(g, site.span, t.quant ? GraphOp::UniformQuantize : GraphOp::Convert,
                   {site.operands[j]}, to, prefix + "promoted" + std::to_string(j), {});
      if (j < site.declared_ins.size())
        site.declared_ins[j] = to;
    }
  }
}

core::GraphOp applied_op(const OpSite& site) {
  const ast::Expr* applies = find(site, "applies", true);
  const ast::Name* name = ast::as_name(*applies);
  const std::string op = name ? body_op(name->id) : "";
  for (core::GraphOp g : {core::GraphOp::Add, core::GraphOp::Multiply, core::GraphOp::Maximum,
                          core::GraphOp::Minimum})
    if (core::graph_op_name(g) == op)
      return g;
  throw Error(ErrorKind::Unsupported, applies->span,
              site.name + " of quantized values applies `" + (op.empty() ? text(*applies) : op) +
                  "`, which quantized values do not have; teval reads add, multiply, maximum, "
                  "minimum");
}

bool folds_one_op(const OpSite& site, const std::vector<ValueType>& operands) {
  if (operands.size() != 2 || find(site, "applies", false))
    return operands.size() == 2;
  if (site.call->regions.size() != 1)
    return true; // reduce_meaning says what is missing
  std::optional<std::string> op = region_op(*site.call->regions[0]);
  if (!op || std::find(kBodies.begin(), kBodies.end(), *op) == kBodies.end())
    return false;
  // and, or of integers: bitwise, which the region's own op computes.
  return (*op != "and" && *op != "or") || operands[0].dtype == DType::Bool;
}

ValueType reduce_meaning(const OpSite& site, const std::vector<ValueType>& operands,
                         core::GraphNode& node) {
  TEVAL_ASSERT(operands.size() == 2, "reduce of several inputs has a region (folds_one_op)");
  only(site, {"dimensions", "applies"});
  const ValueType& x = operands[0];
  const ValueType& init = operands[1];
  if (!init.shape.empty() || init.dtype != x.dtype)
    throw Error(ErrorKind::Shape, site.span,
                "reduce's initial value is " + type_string(init) + "; it must be " +
                    type_string(ValueType{x.dtype, {}}));
  std::string op = body_of(site, x);
  ValueType out{x.dtype, kept_shape(site, x, node)};
  node.attrs["body"] = op;
  return out;
}

std::vector<ValueType> reduce_region_types(const OpSite& site,
                                           const std::vector<ValueType>& operands,
                                           core::GraphNode& node) {
  const size_t n = operands.size() / 2;
  // Of quantized values, `applies` is the region of its one op (applied_op).
  const bool applies = find(site, "applies", false) && operands.size() == 2 && operands[0].quant;
  only(site, applies ? std::initializer_list<std::string_view>{"dimensions", "applies"}
                     : std::initializer_list<std::string_view>{"dimensions"});
  if (operands.empty() || operands.size() % 2)
    throw Error(ErrorKind::Shape, site.span,
                "reduce takes N inputs and N initial values, not " +
                    std::to_string(operands.size()) + " operands");
  if (find(site, "applies", false) && !applies)
    throw Error(ErrorKind::Unsupported, site.span,
                "reduce of " + std::to_string(n) +
                    " inputs with `applies` is not read; write its body as a region");
  std::vector<ValueType> results;
  for (size_t i = 0; i < n; ++i) {
    const ValueType& x = operands[i];
    const ValueType& init = operands[n + i];
    if (x.shape != operands[0].shape) // (C1)
      throw Error(ErrorKind::Shape, site.span,
                  "reduce's inputs have one shape; input " + std::to_string(i) + " is " +
                      type_string(x) + ", input 0 " + type_string(operands[0]));
    // Quantized inputs (spec (I1), (I2)): per-tensor, the initial value
    // of the input's quantized type; the body then runs on quantized
    // scalars of that type (its ops dequantize_op_quantize).
    if (!init.shape.empty() || init.dtype != x.dtype || !core::same_quantization(init, x) ||
        (x.quant && x.quant->axis))
      throw Error(
          ErrorKind::Shape, site.span,
          "reduce's initial value " + std::to_string(i) + " is " + type_string(init) +
              "; it must be " + type_string(ValueType{x.dtype, {}, x.quant}) +
              (x.quant && x.quant->axis ? " (per-axis quantized inputs are not read)" : ""));
  }
  const core::Shape kept = kept_shape(site, operands[0], node);
  for (size_t i = 0; i < n; ++i)
    results.push_back({operands[i].dtype, kept, operands[i].quant});
  return results;
}

namespace {

// reduce_window's attributes of an input \p x (C4)-(C12), into \p node;
// the results' shape (C15).
core::Shape window_shape(const OpSite& site, const ValueType& x, core::GraphNode& node) {
  const size_t rank = x.shape.size();
  // (C4)-(C12): one value per dimension (two of padding), positive but
  // the padding.
  auto list = [&](const char* name, size_t count, int64_t fallback, int64_t least) {
    const ast::Expr* e = find(site, name, std::string(name) == "window_dimensions");
    if (!e)
      return std::vector<int64_t>(count, fallback);
    std::vector<int64_t> v = flat_ints(*e, name);
    if (v.size() != count)
      throw Error(ErrorKind::Shape, e->span,
                  std::string("reduce_window's `") + name + "` has " + std::to_string(v.size()) +
                      " values; an input of rank " + std::to_string(rank) + " needs " +
                      std::to_string(count));
    for (int64_t a : v)
      if (a < least || a > INT32_MAX || a < -INT32_MAX)
        throw Error(ErrorKind::Shape, e->span,
                    std::string("reduce_window's `") + name + "` must be in [" +
                        std::to_string(least) + ", 2^31), not " + std::to_string(a));
    return v;
  };
  const std::vector<int64_t> window = list("window_dimensions", rank, 1, 1);
  const std::vector<int64_t> strides = list("window_strides", rank, 1, 1);
  const std::vector<int64_t> base = list("base_dilations", rank, 1, 1);
  const std::vector<int64_t> dilations = list("window_dilations", rank, 1, 1);
  const std::vector<int64_t> padding = list("padding", 2 * rank, 0, -INT32_MAX);
  // (C15): the number of windows along each dimension.
  core::Shape shape;
  std::vector<int64_t> low, high;
  for (size_t d = 0; d < rank; ++d) {
    low.push_back(padding[2 * d]);
    high.push_back(padding[2 * d + 1]);
    int64_t dilated = x.shape[d] == 0 ? 0 : (x.shape[d] - 1) * base[d] + 1;
    int64_t padded = low[d] + dilated + high[d];
    int64_t extent = (window[d] - 1) * dilations[d] + 1;
    if (padded < 0)
      throw Error(ErrorKind::Shape, site.span,
                  "reduce_window's negative padding of dimension " + std::to_string(d) +
                      " removes more than its " + std::to_string(dilated) + " elements");
    shape.push_back(padded == 0 || extent > padded ? 0 : (padded - extent) / strides[d] + 1);
  }
  node.attrs["window"] = window;
  node.attrs["strides"] = strides;
  node.attrs["base_dilations"] = base;
  node.attrs["window_dilations"] = dilations;
  node.attrs["pad_low"] = low;
  node.attrs["pad_high"] = high;
  return shape;
}

// The attributes of reduce_window.
void only_window_attributes(const OpSite& site) {
  only(site,
       {"window_dimensions", "window_strides", "base_dilations", "window_dilations", "padding"});
}

} // namespace

ValueType reduce_window_meaning(const OpSite& site, const std::vector<ValueType>& operands,
                                core::GraphNode& node) {
  TEVAL_ASSERT(operands.size() == 2, "reduce_window of several inputs has a region (folds_one_op)");
  only_window_attributes(site);
  const ValueType& x = operands[0];
  const ValueType& init = operands[1];
  if (!init.shape.empty() || init.dtype != x.dtype)
    throw Error(ErrorKind::Shape, site.span,
                "reduce_window's initial value is " + type_string(init) + "; it must be " +
                    type_string(ValueType{x.dtype, {}}) + " (C3)");
  node.attrs["body"] = body_of(site, x);
  return {x.dtype, window_shape(site, x, node)};
}

std::vector<ValueType> reduce_window_region_types(const OpSite& site,
                                                  const std::vector<ValueType>& operands,
                                                  core::GraphNode& node) {
  only_window_attributes(site);
  const size_t n = operands.size() / 2;
  if (operands.empty() || operands.size() % 2)
    throw Error(ErrorKind::Shape, site.span,
                "reduce_window takes N inputs and N initial values, not " +
                    std::to_string(operands.size()) + " operands (C1)");
  for (size_t i = 0; i < n; ++i) {
    const ValueType& x = operands[i];
    const ValueType& init = operands[n + i];
    if (x.shape != operands[0].shape)
      throw Error(ErrorKind::Shape, site.span,
                  "reduce_window's inputs have one shape; input " + std::to_string(i) + " is " +
                      type_string(x) + ", input 0 " + type_string(operands[0]) + " (C2)");
    // Quantized inputs as reduce's: per-tensor, the initial value of the
    // input's quantized type (it pads too: its stored integer).
    if (!init.shape.empty() || init.dtype != x.dtype || !core::same_quantization(init, x) ||
        (x.quant && x.quant->axis))
      throw Error(
          ErrorKind::Shape, site.span,
          "reduce_window's initial value " + std::to_string(i) + " is " + type_string(init) +
              "; it must be " + type_string(ValueType{x.dtype, {}, x.quant}) +
              (x.quant && x.quant->axis ? " (per-axis quantized inputs are not read)" : " (C3)"));
  }
  const core::Shape shape = window_shape(site, operands[0], node);
  std::vector<ValueType> results;
  for (size_t i = 0; i < n; ++i)
    results.push_back({operands[i].dtype, shape, operands[i].quant});
  return results;
}

} // namespace teval::parser::mlir_detail
