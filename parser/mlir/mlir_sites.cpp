// Reading one operation of an MLIR function: its name (a plain op, a
// ByteIR custom call), operands, type and attributes (mlir_elaborator.h).
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

using core::Error;
using core::ErrorKind;
using core::GraphOp;
using core::Shape;
using core::Span;
using core::ValueType;

using OpTable = std::vector<std::pair<std::string_view, GraphOp>>;

// The rows of graph_ops.def whose name has \p prefix (a dialect's ops, ""
// for the plain ones, which have no dialect in their name).
OpTable graph_ops_named(std::string_view prefix) {
  OpTable v;
#define TEVAL_GRAPH_OP(e, name)                                                                    \
  if (prefix.empty() ? std::string_view(name).find('.') == std::string_view::npos                  \
                     : std::string_view(name).starts_with(prefix))                                 \
    v.emplace_back(name, GraphOp::e);
#include "core/graph_ops.def"
  return v;
}

const OpTable& plain_ops() {
  static const OpTable ops = [] {
    OpTable v = graph_ops_named("");
    // Read as the static ops they are (parser/mlir/mlir_dynamic.cpp).
    v.emplace_back("get_dimension_size", GraphOp::Constant);
    // A token, which holds nothing: a constant of no element.
    v.emplace_back("after_all", GraphOp::Constant);
    v.emplace_back("create_token", GraphOp::Constant);
    v.emplace_back("infeed", GraphOp::Constant); // Elaborator::feed's
    v.emplace_back("outfeed", GraphOp::Constant);
    v.emplace_back("dynamic_iota", GraphOp::Iota);
    v.emplace_back("dynamic_reshape", GraphOp::Reshape);
    v.emplace_back("dynamic_broadcast_in_dim", GraphOp::BroadcastInDim);
    v.emplace_back("dynamic_pad", GraphOp::Pad);
    v.emplace_back("dynamic_gather", GraphOp::Gather);
    v.emplace_back("dynamic_conv", GraphOp::Convolution);
    return v;
  }();
  return ops;
}

const OpTable& byteir_ops() {
  static const OpTable ops = graph_ops_named("byteir.");
  return ops;
}

// The CHLO ops teval reads: its own, and those with a StableHLO op's
// meaning (chlo.tan is tan; chlo.erf is the erf of byteir.erf; chlo.top_k
// the largest k along the last dimension, as byteir.top_k orders them; the
// broadcasting ops their StableHLO op after broadcast_in_dim, mlir_chlo.cpp).
const OpTable& chlo_ops() {
  static const OpTable ops = [] {
    OpTable v{{"chlo.tan", GraphOp::Tan},
              {"chlo.erf", GraphOp::Erf},
              {"chlo.top_k", GraphOp::TopK},
              {"chlo.broadcast_add", GraphOp::Add},
              {"chlo.broadcast_atan2", GraphOp::Atan2},
              {"chlo.broadcast_divide", GraphOp::Divide},
              {"chlo.broadcast_maximum", GraphOp::Maximum},
              {"chlo.broadcast_minimum", GraphOp::Minimum},
              {"chlo.broadcast_multiply", GraphOp::Multiply},
              {"chlo.broadcast_next_after", GraphOp::NextAfter},
              {"chlo.broadcast_zeta", GraphOp::Zeta},
              {"chlo.broadcast_polygamma", GraphOp::Polygamma},
              {"chlo.broadcast_power", GraphOp::Power},
              {"chlo.broadcast_remainder", GraphOp::Remainder},
              {"chlo.broadcast_shift_left", GraphOp::ShiftLeft},
              {"chlo.broadcast_shift_right_arithmetic", GraphOp::ShiftRightArithmetic},
              {"chlo.broadcast_shift_right_logical", GraphOp::ShiftRightLogical},
              {"chlo.broadcast_subtract", GraphOp::Subtract},
              {"chlo.broadcast_and", GraphOp::And},
              {"chlo.broadcast_or", GraphOp::Or},
              {"chlo.broadcast_xor", GraphOp::Xor},
              {"chlo.broadcast_complex", GraphOp::Complex},
              {"chlo.broadcast_compare", GraphOp::Compare},
              {"chlo.broadcast_select", GraphOp::Select}};
    OpTable own = graph_ops_named("chlo.");
    v.insert(v.end(), own.begin(), own.end());
    return v;
  }();
  return ops;
}

