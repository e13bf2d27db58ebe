// Elaboration of an MLIR function into the op graph (see mlir.h and the
// ByteIR section of docs/SEMANTICS.md): functions, calls and the operations
// of one op (the Elaborator of mlir_elaborator.h; mlir_sites.cpp and
// mlir_regions.cpp hold its other methods).
#include "parser/mlir/mlir.h"

#include "core/error.h"
#include "core/format.h"
#include "core/kernel.h"
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_elaborator.h"
#include "parser/mlir/mlir_grammar.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>

namespace teval::parser {

namespace mlir_detail {

using core::Error;
using core::ErrorKind;
using core::GraphNode;
using core::GraphOp;
using core::Shape;
using core::Span;
using core::ValueType;

core::Graph Elaborator::run() {
  for (size_t i = 0; i < fn_.params.size(); ++i)
    argument(i);
  body(fn_, [&](const ast::Return& r, Span span) { ret(r, span); });
  return std::move(g_);
}

void Elaborator::body(const ast::Function& fn,
                      const std::function<void(const ast::Return&, Span)>& on_return) {
  bool returned = false;
  for (const ast::StmtPtr& s : fn.body) {
    if (returned)
      throw Error(ErrorKind::Syntax, s->span, "an operation after the function's return");
    if (const auto* r = std::get_if<ast::Return>(&s->node)) {
      on_return(*r, s->span);
      returned = true;
    } else if (const auto* a = std::get_if<ast::Assign>(&s->node)) {
      operation(*a->value, a->target.get());
    } else if (const auto* e = std::get_if<ast::ExprStmt>(&s->node)) {
      operation(*e->expr, nullptr);
    } else {
      throw Error(ErrorKind::Unsupported, s->span, "a function inside a function");
    }
  }
  if (!returned)
    throw Error(ErrorKind::Syntax, fn.body.empty() ? Span() : fn.body.back()->span,
                "function @" + fn.name + " does not return");
}

void Elaborator::call_function(const ast::Call& call, const ast::Call& typed,
                               const ast::Expr* target) {
  const bool composite = call.callee.ends_with("composite");
  const std::string what = composite ? "composite" : "func.call";
  std::string name;
  for (const ast::Keyword& k : call.keywords) {
    const ast::Name* n = ast::as_name(*k.value);
    if (n && k.name == (composite ? "decomposition" : "callee"))
      name = n->id.substr(n->id.starts_with("@") ? 1 : 0);
    if (const ast::StringLit* t = ast::as_string(*k.value);
        !composite && k.name == "call_target_name" && t)
      name = t->value;
  }
  if (name.empty())
    throw Error(ErrorKind::Syntax, call.callee_span,
                composite ? "composite needs its decomposition, @name"
                          : "func.call needs its callee, @name");
  const ast::Function* fn = nullptr;
  for (const ast::StmtPtr& s : program_.statements)
    if (const auto* f = std::get_if<ast::Function>(&s->node); f && f->name == name)
      fn = f;
  if (!fn || fn->body.empty())
    throw Error(ErrorKind::Name, call.callee_span,
                what + " of @" + name +
                    (fn ? ", which the module declares without a body"
                        : ", which the module does not define"));
  if (fn == &fn_ || std::count(calls_.begin(), calls_.end(), name))
    throw Error(ErrorKind::Unsupported, call.callee_span,
                what + " of @" + name + " inside itself: teval reads calls that do not recurse");
  if (call.args.size() != fn->params.size())
    throw Error(ErrorKind::Shape, call.callee_span,
                what + " passes " + std::to_string(call.args.size()) + " operands to @" + name +
                    ", which takes " + std::to_string(fn->params.size()));
  std::map<std::string, int> scope;
  for (size_t i = 0; i < call.args.size(); ++i) {
    int v = use(*call.args[i]);
    ValueType declared = tensor_type(*fn->params[i].type_expr);
    if (!fits(declared, g_.values[static_cast<size_t>(v)]))
      throw Error(ErrorKind::Shape, call.args[i]->span,
                  "operand " + g_.value_names[static_cast<size_t>(v)] + " is " +
                      type_string(g_.values[static_cast<size_t>(v)]) + ", but @" + name +
                      " takes " + type_string(declared));
    scope[fn->params[i].name] = v;
  }
  std::vector<int> results;
  std::vector<const ast::Expr*> names = result_names(target);
  // The callee's values are named after the call's (first) result.
  std::string prefix = prefix_;
  std::string site = names.empty() ? "@" + name : ast::as_name(*names[0])->id;
  prefix_ += site.substr(0, site.find('#')) + "/";
  std::swap(scope, names_);
  std::map<std::string, Tuple> outer_tuples;
  std::swap(outer_tuples, tuples_);
  calls_.push_back(name);
  body(*fn, [&](const ast::Return& r, Span span) {
    const ast::Call* c = ast::as_call(*r.value);
    std::vector<ValueType> declared;
    if (fn->result_type)
      for (const ast::ExprPtr& t : std::get<ast::Tuple>(fn->result_type->node).items)
        declared.push_back(tensor_type(*t));
    const auto& values = std::get<ast::Tuple>(c->args[0]->node).items;
    if (values.size() != declared.size())
      throw Error(ErrorKind::Shape, span,
                  "function @" + name + " returns " + std::to_string(values.size()) +
                      " values but declares " + std::to_string(declared.size()) + " results");
    for (size_t i = 0; i < values.size(); ++i) {
      results.push_back(use(*values[i]));
      if (!fits(declared[i], g_.values[static_cast<size_t>(results.back())]))
        throw Error(ErrorKind::Shape, values[i]->span,
                    "returned value is " +
                        type_string(g_.values[static_cast<size_t>(results.back())]) +
                        ", declared " + type_string(declared[i]));
    }
  });
  calls_.pop_back();
  std::swap(scope, names_);
  std::swap(outer_tuples, tuples_);
  prefix_ = prefix;
  const ast::Call* fn_type = ast::as_call(*typed.args[1]);
  std::vector<const ast::Expr*> declared_types;
  if (fn_type && fn_type->callee == "->")
    for (const ast::ExprPtr& t : std::get<ast::Tuple>(fn_type->args[1]->node).items)
      declared_types.push_back(t.get());
  else
    declared_types.push_back(typed.args[1].get());
  if (names.size() != results.size() || declared_types.size() != results.size())
    throw Error(ErrorKind::Shape, target ? target->span : call.callee_span,
                what + " of @" + name + " gives " + std::to_string(results.size()) +
                    " results; the call names " + std::to_string(names.size()) +
                    " and its type declares " + std::to_string(declared_types.size()));
  for (size_t i = 0; i < results.size(); ++i) {
    const ValueType& got = g_.values[static_cast<size_t>(results[i])];
    if (!fits(tensor_type(*declared_types[i]), got))
      throw Error(ErrorKind::Shape, declared_types[i]->span,
                  "result " + std::to_string(i) + " of the call of @" + name + " is " +
                      type_string(got) + ", but the call's type says " +
                      type_string(tensor_type(*declared_types[i])));
  }
  bind(names, results);
}

void Elaborator::composition(const ast::Expr& value, const ast::Expr* target) {
  OpSite site = read_site(value);
  if (site.name == "infeed" || site.name == "outfeed")
    return feed(site, target);
  std::vector<const ast::Expr*> names = result_names(target);
  std::string first = names.empty() ? "@" + site.name : ast::as_name(*names[0])->id;
  const std::string prefix = prefix_ + first.substr(0, first.find('#')) + "/";
  std::vector<int> results = site.name.starts_with("chlo.")
                                 ? mlir_detail::chlo_composition(site, g_, prefix)
                                 : mlir_detail::batch_norm(site, g_, prefix);
  if (names.size() != results.size() || site.declared_outs.size() != results.size())
    throw Error(ErrorKind::Shape, target ? target->span : site.span,
                site.name + " gives " + std::to_string(results.size()) + " results; " +
                    std::to_string(names.size()) + " are named and its type declares " +
                    std::to_string(site.declared_outs.size()));
  for (size_t i = 0; i < results.size(); ++i)
    if (!fits(site.declared_outs[i], g_.values[static_cast<size_t>(results[i])]))
      throw Error(ErrorKind::Shape, site.span,
                  "result " + std::to_string(i) + " of " + site.name + " is " +
                      type_string(g_.values[static_cast<size_t>(results[i])]) +
                      ", but its type says " + type_string(site.declared_outs[i]));
  bind(names, results);
}

void Elaborator::bind(const std::vector<const ast::Expr*>& names, const std::vector<int>& results) {
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& id = ast::as_name(*names[i])->id;
    if (names_.count(id))
      throw Error(ErrorKind::Name, names[i]->span, "value " + id + " is defined twice");
    names_[id] = results[i];
    g_.value_paths.emplace(prefix_ + id, results[i]);
  }
}

int Elaborator::define(const std::string& name, const ValueType& t, Span span) {
  if (names_.count(name))
    throw Error(ErrorKind::Name, span, "value " + name + " is defined twice");
  const int id = g_.add_value(t, name);
  g_.value_paths.emplace(prefix_ + name, id);
  names_[name] = id;
  return id;
}

int Elaborator::use(const ast::Expr& e) {
  const ast::Name* n = ast::as_name(e);
  if (!n || n->id.empty() || n->id[0] != '%')
    throw Error(ErrorKind::Syntax, e.span, "expected a value (`%name`), not `" + text(e) + "`");
  auto it = names_.find(n->id);
  if (it == names_.end() && n->id.find('#') == std::string::npos)
    it = names_.find(n->id + "#0");
  if (it == names_.end() && tuples_.count(n->id))
    throw Error(ErrorKind::Unsupported, e.span,
                n->id + " is a tuple; teval reads tuples in tuple and get_tuple_element only");
  if (it == names_.end())
    throw Error(ErrorKind::Name, e.span, "use of undefined value " + n->id);
  return it->second;
}

void Elaborator::tuple_op(const ast::Call& call, const ast::Call& typed, const ast::Expr* target) {
  const bool make = call.callee.ends_with(".tuple");
  const std::string op = make ? "tuple" : "get_tuple_element";
  std::vector<const ast::Expr*> names = result_names(target);
  if (names.size() != 1)
    throw Error(ErrorKind::Shape, target ? target->span : call.callee_span,
                op + " gives one result");
  const std::string& id = ast::as_name(*names[0])->id;
  if (names_.count(id) || tuples_.count(id))
    throw Error(ErrorKind::Name, names[0]->span, "value " + id + " is defined twice");
  auto tuple_of = [&](const ast::Expr& e) -> const Tuple* {
    const ast::Name* n = ast::as_name(e);
    auto it = n ? tuples_.find(n->id) : tuples_.end();
    return it == tuples_.end() ? nullptr : &it->second;
  };
  for (const ast::Keyword& k : call.keywords)
    if (make || k.name != "index")
      throw Error(ErrorKind::Syntax, k.span, op + " takes no attribute `" + k.name + "`");
  if (make) {
    Tuple t;
    for (const ast::ExprPtr& a : call.args) {
      const Tuple* inner = tuple_of(*a);
      t.items.push_back(inner ? Tuple::Item{-1, std::make_shared<const Tuple>(*inner)}
                              : Tuple::Item{use(*a), nullptr});
    }
    tuples_[id] = std::move(t);
    return;
  }
  const Tuple* t = call.args.size() == 1 ? tuple_of(*call.args[0]) : nullptr;
  if (!t)
    throw Error(ErrorKind::Shape, call.args.empty() ? call.callee_span : call.args[0]->span,
                "get_tuple_element takes one tuple");
  const ast::Keyword* index = nullptr;
  for (const ast::Keyword& k : call.keywords)
    index = &k;
  const ast::Expr* value = index ? index->value.get() : nullptr;
  if (const ast::Call* c = value ? ast::as_call(*value) : nullptr; c && c->callee == ":")
    value = c->args[0].get(); // `0 : i32`
  const auto* i = value ? std::get_if<ast::IntLit>(&value->node) : nullptr;
  if (!i || i->value >= t->items.size())
    throw Error(ErrorKind::Shape, index ? index->span : call.callee_span,
                "get_tuple_element needs an index below the tuple's " +
                    std::to_string(t->items.size()) + " elements");
  const Tuple::Item& item = t->items[i->value];
  if (item.tuple) {
    tuples_[id] = *item.tuple;
    return;
  }
  const ast::Call* fn_type = ast::as_call(*typed.args[1]);
  const ast::Expr& declared = fn_type && fn_type->callee == "->"
                                  ? *std::get<ast::Tuple>(fn_type->args[1]->node).items.at(0)
                                  : *typed.args[1];
  const ValueType& actual = g_.values[static_cast<size_t>(item.value)];
  if (!fits(tensor_type(declared), actual))
    throw Error(ErrorKind::Shape, declared.span,
                "element " + std::to_string(i->value) + " is " + type_string(actual) +
                    ", but get_tuple_element's type says " + text(declared));
  bind(names, {item.value});
}

ValueType Elaborator::input_type(const ValueType& declared, const std::string& name, Span span,
                                 const std::string& what) const {
  ValueType t = declared;
  if (auto it = inputs_.find(name); it != inputs_.end()) {
    // An array of the storage type holds a quantized argument's integers.
    ValueType given{it->second.dtype, it->second.shape};
    if (!fits(declared, {given.dtype, given.shape, declared.quant}))
      throw Error(ErrorKind::Shape, span,
                  what + " (input " + name + ") is declared " + type_string(declared) +
                      ", but the input given is " + type_string(given));
    t = {declared.dtype, given.shape, declared.quant};
  } else if (std::count(declared.shape.begin(), declared.shape.end(), kDynamic)) {
    throw Error(ErrorKind::Shape, span,
                what + " of type " + type_string(declared) +
                    " has a dynamic dimension: give input " + name + " (-i " + name +
                    "=FILE.npy or -i " + name + "=DTYPE[d0,...])");
  }
  core::check_tensor_size(t.dtype, t.shape, span, what);
  return t;
}

void Elaborator::argument(size_t i) {
  const ast::Param& p = fn_.params[i];
  const ValueType t = input_type(tensor_type(*p.type_expr), core::graph_input_name(i), p.span,
                                 "argument " + p.name);
  g_.inputs.push_back(define(p.name, t, p.span));
  g_.input_spans.push_back(p.span);
}

void Elaborator::feed(const OpSite& site, const ast::Expr* target) {
  const bool in = site.name == "infeed";
  if (regions_ > 0)
    throw Error(ErrorKind::Unsupported, site.span,
                site.name +
                    " inside a region: teval reads infeed and outfeed run once, in a function's "
                    "body, their data inputs after the arguments (infeed) or outputs after the "
                    "results (outfeed)");
  if (in)
    mlir_detail::only(site, {"infeed_config", "layout"}); // implementation-defined
  else
    mlir_detail::only(site, {"outfeed_config"});
  const std::vector<ValueType> operands = operand_types(site);
  if (operands.empty() || !operands.back().token || (in && operands.size() != 1))
    throw Error(ErrorKind::Type, site.span,
                site.name + (in ? " takes a token" : " takes its inputs, then a token"));
  const size_t tokens = std::count_if(site.declared_outs.begin(), site.declared_outs.end(),
                                      [](const ValueType& t) { return t.token; });
  if (site.declared_outs.empty() || !site.declared_outs.back().token || tokens != 1 ||
      (!in && site.declared_outs.size() != 1))
    throw Error(ErrorKind::Type, site.span,
                site.name + (in ? " gives its data, then a token" : " gives a token"));
  std::vector<const ast::Expr*> names = result_names(target);
  if (names.size() != site.declared_outs.size())
    throw Error(ErrorKind::Shape, target ? target->span : site.span,
                site.name + " gives " + std::to_string(site.declared_outs.size()) + " results; " +
                    std::to_string(names.size()) + " are named");
  for (size_t i = 0; i + 1 < operands.size(); ++i) // outfeed's data
    outfeeds_.emplace_back(site.operands[i], site.call->args[i]->span);
  for (size_t i = 0; i + 1 < names.size(); ++i) { // infeed's data
    const std::string& id = ast::as_name(*names[i])->id;
    const std::string input = core::graph_input_name(g_.inputs.size());
    const ValueType t = input_type(site.declared_outs[i], input, names[i]->span, "infeed's " + id);
    g_.inputs.push_back(define(id, t, names[i]->span));
    g_.input_spans.push_back(names[i]->span);
  }
  GraphNode token;
  token.op = GraphOp::Constant;
  token.span = site.span;
  token.attrs["value"] = core::Tensor(core::DType::Bool, {0});
  token.results.push_back(
      define(ast::as_name(*names.back())->id, site.declared_outs.back(), names.back()->span));
  g_.nodes.push_back(std::move(token));
}

void Elaborator::ret(const ast::Return& r, Span span) {
  const ast::Call* c = ast::as_call(*r.value);
  const auto& values = std::get<ast::Tuple>(c->args[0]->node).items;
  const auto& types = std::get<ast::Tuple>(c->args[1]->node).items;
  if (values.size() != types.size())
    throw Error(ErrorKind::Syntax, span,
                "the return has " + std::to_string(values.size()) + " values and " +
                    std::to_string(types.size()) + " types");
  std::vector<ValueType> results;
  if (fn_.result_type)
    for (const ast::ExprPtr& t : std::get<ast::Tuple>(fn_.result_type->node).items)
      results.push_back(tensor_type(*t));
  if (results.size() != values.size())
    throw Error(ErrorKind::Shape, span,
                "function @" + fn_.name + " returns " + std::to_string(values.size()) +
                    " values but declares " + std::to_string(results.size()) + " results");
  for (size_t i = 0; i < values.size(); ++i) {
    int v = use(*values[i]);
    const ValueType& actual = g_.values[static_cast<size_t>(v)];
    for (const ValueType& declared : {tensor_type(*types[i]), results[i]})
      if (!fits(declared, actual))
        throw Error(ErrorKind::Shape, values[i]->span,
                    "returned value " + g_.value_names[static_cast<size_t>(v)] + " is " +
                        type_string(actual) + ", declared " + type_string(declared));
    g_.outputs.push_back(v);
    g_.output_spans.push_back(values[i]->span);
  }
  for (const auto& [v, where] : outfeeds_) { // after the results
    g_.outputs.push_back(v);
    g_.output_spans.push_back(where);
  }
}

std::vector<const ast::Expr*> Elaborator::result_names(const ast::Expr* target) {
  std::vector<const ast::Expr*> names;
  if (!target)
    return names;
  if (const auto* t = std::get_if<ast::Tuple>(&target->node)) {
    for (const ast::ExprPtr& n : t->items)
      names.push_back(n.get());
  } else {
    names.push_back(target);
  }
  return names;
}

void Elaborator::operation(const ast::Expr& value, const ast::Expr* target) {
  const ast::Call* typed = ast::as_call(value);
  const ast::Call* call = typed && typed->callee == ":" ? ast::as_call(*typed->args[0]) : nullptr;
  if (call && (call->callee == "func.call" || call->callee == "call" ||
               call->callee == "stablehlo.composite" || call->callee == "mhlo.composite"))
    return call_function(*call, *typed, target);
  if (call && (mlir_detail::is_batch_norm(call->callee.substr(call->callee.find('.') + 1)) ||
               mlir_detail::is_chlo_composition(call->callee)))
    return composition(value, target);
  if (call &&
      (call->callee == "stablehlo.tuple" || call->callee == "mhlo.tuple" ||
       call->callee == "stablehlo.get_tuple_element" || call->callee == "mhlo.get_tuple_element"))
    return tuple_op(*call, *typed, target);
  OpSite site = read_site(value);
  if (site.name == "infeed" || site.name == "outfeed")
    return feed(site, target);
  // A token passes through control flow, calls and optimization_barrier
  // only, and after_all joins them (spec "after_all").
  if (site.op != GraphOp::OptimizationBarrier && site.op != GraphOp::While &&
      site.op != GraphOp::If && site.op != GraphOp::Case && site.op != GraphOp::Constant)
    for (const ast::ExprPtr& a : site.call->args) // the operands among the arguments
      if (const ast::Name* n = ast::as_name(*a);
          n && n->id.starts_with("%") && g_.values[static_cast<size_t>(use(*a))].token)
        throw Error(ErrorKind::Type, a->span,
                    "`" + site.call->callee + "` takes no token; its operand " + n->id + " is one");
  if (site.name.starts_with("chlo.broadcast_")) {
    std::vector<const ast::Expr*> names = result_names(target);
    const std::string first = names.empty() ? "@" + site.name : ast::as_name(*names[0])->id;
    mlir_detail::chlo_broadcast(site, g_, prefix_ + first.substr(0, first.find('#')) + "/");
  }
  if (site.op == GraphOp::Reduce || site.op == GraphOp::ReduceWindow ||
      site.op == GraphOp::Scatter) {
    std::vector<const ast::Expr*> names = result_names(target);
    const std::string first = names.empty() ? "@" + site.name : ast::as_name(*names[0])->id;
    mlir_detail::promote_to_body(site, g_, prefix_ + first.substr(0, first.find('#')) + "/");
  }
  GraphNode node;
  node.op = site.op;
  node.operands = site.operands;
  node.span = site.span;
  if (site.op == GraphOp::If || site.op == GraphOp::Case || site.op == GraphOp::While)
    return control_flow(site, std::move(node), target);
  if (site.op == GraphOp::Sort)
    return sort(site, std::move(node), target);
  if (site.op == GraphOp::Map)
    return map(site, std::move(node), target);
  if (site.op == GraphOp::Scan)
    return scan(site, std::move(node), target);
  if (site.op == GraphOp::Scatter)
    return scatter(site, std::move(node), target);
  // A reduce (or reduce_window) of quantized values runs its body on
  // quantized scalars: as a region, whatever the body.
  const std::vector<ValueType> in_types = operand_types(site);
  const bool quantized = std::any_of(in_types.begin(), in_types.end(),
                                     [](const ValueType& t) { return t.quant != nullptr; });
  if ((site.op == GraphOp::Reduce || site.op == GraphOp::ReduceWindow) &&
      (quantized || !mlir_detail::folds_one_op(site, in_types)))
    return reduce_region(site, std::move(node), target);
  if (site.op == GraphOp::SelectAndScatter)
    return select_and_scatter(site, std::move(node), target);
  if (!site.call->regions.empty() && site.op != GraphOp::Reduce && site.op != GraphOp::ReduceWindow)
    throw Error(ErrorKind::Unsupported, site.call->callee_span,
                "`" + site.call->callee +
                    "` has a region; teval reads the regions of "
                    "functions, modules, reduce, reduce_window, if, case, while, sort, map, "
                    "scatter, select_and_scatter and chlo.scan");
  std::vector<ValueType> results = mlir_detail::meaning(site, g_, node);
  std::vector<const ast::Expr*> names = result_names(target);
  // A softmax of f16 declared f32 (as ByteIR's frontends emit it): the
  // softmax in the operand's dtype, then converted, as ByteIR lowers it
  // (HloToCat: cat.softmax, mhlo.convert).
  if ((site.op == GraphOp::Softmax || site.op == GraphOp::LogSoftmax) && names.size() == 1 &&
      site.declared_outs.size() == 1 && core::is_float(site.declared_outs[0].dtype) &&
      site.declared_outs[0].dtype != results[0].dtype &&
      fits(site.declared_outs[0], {site.declared_outs[0].dtype, results[0].shape})) {
    const std::string& id = ast::as_name(*names[0])->id;
    const std::string inner = id + "/" + std::string(core::graph_op_name(site.op));
    const int computed = g_.add_value(results[0], inner);
    g_.value_paths.emplace(prefix_ + inner, computed);
    node.results.push_back(computed);
    g_.nodes.push_back(std::move(node));
    GraphNode convert;
    convert.op = GraphOp::Convert;
    convert.operands = {computed};
    convert.span = site.span;
    convert.results.push_back(
        define(id, {site.declared_outs[0].dtype, results[0].shape}, names[0]->span));
    g_.nodes.push_back(std::move(convert));
    return;
  }
  if (names.size() != results.size())
    throw Error(ErrorKind::Shape, target ? target->span : site.span,
                site.call->callee + " gives " + std::to_string(results.size()) + " result" +
                    (results.size() == 1 ? "" : "s") + ", " + std::to_string(names.size()) +
                    " named");
  if (site.declared_outs.size() != results.size())
    throw Error(ErrorKind::Shape, site.span,
                "the type of " + site.call->callee + " declares " +
                    std::to_string(site.declared_outs.size()) + " results; it gives " +
                    std::to_string(results.size()));
  for (size_t i = 0; i < results.size(); ++i) {
    if (!fits(site.declared_outs[i], results[i]))
      throw Error(ErrorKind::Shape, site.span,
                  "result " + std::to_string(i) + " of " + site.call->callee + " is " +
                      type_string(results[i]) + ", but its type says " +
                      type_string(site.declared_outs[i]));
    core::check_tensor_size(results[i].dtype, results[i].shape, names[i]->span,
                            "value " + ast::as_name(*names[i])->id);
    node.results.push_back(define(ast::as_name(*names[i])->id, results[i], names[i]->span));
  }
  g_.nodes.push_back(std::move(node));
}

} // namespace mlir_detail

