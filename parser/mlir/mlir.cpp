// Elaboration of an MLIR function into the op graph (see mlir.h and the
// ByteIR section of docs/SEMANTICS.md).
#include "parser/mlir/mlir.h"

#include "core/error.h"
#include "core/format.h"
#include "core/kernel.h"
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_grammar.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>

namespace teval::parser {

namespace {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphAttr;
using core::GraphNode;
using core::GraphOp;
using core::Shape;
using core::Span;
using core::ValueType;

using namespace mlir_detail;

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

// ---------------------------------------------------------------------------
// Attributes

// ---------------------------------------------------------------------------
// Operations

const std::vector<std::pair<std::string_view, GraphOp>>& plain_ops() {
  static const std::vector<std::pair<std::string_view, GraphOp>> ops = [] {
    std::vector<std::pair<std::string_view, GraphOp>> v;
#define TEVAL_GRAPH_OP(e, name)                                                                    \
  if (std::string_view(name).substr(0, 7) != "byteir.")                                            \
    v.emplace_back(name, GraphOp::e);
#include "core/graph_ops.def"
    // Read as the static ops they are (parser/mlir/mlir_dynamic.cpp).
    v.emplace_back("get_dimension_size", GraphOp::Constant);
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

const std::vector<std::pair<std::string_view, GraphOp>>& byteir_ops() {
  static const std::vector<std::pair<std::string_view, GraphOp>> ops = [] {
    std::vector<std::pair<std::string_view, GraphOp>> v;
#define TEVAL_GRAPH_OP(e, name)                                                                    \
  if (std::string_view(name).substr(0, 7) == "byteir.")                                            \
    v.emplace_back(name, GraphOp::e);
#include "core/graph_ops.def"
    return v;
  }();
  return ops;
}

std::string name_list(const std::vector<std::pair<std::string_view, GraphOp>>& ops) {
  std::string s;
  for (const auto& [name, op] : ops)
    s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

class Elaborator {
public:
  Elaborator(const ast::Program& program, const ast::Function& fn,
             const std::map<std::string, InputType>& inputs)
      : program_(program), fn_(fn), inputs_(inputs) {}

  core::Graph run() {
    for (size_t i = 0; i < fn_.params.size(); ++i)
      argument(i);
    body(fn_, [&](const ast::Return& r, Span span) { ret(r, span); });
    return std::move(g_);
  }

private:
  // The operations of \p fn (the entry, or a callee whose parameters are
  // bound), its return given to \p on_return.
  void body(const ast::Function& fn,
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

  // `func.call @f(%a) : (T) -> U` (generic: `"func.call"(%a) <{callee =
  // @f}>`): @f's operations inlined, its parameters bound to the operands
  // and its returned values named by the call's results. A composite
  // (spec "composite") is a call of its `decomposition`: its name,
  // composite_attributes and version do not change what it computes.
  void call_function(const ast::Call& call, const ast::Call& typed, const ast::Expr* target) {
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

  // An op the specification defines as a composition of other ops
  // (batch_norm_*): their nodes, named after its first result
  // (parser/mlir/mlir_batch_norm.cpp).
  void composition(const ast::Expr& value, const ast::Expr* target) {
    OpSite site = read_site(value);
    std::vector<const ast::Expr*> names = result_names(target);
    std::string first = names.empty() ? "@" + site.name : ast::as_name(*names[0])->id;
    std::vector<int> results =
        mlir_detail::batch_norm(site, g_, prefix_ + first.substr(0, first.find('#')) + "/");
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

private:
  // \p names (a call's or a composition's results) name the values \p results.
  void bind(const std::vector<const ast::Expr*>& names, const std::vector<int>& results) {
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string& id = ast::as_name(*names[i])->id;
      if (names_.count(id))
        throw Error(ErrorKind::Name, names[i]->span, "value " + id + " is defined twice");
      names_[id] = results[i];
      g_.value_paths.emplace(prefix_ + id, results[i]);
    }
  }

  int define(const std::string& name, const ValueType& t, Span span) {
    if (names_.count(name))
      throw Error(ErrorKind::Name, span, "value " + name + " is defined twice");
    int id = static_cast<int>(g_.values.size());
    g_.values.push_back(t);
    g_.value_names.push_back(name);
    g_.value_paths.emplace(prefix_ + name, id);
    names_[name] = id;
    return id;
  }

  int use(const ast::Expr& e) {
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

  // tuple and get_tuple_element (spec "tuple", "get_tuple_element"): a
  // tuple of values and tuples, known while the function is read;
  // get_tuple_element names its element `index`.
  void tuple_op(const ast::Call& call, const ast::Call& typed, const ast::Expr* target) {
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

  void argument(size_t i) {
    const ast::Param& p = fn_.params[i];
    ValueType declared = tensor_type(*p.type_expr);
    std::string name = core::graph_input_name(i);
    ValueType t = declared;
    if (auto it = inputs_.find(name); it != inputs_.end()) {
      // An array of the storage type holds a quantized argument's integers.
      ValueType given{it->second.dtype, it->second.shape};
      if (!fits(declared, {given.dtype, given.shape, declared.quant}))
        throw Error(ErrorKind::Shape, p.span,
                    "argument " + p.name + " (input " + name + ") is declared " +
                        type_string(declared) + ", but the input given is " + type_string(given));
      t = {declared.dtype, given.shape, declared.quant};
    } else if (std::count(declared.shape.begin(), declared.shape.end(), kDynamic)) {
      throw Error(ErrorKind::Shape, p.span,
                  "argument " + p.name + " of type " + type_string(declared) +
                      " has a dynamic dimension: give input " + name + " (-i " + name +
                      "=FILE.npy or -i " + name + "=DTYPE[d0,...])");
    }
    core::check_tensor_size(t.dtype, t.shape, p.span, "argument " + p.name);
    g_.inputs.push_back(define(p.name, t, p.span));
    g_.input_spans.push_back(p.span);
  }

  void ret(const ast::Return& r, Span span) {
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
  }

  // The target's names: `%0`, or the Tuple of `%0#0`, `%0#1`.
  static std::vector<const ast::Expr*> result_names(const ast::Expr* target) {
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

  void operation(const ast::Expr& value, const ast::Expr* target) {
    const ast::Call* typed = ast::as_call(value);
    const ast::Call* call = typed && typed->callee == ":" ? ast::as_call(*typed->args[0]) : nullptr;
    if (call && (call->callee == "func.call" || call->callee == "call" ||
                 call->callee == "stablehlo.composite" || call->callee == "mhlo.composite"))
      return call_function(*call, *typed, target);
    if (call && mlir_detail::is_batch_norm(call->callee.substr(call->callee.find('.') + 1)))
      return composition(value, target);
    if (call &&
        (call->callee == "stablehlo.tuple" || call->callee == "mhlo.tuple" ||
         call->callee == "stablehlo.get_tuple_element" || call->callee == "mhlo.get_tuple_element"))
      return tuple_op(*call, *typed, target);
    OpSite site = read_site(value);
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
    if (site.op == GraphOp::Scatter)
      return scatter(site, std::move(node), target);
    if (site.op == GraphOp::Reduce && !mlir_detail::folds_one_op(site, operand_types(site)))
      return reduce_region(site, std::move(node), target);
    if (site.op == GraphOp::SelectAndScatter)
      return select_and_scatter(site, std::move(node), target);
    if (!site.call->regions.empty() && site.op != GraphOp::Reduce &&
        site.op != GraphOp::ReduceWindow)
      throw Error(ErrorKind::Unsupported, site.call->callee_span,
                  "`" + site.call->callee +
                      "` has a region; teval reads the regions of "
                      "functions, modules, reduce, reduce_window, if, case, while, sort, map, "
                      "scatter and select_and_scatter");
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
      const int computed = static_cast<int>(g_.values.size());
      g_.values.push_back(results[0]);
      g_.value_names.push_back(id + "/" + std::string(core::graph_op_name(site.op)));
      g_.value_paths.emplace(prefix_ + g_.value_names.back(), computed);
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

  // if, case and while (spec "if", "case", "while"): each region's
  // operations elaborated into a region of the node, the enclosing values
  // visible in it; the results those of the branch taken (of the loop, the
  // carried values).
  void control_flow(const OpSite& site, GraphNode node, const ast::Expr* target) {
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

  // sort (spec "sort"): the comparator region takes two rank-0 values of
  // each input's element type (lhs, rhs, input by input) and returns a
  // rank-0 i1; the results are the inputs, sorted together.
  void sort(const OpSite& site, GraphNode node, const ast::Expr* target) {
    mlir_detail::only(site, {"dimension", "is_stable"});
    std::vector<ValueType> inputs, params;
    for (int v : site.operands) {
      inputs.push_back(g_.values[static_cast<size_t>(v)]);
      params.insert(params.end(), 2, ValueType{inputs.back().dtype, {}});
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

  // map (spec "map"): the computation region applied to the inputs'
  // elements at each index (rank-0 values of each input's element type in,
  // one rank-0 value out).
  void map(const OpSite& site, GraphNode node, const ast::Expr* target) {
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
      throw Error(ErrorKind::Shape, site.span,
                  "map has one region, its computation, and one result");
    const ValueType out{site.declared_outs[0].dtype, {}};
    std::vector<const ast::Expr*> names = result_names(target);
    std::string site_name = names.empty() ? "@map" : ast::as_name(*names[0])->id;
    node.regions.push_back(region(*site.call->regions[0], params, {out}, "map's computation",
                                  site_name.substr(0, site_name.find('#')) + "/@0/"));
    define_results(site, std::move(node), target, {ValueType{out.dtype, shape}});
  }

  // select_and_scatter (spec "select_and_scatter"; its checks in
  // parser/mlir/mlir_scatter.cpp): the select and scatter regions.
  void select_and_scatter(const OpSite& site, GraphNode node, const ast::Expr* target) {
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

  // scatter (spec "scatter"; its checks in parser/mlir/mlir_scatter.cpp):
  // the update computation region takes the N current values and the N
  // updates (rank-0) and returns the N new values.
  void scatter(const OpSite& site, GraphNode node, const ast::Expr* target) {
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

  // reduce of several inputs, or whose body is not one op (spec
  // "reduce"): the body a region taking the N running values and the N
  // elements (rank 0) and returning the N new running values.
  void reduce_region(const OpSite& site, GraphNode node, const ast::Expr* target) {
    const std::vector<ValueType> results =
        mlir_detail::reduce_region_types(site, operand_types(site), node);
    if (site.call->regions.size() != 1)
      throw Error(ErrorKind::Shape, site.span, "reduce needs its body, one region");
    std::vector<ValueType> elements;
    for (const ValueType& r : results)
      elements.push_back({r.dtype, {}});
    std::vector<ValueType> params = elements;
    params.insert(params.end(), elements.begin(), elements.end());
    std::vector<const ast::Expr*> names = result_names(target);
    std::string site_name = names.empty() ? "@reduce" : ast::as_name(*names[0])->id;
    node.regions.push_back(region(*site.call->regions[0], params, elements, "reduce's body",
                                  site_name.substr(0, site_name.find('#')) + "/@0/"));
    define_results(site, std::move(node), target, results);
  }

  std::vector<ValueType> operand_types(const OpSite& site) const {
    std::vector<ValueType> types;
    for (int v : site.operands)
      types.push_back(g_.values[static_cast<size_t>(v)]);
    return types;
  }

  // The results of a node with regions: named as \p target names them, of
  // \p results' types, which the op's type must admit.
  void define_results(const OpSite& site, GraphNode node, const ast::Expr* target,
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

  // A region's operations as nodes of their own, named under \p prefix:
  // its block arguments new values of \p params, the values defined before
  // it visible, the names it defines its own; what its `stablehlo.return`
  // gives checked against \p returns (\p what names the region).
  core::GraphRegion region(const ast::Function& r, const std::vector<ValueType>& params,
                           const std::vector<ValueType>& returns, const std::string& what,
                           const std::string& prefix) {
    if (r.params.size() != params.size())
      throw Error(ErrorKind::Shape, r.body.empty() ? Span() : r.body.front()->span,
                  what + " takes " + std::to_string(params.size()) + " block arguments, not " +
                      std::to_string(r.params.size()));
    core::GraphRegion out;
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
      const ast::Call* call =
          typed && typed->callee == ":" ? ast::as_call(*typed->args[0]) : nullptr;
      if (call && !target &&
          (call->callee == "stablehlo.return" || call->callee == "mhlo.return")) {
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
    return out;
  }

  OpSite read_site(const ast::Expr& value) {
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
    if (site.name.empty())
      throw Error(ErrorKind::Unsupported, call->callee_span,
                  "unknown operation `" + call->callee +
                      "`; teval reads mhlo and stablehlo ops, ByteIR custom calls, func.call "
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
    else if (!mlir_detail::is_batch_norm(site.name))
      plain_op(site);
    return site;
  }

  void plain_op(OpSite& site) {
    for (const auto& [name, op] : plain_ops())
      if (name == site.name) {
        site.op = op;
        return;
      }
    throw Error(ErrorKind::Unsupported, site.call->callee_span,
                "`" + site.call->callee +
                    "` is not an op teval reads; between custom calls it "
                    "reads " +
                    name_list(plain_ops()));
  }

  void custom_call(OpSite& site) {
    auto target = site.attrs.find("call_target_name");
    const ast::StringLit* s =
        target == site.attrs.end() ? nullptr : ast::as_string(*target->second);
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

  const ast::Program& program_;
  const ast::Function& fn_;
  const std::map<std::string, InputType>& inputs_;
  std::vector<std::string> calls_; ///< the functions being inlined
  std::string prefix_;             ///< their call sites' paths (`%2/%1/`)
  core::Graph g_;
  std::map<std::string, int> names_;
  /// The tuples (spec "tuple"): aggregates while the function is read,
  /// never values of the graph.
  struct Tuple {
    struct Item {
      int value = -1; ///< a value, or
      std::shared_ptr<const Tuple> tuple;
    };
    std::vector<Item> items;
  };
  std::map<std::string, Tuple> tuples_;
};

} // namespace

ast::Program read_mlir(const core::SourceFile& file) {
  return parse_mlir(file.text(), TextOrigin(&file, 0u));
}

std::vector<MlirArgument> mlir_arguments(const ast::Program& program, const std::string& entry) {
  const ast::Function& fn = find_function(program, entry);
  std::vector<MlirArgument> args;
  for (size_t i = 0; i < fn.params.size(); ++i)
    args.push_back(
        {core::graph_input_name(i), tensor_type(*fn.params[i].type_expr), fn.params[i].span});
  return args;
}

core::Graph elaborate_mlir(const ast::Program& program, const std::string& entry,
                           const std::map<std::string, InputType>& inputs) {
  return Elaborator(program, find_function(program, entry), inputs).run();
}

} // namespace teval::parser