std::string name_list(const OpTable& ops) {
  std::string s;
  for (const auto& [name, op] : ops)
    s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

OpSite Elaborator::read_site(const ast::Expr& value) {
  const ast::Call* typed_call = ast::as_call(value);
  const ast::Call* call =
      typed_call && typed_call->callee == ":" ? ast::as_call(*typed_call->args[0]) : nullptr;
  if (!call)
    throw Error(ErrorKind::Syntax, value.span, "expected an operation with its type");
  OpSite site;
  site.call = call;
  site.span = call->callee_span;
  for (const std::string_view dialect : {"mhlo.", "stablehlo."})
    if (call->callee.substr(0, dialect.size()) == dialect)
      site.name = call->callee.substr(dialect.size());
  if (call->callee == "arith.constant") // a tensor constant, as stablehlo.constant
    site.name = "constant";
  if (call->callee.starts_with("chlo."))
    site.name = call->callee == "chlo.constant" ? "constant" : call->callee;
  if (site.name.empty())
    throw Error(ErrorKind::Unsupported, call->callee_span,
                "unknown operation `" + call->callee +
                    "`; teval reads mhlo, stablehlo and chlo ops, ByteIR custom calls, func.call "
                    "and arith.constant");
  for (const ast::ExprPtr& a : call->args) {
    const ast::Name* n = ast::as_name(*a);
    if (n && !n->id.empty() && n->id[0] == '%')
      site.operands.push_back(use(*a));
    else
      site.positional.push_back(a.get());
  }
  // The type: `(ins) -> (outs)`, or one type for operands and result.
  const ast::Expr& type = *typed_call->args[1];
  if (const ast::Call* fn = ast::as_call(type); fn && fn->callee == "->") {
    for (const ast::ExprPtr& t : std::get<ast::Tuple>(fn->args[0]->node).items)
      site.declared_ins.push_back(tensor_type(*t));
    for (const ast::ExprPtr& t : std::get<ast::Tuple>(fn->args[1]->node).items)
      site.declared_outs.push_back(tensor_type(*t));
  } else if (const auto* several = std::get_if<ast::Tuple>(&type.node);
             several && site.name == "select" && several->items.size() == 2) {
    // StableHLO prints `select %p, %a, %b : tensor<2xi1>, tensor<2xf32>`:
    // the predicate's type, then the branches' and the result's.
    ValueType t = tensor_type(*several->items[1]);
    site.declared_ins = {tensor_type(*several->items[0]), t, t};
    site.declared_outs.push_back(t);
  } else if (several && (site.name == "optimization_barrier" || site.name == "while")) {
    // `optimization_barrier %a, %b : tensor<f32>, tensor<4xf32>`: each
    // operand's type, its result's too.
    for (const ast::ExprPtr& t : several->items)
      site.declared_ins.push_back(tensor_type(*t));
    site.declared_outs = site.declared_ins;
  } else if (several) {
    throw Error(ErrorKind::Syntax, several->items[1]->span,
                "one type, or a function type (operands) -> (results), after `:`");
  } else {
    ValueType t = tensor_type(type);
    site.declared_ins.assign(site.operands.size(), t);
    site.declared_outs.push_back(t);
    // `complex %re, %im : tensor<2xcomplex<f64>>`: the result's type,
    // the operands' its parts'.
    if (site.name == "complex" && core::is_complex(t.dtype))
      for (ValueType& in : site.declared_ins)
        in.dtype = core::complex_part(t.dtype);
  }
  if (site.declared_ins.size() != site.operands.size())
    throw Error(ErrorKind::Shape, type.span,
                "the type lists " + std::to_string(site.declared_ins.size()) +
                    " operands; the operation has " + std::to_string(site.operands.size()));
  for (size_t i = 0; i < site.operands.size(); ++i) {
    const ValueType& actual = g_.values[static_cast<size_t>(site.operands[i])];
    if (!fits(site.declared_ins[i], actual))
      throw Error(ErrorKind::Shape, call->args[i]->span,
                  "operand " + g_.value_names[static_cast<size_t>(site.operands[i])] + " is " +
                      type_string(actual) + ", but the type says " +
                      type_string(site.declared_ins[i]));
  }
  for (const ast::Keyword& k : call->keywords) {
    site.attrs[k.name] = k.value.get();
    site.attr_names[k.name] = k.span;
  }
  site.attrs_span = call->callee_span;
  if (site.name == "custom_call")
    custom_call(site);
  else if (!mlir_detail::is_batch_norm(site.name) && !mlir_detail::is_chlo_composition(site.name))
    plain_op(site);
  return site;
}

void Elaborator::plain_op(OpSite& site) {
  const bool chlo = site.name.starts_with("chlo.");
  for (const auto& [name, op] : chlo ? chlo_ops() : plain_ops())
    if (name == site.name) {
      site.op = op;
      return;
    }
  if (chlo)
    throw Error(ErrorKind::Unsupported, site.call->callee_span,
                "`" + site.call->callee + "` is not an op teval reads; of CHLO it reads " +
                    name_list(chlo_ops()));
  if (site.name == "rng") // spec "rng": "implementation-defined" distributions
    throw Error(ErrorKind::Unsupported, site.call->callee_span,
                "`" + site.call->callee +
                    "` is not read: the specification leaves the numbers it draws "
                    "implementation-defined, so there is no one value to check (its reference "
                    "interpreter does not run it either); rng_bit_generator is read");
  throw Error(ErrorKind::Unsupported, site.call->callee_span,
              "`" + site.call->callee +
                  "` is not an op teval reads; between custom calls it "
                  "reads " +
                  name_list(plain_ops()));
}

void Elaborator::custom_call(OpSite& site) {
  auto target = site.attrs.find("call_target_name");
  const ast::StringLit* s = target == site.attrs.end() ? nullptr : ast::as_string(*target->second);
  if (!s)
    throw Error(ErrorKind::Type, site.call->callee_span,
                "a custom call needs call_target_name, a string");
  auto op = std::find_if(byteir_ops().begin(), byteir_ops().end(),
                         [&](const auto& p) { return p.first == s->value; });
  if (op == byteir_ops().end())
    throw Error(ErrorKind::Unsupported, target->second->span,
                "unknown custom call target \"" + s->value + "\"; teval gives meaning to " +
                    name_list(byteir_ops()));
  site.op = op->second;
  site.span = target->second->span;
  std::map<std::string, const ast::Expr*> attrs;
  std::map<std::string, Span> names;
  if (auto it = site.attrs.find("byteir_attrs"); it != site.attrs.end()) {
    const auto* dict = std::get_if<ast::Dict>(&it->second->node);
    if (!dict)
      throw Error(ErrorKind::Type, it->second->span, "byteir_attrs must be a dictionary");
    for (const auto& [k, v] : dict->items) {
      const std::string& key = ast::as_name(*k)->id;
      // What a TensorFlow frontend carries over from the TF op: its
      // internal attributes (`_grappler_...`, `_output_shapes`) and its
      // type parameters (`T = f16`, `Trepeats = i64`). Not the op's.
      const ast::Name* type = ast::as_name(*v);
      if (key.starts_with("_") ||
          (key.starts_with("T") && type && mlir_detail::element_type(type->id))) {
        g_.warnings.push_back({core::Severity::Warning, k->span, "",
                               "`" + key + "` is a TensorFlow attribute that " + s->value +
                                   " does not take; ignored"});
        continue;
      }
      attrs[key] = v.get();
      names[key] = k->span;
    }
    site.attrs_span = it->second->span;
  }
  site.attrs = std::move(attrs);
  site.attr_names = std::move(names);
  site.positional.clear();
}

} // namespace teval::parser::mlir_detail