namespace {

using core::Error;
using core::ErrorKind;

const ast::Function& find_function(const ast::Program& program, const std::string& entry) {
  std::vector<const ast::Function*> functions;
  for (const ast::StmtPtr& s : program.statements) {
    const auto* f = std::get_if<ast::Function>(&s->node);
    if (!f)
      throw Error(ErrorKind::Unsupported, s->span,
                  "an operation outside a function; teval reads functions of a module");
    functions.push_back(f);
  }
  std::string wanted = entry.empty() ? "main" : entry;
  for (const ast::Function* f : functions)
    if (f->name == wanted)
      return *f;
  if (entry.empty() && functions.size() == 1)
    return *functions[0];
  std::string names;
  for (const ast::Function* f : functions)
    names += (names.empty() ? "@" : ", @") + f->name;
  std::string origin = program.file ? program.file->name() : std::string("<mlir>");
  throw Error(ErrorKind::Name, origin,
              functions.empty() ? std::string("the module has no function")
                                : "no function @" + wanted + " (the module has " + names +
                                      "); --entry NAME picks one");
}

} // namespace

ast::Program read_mlir(const core::SourceFile& file) {
  return parse_mlir(file.text(), TextOrigin(&file, 0u));
}

std::vector<MlirArgument> mlir_arguments(const ast::Program& program, const std::string& entry) {
  const ast::Function& fn = find_function(program, entry);
  std::vector<MlirArgument> args;
  for (size_t i = 0; i < fn.params.size(); ++i)
    args.push_back({core::graph_input_name(i), mlir_detail::tensor_type(*fn.params[i].type_expr),
                    fn.params[i].span});
  return args;
}

core::Graph elaborate_mlir(const ast::Program& program, const std::string& entry,
                           const std::map<std::string, InputType>& inputs) {
  return mlir_detail::Elaborator(program, find_function(program, entry), inputs).run();
}

} // namespace teval::parser
