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

namespace teval::parser::mlir_detail {

namespace {

using core::DType;
using core::Error;
using core::ErrorKind;
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

// The op of a body `%r = OP(%a, %b); return %r` (either order), or an
// error saying what teval reads.
std::string region_body(const OpSite& site, const ast::Function& body) {
  auto fail = [&]() -> Error {
    return Error(ErrorKind::Unsupported, site.span,
                 "reduce's body is read when it applies one of add, multiply, maximum, minimum, "
                 "and, or to its two arguments and returns the result; this one is not read yet");
  };
  if (body.params.size() != 2 || body.body.size() != 2)
    throw fail();
  const auto* assign = std::get_if<ast::Assign>(&body.body[0]->node);
  const auto* ret = std::get_if<ast::ExprStmt>(&body.body[1]->node);
  const ast::Call* call = assign ? op_of(*assign->value) : nullptr;
  const ast::Call* back = ret ? op_of(*ret->expr) : nullptr;
  const ast::Name* result = assign ? ast::as_name(*assign->target) : nullptr;
  if (!call || !back || !result || body_op(back->callee) != "return" || back->args.size() != 1 ||
      !ast::as_name(*back->args[0]) || ast::as_name(*back->args[0])->id != result->id ||
      call->args.size() != 2 || !call->keywords.empty())
    throw fail();
  std::array<std::string, 2> args;
  for (size_t i = 0; i < 2; ++i) {
    const ast::Name* n = ast::as_name(*call->args[i]);
    if (!n)
      throw fail();
    args[i] = n->id;
  }
  std::array<std::string, 2> params = {body.params[0].name, body.params[1].name};
  if (args != params && args != std::array{params[1], params[0]})
    throw fail();
  return body_op(call->callee);
}

} // namespace

ValueType reduce_meaning(const OpSite& site, const std::vector<ValueType>& operands,
                         core::GraphNode& node) {
  if (operands.size() != 2)
    throw Error(ErrorKind::Unsupported, site.span,
                "reduce of " + std::to_string(operands.size() / 2) +
                    " inputs is not read yet; teval reads reduce of one input and its initial "
                    "value");
  only(site, {"dimensions", "applies"});
  const ValueType& x = operands[0];
  const ValueType& init = operands[1];
  if (!init.shape.empty() || init.dtype != x.dtype)
    throw Error(ErrorKind::Shape, site.span,
                "reduce's initial value is " + type_string(init) + "; it must be " +
                    type_string(ValueType{x.dtype, {}}));
  std::string op;
  if (const ast::Expr* applies = find(site, "applies", false)) {
    const ast::Name* n = ast::as_name(*applies);
    op = n ? body_op(n->id) : "";
    if (std::find(kBodies.begin(), kBodies.end(), op) == kBodies.end())
      throw Error(ErrorKind::Unsupported, applies->span,
                  "reduce applies `" + text(*applies) +
                      "`; teval reads add, multiply, maximum, minimum, and, or of stablehlo or "
                      "mhlo");
    if (!site.call->regions.empty())
      throw Error(ErrorKind::Syntax, site.span, "reduce has both `applies` and a body");
  } else {
    if (site.call->regions.size() != 1)
      throw Error(ErrorKind::Shape, site.span, "reduce needs its body, one region");
    op = region_body(site, *site.call->regions[0]);
    const ast::Function& body = *site.call->regions[0];
    for (const ast::Param& p : body.params)
      if (!p.type_expr || tensor_type(*p.type_expr).dtype != x.dtype ||
          !tensor_type(*p.type_expr).shape.empty())
        throw Error(ErrorKind::Shape, p.span,
                    "reduce's body takes rank-0 tensors of the input's element type, " +
                        type_string(ValueType{x.dtype, {}}));
    if (std::find(kBodies.begin(), kBodies.end(), op) == kBodies.end())
      throw Error(ErrorKind::Unsupported, site.span,
                  "reduce's body applies `" + op +
                      "`; teval reads add, multiply, maximum, minimum, and, or");
  }
  // add and multiply of i1 are or and and (spec "add", "multiply").
  if (x.dtype == DType::Bool && (op == "add" || op == "multiply"))
    op = op == "add" ? "or" : "and";
  const bool logical = op == "and" || op == "or";
  if (logical && x.dtype != DType::Bool)
    throw Error(ErrorKind::Unsupported, site.span,
                "reduce with " + op + " of " + type_string(x) +
                    " is not read yet: teval reads the logical form, of i1 values");
  std::vector<int64_t> dims = ints_attr(site, "dimensions");
  ValueType out{x.dtype, {}};
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (!std::count(dims.begin(), dims.end(), static_cast<int64_t>(d)))
      out.shape.push_back(x.shape[d]);
  for (int64_t d : dims)
    if (d < 0 || d >= static_cast<int64_t>(x.shape.size()) ||
        std::count(dims.begin(), dims.end(), d) > 1)
      throw Error(ErrorKind::Shape, find(site, "dimensions", true)->span,
                  "reduce's dimensions must be distinct dimensions of the input's rank " +
                      std::to_string(x.shape.size()));
  std::sort(dims.begin(), dims.end());
  node.attrs["dimensions"] = dims;
  node.attrs["body"] = op;
  return out;
}

} // namespace teval::parser::mlir_detail
