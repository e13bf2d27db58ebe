// Elaboration of an MLIR function into the op graph (see mlir.h and the
// ByteIR section of docs/SEMANTICS.md).
#include "parser/mlir/mlir.h"

#include "core/error.h"
#include "core/format.h"
#include "core/kernel.h"
#include "core/scalar_ops.h"
#include "parser/mlir/mlir_grammar.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>

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

constexpr int64_t kDynamic = -1;

std::optional<DType> element_type(std::string_view name) {
  static const std::pair<std::string_view, DType> kTypes[] = {
      {"i1", DType::Bool},     {"i8", DType::Int8},       {"i16", DType::Int16},
      {"i32", DType::Int32},   {"i64", DType::Int64},     {"ui8", DType::UInt8},
      {"f16", DType::Float16}, {"bf16", DType::BFloat16}, {"f32", DType::Float32},
      {"f64", DType::Float64},
  };
  for (const auto& [n, t] : kTypes)
    if (n == name)
      return t;
  return std::nullopt;
}

std::string text(const ast::Expr& e) {
  return std::string(e.span.text());
}

/// `tensor<4x?xf32>`; a `?` is kDynamic.
ValueType tensor_type(const ast::Expr& e) {
  const ast::Call* c = ast::as_call(e);
  if (!c || c->callee != "tensor")
    throw Error(ErrorKind::Unsupported, e.span,
                "`" + text(e) + "` is not a tensor type; teval reads tensor<...> values only");
  ValueType t;
  const ast::Name* element = ast::as_name(*c->args.back());
  std::optional<DType> dtype = element ? element_type(element->id) : std::nullopt;
  if (!dtype)
    throw Error(ErrorKind::Unsupported, c->args.back()->span,
                "element type `" + text(*c->args.back()) +
                    "` is not one teval has; it reads i1, i8, i16, i32, i64, ui8, f16, bf16, f32 "
                    "and f64");
  t.dtype = *dtype;
  for (size_t i = 0; i + 1 < c->args.size(); ++i) {
    const ast::Expr& d = *c->args[i];
    if (ast::as_name(d)) {
      t.shape.push_back(kDynamic);
      continue;
    }
    uint64_t v = std::get<ast::IntLit>(d.node).value;
    if (v > static_cast<uint64_t>(INT32_MAX))
      throw Error(ErrorKind::Limit, d.span,
                  "dimension " + text(d) + " is beyond teval's limit of 2^31 - 1");
    t.shape.push_back(static_cast<int64_t>(v));
  }
  if (t.shape.size() > core::kMaxRank)
    throw Error(ErrorKind::Limit, e.span,
                "a tensor of rank " + std::to_string(t.shape.size()) + "; teval's limit is " +
                    std::to_string(core::kMaxRank));
  return t;
}

std::string type_string(const ValueType& t) {
  std::string s = "tensor<";
  for (int64_t d : t.shape)
    s += (d == kDynamic ? std::string("?") : std::to_string(d)) + "x";
  return s + std::string(core::to_mlir({t.dtype, {}})).substr(7);
}

/// The declared type \p declared admits \p actual: same dtype and rank,
/// equal extents where \p declared is static.
bool fits(const ValueType& declared, const ValueType& actual) {
  if (declared.dtype != actual.dtype || declared.shape.size() != actual.shape.size())
    return false;
  for (size_t i = 0; i < declared.shape.size(); ++i)
    if (declared.shape[i] != kDynamic && declared.shape[i] != actual.shape[i])
      return false;
  return true;
}

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

/// An attribute value with its `: type` ascription split off.
struct Typed {
  const ast::Expr* value;
  const ast::Expr* type = nullptr;
};

Typed typed(const ast::Expr& e) {
  const ast::Call* c = ast::as_call(e);
  if (c && c->callee == ":" && c->args.size() == 2)
    return {c->args[0].get(), c->args[1].get()};
  return {&e};
}

/// A number literal, a sign allowed: its magnitude's node and sign.
struct Number {
  const ast::Expr* literal = nullptr;
  bool negative = false;
};

std::optional<Number> number(const ast::Expr& e) {
  const ast::Expr* n = &e;
  bool negative = false;
  if (const auto* u = std::get_if<ast::Unary>(&e.node)) {
    if (u->op != ast::UnaryOp::Neg && u->op != ast::UnaryOp::Plus)
      return std::nullopt;
    negative = u->op == ast::UnaryOp::Neg;
    n = u->operand.get();
  }
  if (std::holds_alternative<ast::IntLit>(n->node) ||
      std::holds_alternative<ast::FloatLit>(n->node))
    return Number{n, negative};
  return std::nullopt;
}

std::optional<int64_t> integer_value(const ast::Expr& e) {
  std::optional<Number> n = number(e);
  if (!n)
    return std::nullopt;
  const auto* i = std::get_if<ast::IntLit>(&n->literal->node);
  if (!i)
    return std::nullopt;
  if (n->negative ? i->value > uint64_t{1} << 63 : i->value > static_cast<uint64_t>(INT64_MAX))
    throw Error(ErrorKind::Range, e.span, "integer " + text(e) + " does not fit in 64 bits");
  return n->negative ? static_cast<int64_t>(0 - i->value) : static_cast<int64_t>(i->value);
}

std::optional<double> float_value(const ast::Expr& e) {
  std::optional<Number> n = number(e);
  if (!n)
    return std::nullopt;
  double v = 0;
  if (const auto* f = std::get_if<ast::FloatLit>(&n->literal->node))
    v = f->value;
  else
    v = static_cast<double>(std::get<ast::IntLit>(n->literal->node).value);
  return n->negative ? -v : v;
}

/// A float of \p t from its bit pattern `0x7FC00000` (MLIR's spelling of
/// NaN and infinities in dense attributes).
core::Scalar float_from_bits(DType t, uint64_t bits, Span span) {
  int width = core::size_bytes(t) * 8;
  if (width < 64 && bits >> width)
    throw Error(ErrorKind::Range, span,
                "bit pattern does not fit the " + std::to_string(width) + " bits of " +
                    core::to_string(t));
  core::Tensor one(t, {});
  std::memcpy(one.bytes().data(), &bits, static_cast<size_t>(width / 8));
  return one.get(0);
}

/// One element of a dense attribute as a value of \p t.
core::Scalar element_value(const ast::Expr& e, DType t) {
  if (const ast::Name* n = ast::as_name(e); n && (n->id == "true" || n->id == "false")) {
    if (t != DType::Bool)
      throw Error(ErrorKind::Type, e.span, "`" + n->id + "` is not a " + core::to_string(t));
    return core::Scalar::of_int(t, n->id == "true");
  }
  std::optional<Number> n = number(e);
  if (!n)
    throw Error(ErrorKind::Type, e.span, "`" + text(e) + "` is not a number");
  if (core::is_float(t)) {
    const auto* i = std::get_if<ast::IntLit>(&n->literal->node);
    if (i && i->text.size() > 2 && i->text[1] == 'x') {
      if (n->negative)
        throw Error(ErrorKind::Syntax, e.span, "a bit pattern takes no sign");
      return float_from_bits(t, i->value, e.span);
    }
    return core::Scalar::of_float(t, *float_value(e));
  }
  std::optional<int64_t> v = integer_value(e);
  if (!v)
    throw Error(ErrorKind::Type, e.span,
                "`" + text(e) + "` is not a value of " + core::to_string(t));
  core::Scalar s = core::Scalar::of_int(t, *v);
  if (s.i != *v && !(t == DType::Bool && (*v == 0 || *v == 1)))
    throw Error(ErrorKind::Range, e.span,
                text(e) + " is not a value of " + core::to_string(t) + " (it would wrap)");
  return s;
}

/// The elements of nested lists in row-major order, checking the shape.
void flatten(const ast::Expr& e, const Shape& shape, size_t dim,
             std::vector<const ast::Expr*>& out) {
  const auto* list = std::get_if<ast::List>(&e.node);
  if (dim == shape.size()) {
    if (list)
      throw Error(ErrorKind::Shape, e.span, "a list where the shape has no more dimensions");
    out.push_back(&e);
    return;
  }
  if (!list || static_cast<int64_t>(list->items.size()) != shape[dim])
    throw Error(ErrorKind::Shape, e.span,
                "dimension " + std::to_string(dim) + " of the value should have " +
                    std::to_string(shape[dim]) + " elements");
  for (const ast::ExprPtr& item : list->items)
    flatten(*item, shape, dim + 1, out);
}

/// `dense<...>` of type \p t: a splat, nested lists, or (a string) the
/// raw little-endian bytes as MLIR prints large constants.
core::Tensor dense_value(const ast::Expr& e, const ValueType& t) {
  const ast::Call* c = ast::as_call(e);
  if (!c || c->callee != "dense")
    throw Error(ErrorKind::Type, e.span, "expected a dense<...> value, not `" + text(e) + "`");
  for (int64_t d : t.shape)
    if (d == kDynamic)
      throw Error(ErrorKind::Shape, e.span, "a constant needs a static type");
  core::Tensor out(t.dtype, t.shape);
  if (c->args.empty()) {
    if (out.numel() != 0)
      throw Error(ErrorKind::Shape, e.span, "dense<> is empty but the type has elements");
    return out;
  }
  const ast::Expr& content = *c->args[0];
  if (const ast::StringLit* s = ast::as_string(content)) {
    const std::string& hex = s->value;
    size_t bytes = out.bytes().size();
    if (hex.size() != 2 + 2 * bytes || hex.substr(0, 2) != "0x")
      throw Error(ErrorKind::Shape, content.span,
                  "a hex constant of " + std::to_string(bytes) + " bytes should have " +
                      std::to_string(2 * bytes) + " hex digits after 0x");
    for (size_t i = 0; i < bytes; ++i) {
      std::string byte = hex.substr(2 + 2 * i, 2);
      if (!std::isxdigit(static_cast<unsigned char>(byte[0])) ||
          !std::isxdigit(static_cast<unsigned char>(byte[1])))
        throw Error(ErrorKind::Syntax, content.span, "`" + byte + "` is not a hex byte");
      out.bytes()[i] = static_cast<std::byte>(std::stoi(byte, nullptr, 16));
    }
    return out;
  }
  if (!std::holds_alternative<ast::List>(content.node)) {
    core::Scalar v = element_value(content, t.dtype);
    for (int64_t i = 0; i < out.numel(); ++i)
      out.set(i, v);
    return out;
  }
  std::vector<const ast::Expr*> elements;
  flatten(content, t.shape, 0, elements);
  for (size_t i = 0; i < elements.size(); ++i)
    out.set(static_cast<int64_t>(i), element_value(*elements[i], t.dtype));
  return out;
}

// ---------------------------------------------------------------------------
// Operations

/// An operation as the function spells it, before its meaning is checked.
struct OpSite {
  const ast::Call* call = nullptr;
  Span span;
  std::string name; ///< after the dialect: "add", "custom_call"
  std::vector<int> operands;
  std::vector<const ast::Expr*> positional; ///< attributes among the operands
  std::vector<ValueType> declared_ins, declared_outs;
  /// The op's attributes by name: its keywords, or for a custom call the
  /// entries of byteir_attrs.
  std::map<std::string, const ast::Expr*> attrs;
  std::map<std::string, Span> attr_names; ///< where each name is written
  Span attrs_span;
  GraphOp op = GraphOp::Constant;
};

const std::vector<std::pair<std::string_view, GraphOp>>& plain_ops() {
  static const std::vector<std::pair<std::string_view, GraphOp>> ops = [] {
    std::vector<std::pair<std::string_view, GraphOp>> v;
#define TEVAL_GRAPH_OP(e, name)                                                                    \
  if (std::string_view(name).substr(0, 7) != "byteir.")                                            \
    v.emplace_back(name, GraphOp::e);
#include "core/graph_ops.def"
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
  Elaborator(const ast::Function& fn, const std::map<std::string, InputType>& inputs)
      : fn_(fn), inputs_(inputs) {}

  core::Graph run() {
    for (size_t i = 0; i < fn_.params.size(); ++i)
      argument(i);
    bool returned = false;
    for (const ast::StmtPtr& s : fn_.body) {
      if (returned)
        throw Error(ErrorKind::Syntax, s->span, "an operation after the function's return");
      if (const auto* r = std::get_if<ast::Return>(&s->node)) {
        ret(*r, s->span);
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
      throw Error(ErrorKind::Syntax, fn_.body.empty() ? Span() : fn_.body.back()->span,
                  "function @" + fn_.name + " does not return");
    return std::move(g_);
  }

private:
  int define(const std::string& name, const ValueType& t, Span span) {
    if (names_.count(name))
      throw Error(ErrorKind::Name, span, "value " + name + " is defined twice");
    int id = static_cast<int>(g_.values.size());
    g_.values.push_back(t);
    g_.value_names.push_back(name);
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
    if (it == names_.end())
      throw Error(ErrorKind::Name, e.span, "use of undefined value " + n->id);
    return it->second;
  }

  void argument(size_t i) {
    const ast::Param& p = fn_.params[i];
    ValueType declared = tensor_type(*p.type_expr);
    std::string name = core::graph_input_name(i);
    ValueType t = declared;
    if (auto it = inputs_.find(name); it != inputs_.end()) {
      ValueType given{it->second.dtype, it->second.shape};
      if (!fits(declared, given))
        throw Error(ErrorKind::Shape, p.span,
                    "argument " + p.name + " (input " + name + ") is declared " +
                        type_string(declared) + ", but the input given is " + type_string(given));
      t = given;
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
    OpSite site = read_site(value);
    GraphNode node;
    node.op = site.op;
    node.operands = site.operands;
    node.span = site.span;
    std::vector<ValueType> results = meaning(site, node);
    std::vector<const ast::Expr*> names = result_names(target);
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
    if (site.name.empty())
      throw Error(ErrorKind::Unsupported, call->callee_span,
                  "unknown operation `" + call->callee +
                      "`; teval reads mhlo and stablehlo ops and ByteIR custom calls");
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
    } else if (const auto* several = std::get_if<ast::Tuple>(&type.node)) {
      throw Error(ErrorKind::Syntax, several->items[1]->span,
                  "one type, or a function type (operands) -> (results), after `:`");
    } else {
      ValueType t = tensor_type(type);
      site.declared_ins.assign(site.operands.size(), t);
      site.declared_outs.push_back(t);
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
    else
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
        attrs[ast::as_name(*k)->id] = v.get();
        names[ast::as_name(*k)->id] = k->span;
      }
      site.attrs_span = it->second->span;
    }
    site.attrs = std::move(attrs);
    site.attr_names = std::move(names);
    site.positional.clear();
  }

  // ---- attribute access, each error at the attribute

  const ast::Expr* find(const OpSite& site, const std::string& name, bool required) {
    auto it = site.attrs.find(name);
    if (it != site.attrs.end())
      return it->second;
    if (required)
      throw Error(ErrorKind::Type, site.attrs_span,
                  site.call->callee + " " + std::string(core::graph_op_name(site.op)) +
                      " needs the attribute `" + name + "`");
    return nullptr;
  }

  void only(const OpSite& site, std::initializer_list<std::string_view> known) {
    for (const auto& [name, value] : site.attrs)
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string list;
        for (std::string_view k : known)
          list += (list.empty() ? "" : ", ") + std::string(k);
        throw Error(ErrorKind::Type, site.attr_names.at(name),
                    "`" + name + "` is not an attribute of " +
                        std::string(core::graph_op_name(site.op)) +
                        (list.empty() ? "; it takes none" : "; it takes " + list));
      }
  }

  int64_t int_attr(const OpSite& site, const std::string& name) {
    const ast::Expr* e = find(site, name, true);
    Typed t = typed(*e);
    std::optional<int64_t> v = integer_value(*t.value);
    if (!v || (t.type && !element_type(text(*t.type))) ||
        (t.type && core::is_float(*element_type(text(*t.type)))))
      throw Error(ErrorKind::Type, e->span,
                  "`" + name + "` must be an integer, not `" + text(*e) + "`");
    return *v;
  }

  double float_attr(const OpSite& site, const std::string& name) {
    const ast::Expr* e = find(site, name, true);
    Typed t = typed(*e);
    std::optional<DType> type = t.type ? element_type(text(*t.type)) : std::nullopt;
    std::optional<double> v = float_value(*t.value);
    if (!v || (t.type && (!type || !core::is_float(*type))))
      throw Error(ErrorKind::Type, e->span,
                  "`" + name + "` must be a float, not `" + text(*e) + "`");
    return *v;
  }

  bool bool_attr(const OpSite& site, const std::string& name, bool fallback) {
    const ast::Expr* e = find(site, name, false);
    if (!e)
      return fallback;
    const ast::Name* n = ast::as_name(*e);
    if (!n || (n->id != "true" && n->id != "false"))
      throw Error(ErrorKind::Type, e->span,
                  "`" + name + "` must be true or false, not `" + text(*e) + "`");
    return n->id == "true";
  }

  /// A list of distinct axes of a tensor of rank \p rank, in increasing
  /// order.
  std::vector<int64_t> axes_attr(const OpSite& site, const std::string& name, size_t rank) {
    std::vector<int64_t> axes = ints_attr(site, name);
    for (size_t i = 0; i < axes.size(); ++i)
      if (axes[i] < 0 || axes[i] >= static_cast<int64_t>(rank) || (i && axes[i] <= axes[i - 1]))
        throw Error(ErrorKind::Range, find(site, name, true)->span,
                    "`" + name + "` must list axes in [0, " + std::to_string(rank) +
                        ") in increasing order (ByteIR's axes are non-negative: frontends "
                        "normalize negative ones)");
    if (axes.empty())
      throw Error(ErrorKind::Range, find(site, name, true)->span, "`" + name + "` lists no axis");
    return axes;
  }

  /// A scalar attribute (`1.0 : f32`, `dense<1> : tensor<i64>`, or a bare
  /// number taking \p fallback's type) as a value of its type.
  core::Scalar scalar_attr(const OpSite& site, const std::string& name, DType fallback) {
    const ast::Expr* e = find(site, name, true);
    Typed t = typed(*e);
    if (const ast::Call* c = ast::as_call(*t.value); c && c->callee == "dense" && t.type) {
      ValueType type = tensor_type(*t.type);
      core::Tensor v = dense_value(*t.value, type);
      if (v.numel() != 1)
        throw Error(ErrorKind::Shape, e->span, "`" + name + "` must be one value");
      return v.get(0);
    }
    DType type = fallback;
    if (t.type) {
      std::optional<DType> written = element_type(text(*t.type));
      if (!written)
        throw Error(ErrorKind::Type, t.type->span,
                    "`" + text(*t.type) + "` is not an element type teval has");
      type = *written;
    }
    return element_value(*t.value, type);
  }

  std::optional<std::string> string_attr(const OpSite& site, const std::string& name,
                                         bool required) {
    const ast::Expr* e = find(site, name, required);
    if (!e)
      return std::nullopt;
    const ast::StringLit* s = ast::as_string(*e);
    if (!s)
      throw Error(ErrorKind::Type, e->span,
                  "`" + name + "` must be a string, not `" + text(*e) + "`");
    return s->value;
  }

  int64_t axis_attr(const OpSite& site, const std::string& name, size_t rank) {
    int64_t axis = int_attr(site, name);
    if (axis < 0 || axis >= static_cast<int64_t>(rank))
      throw Error(ErrorKind::Range, find(site, name, true)->span,
                  "`" + name + "` is " + std::to_string(axis) + "; the operand has rank " +
                      std::to_string(rank) +
                      " and ByteIR's axes are in [0, rank) (frontends normalize negative axes)");
    return axis;
  }

  /// A list of integers: `[1, 2]`, `array<i64: 1, 2>` or `dense<[1, 2]> :
  /// tensor<2xi64>`.
  std::vector<int64_t> ints_attr(const OpSite& site, const std::string& name) {
    const ast::Expr* e = find(site, name, true);
    Typed t = typed(*e);
    std::vector<const ast::Expr*> items;
    const ast::Call* c = ast::as_call(*t.value);
    if (const auto* list = std::get_if<ast::List>(&t.value->node)) {
      for (const ast::ExprPtr& i : list->items)
        items.push_back(i.get());
    } else if (c && c->callee == "array") {
      for (size_t i = 1; i < c->args.size(); ++i)
        items.push_back(c->args[i].get());
    } else if (c && c->callee == "dense" && t.type) {
      ValueType type = tensor_type(*t.type);
      if (core::is_float(type.dtype) || type.shape.size() != 1)
        throw Error(ErrorKind::Type, e->span, "`" + name + "` must be a list of integers");
      core::Tensor v = dense_value(*t.value, type);
      std::vector<int64_t> out;
      for (int64_t i = 0; i < v.numel(); ++i)
        out.push_back(v.get(i).i);
      return out;
    } else {
      throw Error(ErrorKind::Type, e->span,
                  "`" + name + "` must be a list of integers, not `" + text(*e) + "`");
    }
    std::vector<int64_t> out;
    for (const ast::Expr* i : items) {
      std::optional<int64_t> v = integer_value(*typed(*i).value);
      if (!v)
        throw Error(ErrorKind::Type, i->span, "`" + text(*i) + "` is not an integer");
      out.push_back(*v);
    }
    return out;
  }

  /// The value of \p v when a constant node defines it, else null.
  const core::Tensor* constant_value(int v) const {
    for (const GraphNode& n : g_.nodes)
      if (n.op == GraphOp::Constant && n.results[0] == v)
        return &n.tensor_attr("value");
    return nullptr;
  }

  // ---- each op's meaning: its results' types and decoded attributes

  const ValueType& operand(const OpSite& site, size_t i) {
    return g_.values[static_cast<size_t>(site.operands[i])];
  }

  void arity(const OpSite& site, size_t n) {
    if (site.operands.size() != n)
      throw Error(ErrorKind::Shape, site.span,
                  std::string(core::graph_op_name(site.op)) + " takes " + std::to_string(n) +
                      " operand" + (n == 1 ? "" : "s") + ", not " +
                      std::to_string(site.operands.size()));
  }

  void float_operand(const OpSite& site, size_t i) {
    if (!core::is_float(operand(site, i).dtype))
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) + " takes a float tensor, not " +
                      type_string(operand(site, i)));
  }

  std::vector<ValueType> meaning(const OpSite& site, GraphNode& node) {
    switch (site.op) {
    case GraphOp::Constant: {
      arity(site, 0);
      if (site.declared_outs.size() != 1)
        throw Error(ErrorKind::Shape, site.span, "a constant has one result");
      const ast::Expr* value =
          site.positional.empty() ? find(site, "value", true) : site.positional[0];
      Typed t = typed(*value);
      ValueType type = t.type ? tensor_type(*t.type) : site.declared_outs[0];
      node.attrs["value"] = dense_value(*t.value, type);
      return {type};
    }
    case GraphOp::Add:
    case GraphOp::Subtract:
    case GraphOp::Multiply:
    case GraphOp::Divide:
    case GraphOp::Maximum:
    case GraphOp::Minimum: {
      arity(site, 2);
      only(site, {});
      const ValueType& a = operand(site, 0);
      const ValueType& b = operand(site, 1);
      if (a.dtype != b.dtype || a.shape != b.shape)
        throw Error(ErrorKind::Shape, site.span,
                    std::string(core::graph_op_name(site.op)) +
                        " takes operands of one type; they are " + type_string(a) + " and " +
                        type_string(b));
      if (a.dtype == DType::Bool && site.op != GraphOp::Maximum && site.op != GraphOp::Minimum)
        throw Error(ErrorKind::Type, site.span,
                    std::string(core::graph_op_name(site.op)) + " of i1 values is not defined");
      return {a};
    }
    case GraphOp::Negate:
    case GraphOp::Abs: {
      arity(site, 1);
      only(site, {});
      if (operand(site, 0).dtype == DType::Bool)
        throw Error(ErrorKind::Type, site.span,
                    std::string(core::graph_op_name(site.op)) + " of i1 values is not defined");
      return {operand(site, 0)};
    }
    case GraphOp::Exponential:
    case GraphOp::Log:
    case GraphOp::Tanh:
    case GraphOp::Sqrt:
    case GraphOp::Rsqrt:
    case GraphOp::Erf:
    case GraphOp::Softmax:
    case GraphOp::LogSoftmax:
    case GraphOp::Gelu: {
      arity(site, 1);
      float_operand(site, 0);
      if (site.op == GraphOp::Softmax || site.op == GraphOp::LogSoftmax) {
        only(site, {"axis"});
        node.attrs["axis"] = axis_attr(site, "axis", operand(site, 0).shape.size());
      } else if (site.op == GraphOp::Gelu) {
        only(site, {"approximate"});
        std::string approximate = *string_attr(site, "approximate", true);
        if (approximate != "none" && approximate != "erf" && approximate != "tanh")
          throw Error(ErrorKind::Type, find(site, "approximate", true)->span,
                      "approximate is \"" + approximate +
                          "\"; byteir.gelu's are \"none\" (the same as \"erf\"), \"erf\" and "
                          "\"tanh\"");
        node.attrs["approximate"] = approximate == "tanh" ? approximate : std::string("erf");
      } else {
        only(site, {});
      }
      return {operand(site, 0)};
    }
    case GraphOp::AddN: {
      only(site, {});
      if (site.operands.empty())
        throw Error(ErrorKind::Shape, site.span, "byteir.addn takes at least one operand");
      for (size_t i = 1; i < site.operands.size(); ++i)
        if (operand(site, i).dtype != operand(site, 0).dtype ||
            operand(site, i).shape != operand(site, 0).shape)
          throw Error(ErrorKind::Shape, site.span,
                      "byteir.addn takes operands of one type; they are " +
                          type_string(operand(site, 0)) + " and " + type_string(operand(site, i)));
      if (operand(site, 0).dtype == DType::Bool)
        throw Error(ErrorKind::Type, site.span, "byteir.addn of i1 values is not defined");
      return {operand(site, 0)};
    }
    case GraphOp::LayerNorm:
    case GraphOp::L2Norm: {
      bool layer = site.op == GraphOp::LayerNorm;
      arity(site, layer ? 3 : 1);
      float_operand(site, 0);
      only(site, {"axis", "epsilon", "eps_outside_sqrt"});
      const ValueType& x = operand(site, 0);
      std::vector<int64_t> axes = axes_attr(site, "axis", x.shape.size());
      if (!layer && axes.size() != 1)
        throw Error(ErrorKind::Range, find(site, "axis", true)->span,
                    "byteir.l2_norm normalizes along one axis; `axis` lists " +
                        std::to_string(axes.size()));
      node.attrs["axis"] = axes;
      node.attrs["epsilon"] = float_attr(site, "epsilon");
      node.attrs["eps_outside_sqrt"] = bool_attr(site, "eps_outside_sqrt", false);
      if (!layer)
        return {x};
      // weight and bias: the extents of the normalized axes.
      ValueType affine{x.dtype, {}};
      for (int64_t a : axes)
        affine.shape.push_back(x.shape[static_cast<size_t>(a)]);
      for (size_t i : {size_t{1}, size_t{2}})
        if (operand(site, i).dtype != affine.dtype || operand(site, i).shape != affine.shape)
          throw Error(ErrorKind::Shape, site.call->args[i]->span,
                      std::string(i == 1 ? "weight" : "bias") + " of byteir.layer_norm is " +
                          type_string(operand(site, i)) + "; over axes " +
                          core::format_index(axes) + " of " + type_string(x) + " it must be " +
                          type_string(affine));
      if (site.declared_outs.size() != 1 && site.declared_outs.size() != 3)
        throw Error(ErrorKind::Shape, site.span,
                    "byteir.layer_norm gives 1 result (output) or 3 (output, mean, "
                    "inv_std_dev), not " +
                        std::to_string(site.declared_outs.size()));
      if (site.declared_outs.size() == 1)
        return {x};
      ValueType kept = x;
      for (int64_t a : axes)
        kept.shape[static_cast<size_t>(a)] = 1;
      return {x, kept, kept};
    }
    case GraphOp::ArgMax:
    case GraphOp::ArgMin:
    case GraphOp::TopK: {
      arity(site, 1);
      const ValueType& x = operand(site, 0);
      bool top = site.op == GraphOp::TopK;
      int64_t axis = 0;
      ValueType values = x;
      if (top) {
        only(site, {"k", "axis", "sorted"});
        std::vector<int64_t> axes = axes_attr(site, "axis", x.shape.size());
        if (axes.size() != 1)
          throw Error(ErrorKind::Range, find(site, "axis", true)->span,
                      "byteir.top_k selects along one axis; `axis` lists " +
                          std::to_string(axes.size()));
        axis = axes[0];
        int64_t k = int_attr(site, "k");
        int64_t extent = x.shape[static_cast<size_t>(axis)];
        if (k < 1 || k > extent)
          throw Error(ErrorKind::Range, find(site, "k", true)->span,
                      "`k` is " + std::to_string(k) + "; it must be in [1, " +
                          std::to_string(extent) + "], the extent of axis " + std::to_string(axis));
        node.attrs["k"] = k;
        node.attrs["axis"] = axis;
        node.attrs["sorted"] = bool_attr(site, "sorted", true);
        values.shape[static_cast<size_t>(axis)] = k;
      } else {
        only(site, {"axis", "keep_dims", "select_last_index"});
        axis = axis_attr(site, "axis", x.shape.size());
        if (x.shape[static_cast<size_t>(axis)] == 0)
          throw Error(ErrorKind::Shape, find(site, "axis", true)->span,
                      std::string(core::graph_op_name(site.op)) +
                          " along an axis of extent 0: there is no index to give");
        bool keep = bool_attr(site, "keep_dims", false);
        node.attrs["axis"] = axis;
        node.attrs["keep_dims"] = keep;
        node.attrs["select_last_index"] = bool_attr(site, "select_last_index", false);
        if (keep)
          values.shape[static_cast<size_t>(axis)] = 1;
        else
          values.shape.erase(values.shape.begin() + axis);
      }
      // The indices: the integer type the results declare, wide enough.
      size_t count = site.declared_outs.size();
      if (count != 2 && (top || count != 1))
        throw Error(ErrorKind::Shape, site.span,
                    std::string(core::graph_op_name(site.op)) +
                        (top ? " gives 2 results (values, indices), not "
                             : " gives 1 result (indices) or 2 (values, indices), not ") +
                        std::to_string(count));
      ValueType indices = values;
      indices.dtype = site.declared_outs.back().dtype;
      int64_t extent = x.shape[static_cast<size_t>(axis)];
      if (core::is_float(indices.dtype) || indices.dtype == DType::Bool ||
          core::Scalar::of_int(indices.dtype, extent - 1).i != extent - 1)
        throw Error(ErrorKind::Type, site.span,
                    "the indices of " + std::string(core::graph_op_name(site.op)) +
                        " are declared " + type_string(site.declared_outs.back()) +
                        "; they must be integers that hold " + std::to_string(extent - 1));
      if (count == 1)
        return {indices};
      return {values, indices};
    }
    case GraphOp::OneHot: {
      arity(site, 1);
      only(site, {"depth", "axis", "on_value", "off_value"});
      const ValueType& in = operand(site, 0);
      if (core::is_float(in.dtype) || in.dtype == DType::Bool)
        throw Error(ErrorKind::Type, site.span,
                    "byteir.one_hot takes integer indices, not " + type_string(in));
      int64_t depth = int_attr(site, "depth");
      if (depth < 0 || depth > INT32_MAX)
        throw Error(ErrorKind::Range, find(site, "depth", true)->span,
                    "`depth` is " + std::to_string(depth) + "; it must be in [0, 2^31)");
      int64_t axis = int_attr(site, "axis");
      if (axis < 0 || axis > static_cast<int64_t>(in.shape.size()))
        throw Error(ErrorKind::Range, find(site, "axis", true)->span,
                    "`axis` is " + std::to_string(axis) +
                        "; the new dimension goes at a place in [0, " +
                        std::to_string(in.shape.size()) + "] (frontends normalize negative axes)");
      DType t = site.declared_outs.at(0).dtype;
      core::Scalar on = scalar_attr(site, "on_value", t);
      core::Scalar off = scalar_attr(site, "off_value", t);
      if (on.dtype != off.dtype)
        throw Error(ErrorKind::Type, find(site, "off_value", true)->span,
                    "on_value is " + core::to_string(on.dtype) + " but off_value " +
                        core::to_string(off.dtype) + "; they give the output's element type");
      ValueType out{on.dtype, in.shape};
      out.shape.insert(out.shape.begin() + axis, depth);
      node.attrs["depth"] = depth;
      node.attrs["axis"] = axis;
      for (auto [name, v] : {std::pair{"on_value", on}, std::pair{"off_value", off}}) {
        core::Tensor scalar(v.dtype, {});
        scalar.set(0, v);
        node.attrs[name] = scalar;
      }
      return {out};
    }
    case GraphOp::Quantize:
    case GraphOp::Dequantize: {
      arity(site, 3);
      bool quantize = site.op == GraphOp::Quantize;
      const ValueType& x = operand(site, 0);
      const ValueType& scale = operand(site, 1);
      const ValueType& zero = operand(site, 2);
      std::string op_name(core::graph_op_name(site.op));
      auto integer = [](DType t) {
        return t == DType::Int8 || t == DType::UInt8 || t == DType::Int16 || t == DType::Int32;
      };
      if (!integer(zero.dtype) || (quantize && zero.dtype == DType::Int32))
        throw Error(ErrorKind::Type, site.call->args[2]->span,
                    "the zero point of " + op_name + " is " + type_string(zero) +
                        "; it must be i8, ui8 or i16" + (quantize ? "" : " (or i32)") +
                        " (teval has no ui16)");
      DType real = quantize ? x.dtype : site.declared_outs.at(0).dtype;
      if (!core::is_float(real) || scale.dtype != real)
        throw Error(ErrorKind::Type, site.call->args[1]->span,
                    op_name + "'s scale is " + type_string(scale) + "; it must be of the " +
                        (quantize ? "input's" : "result's") + " float type" +
                        (core::is_float(real) ? ", " + core::to_string(real) : std::string()));
      if (quantize ? !core::is_float(x.dtype) : x.dtype != zero.dtype)
        throw Error(
            ErrorKind::Type, site.span,
            op_name + " takes " +
                (quantize ? "a float tensor"
                          : "a tensor of the zero point's type, " + type_string({zero.dtype, {}})) +
                ", not " + type_string(x));
      if (scale.shape != zero.shape || scale.shape.size() > 1)
        throw Error(ErrorKind::Shape, site.span,
                    op_name +
                        "'s scale and zero point must have one shape of rank 0 (per tensor) "
                        "or 1 (per channel); they are " +
                        type_string(scale) + " and " + type_string(zero));
      if (scale.shape.size() == 1) {
        only(site, {"axis"});
        int64_t axis = axis_attr(site, "axis", x.shape.size());
        if (scale.shape[0] != x.shape[static_cast<size_t>(axis)])
          throw Error(ErrorKind::Shape, site.span,
                      op_name + " per channel along axis " + std::to_string(axis) + " of " +
                          type_string(x) + " needs " +
                          std::to_string(x.shape[static_cast<size_t>(axis)]) + " scales, not " +
                          std::to_string(scale.shape[0]));
        node.attrs["axis"] = axis;
      } else {
        only(site, {"axis"});
      }
      return {ValueType{quantize ? zero.dtype : real, x.shape}};
    }
    case GraphOp::Resize: {
      arity(site, 2);
      only(site, {"target_mode", "mode", "coordinate_transformation_mode"});
      const ValueType& x = operand(site, 0);
      std::string target = *string_attr(site, "target_mode", true);
      std::string mode = *string_attr(site, "mode", true);
      std::string map = *string_attr(site, "coordinate_transformation_mode", true);
      auto one_of = [&](const std::string& name, const std::string& v,
                        std::initializer_list<std::string_view> allowed) {
        if (std::find(allowed.begin(), allowed.end(), v) != allowed.end())
          return;
        std::string list;
        for (std::string_view a : allowed)
          list += (list.empty() ? "\"" : ", \"") + std::string(a) + "\"";
        throw Error(ErrorKind::Type, find(site, name, true)->span,
                    name + " is \"" + v + "\"; byteir.resize's are " + list);
      };
      one_of("target_mode", target, {"scale", "size"});
      one_of("mode", mode, {"nearest", "linear"});
      one_of("coordinate_transformation_mode", map,
             {"asymmetric", "half_pixel", "pytorch_half_pixel", "align_corners"});
      if (mode == "linear" && !core::is_float(x.dtype))
        throw Error(ErrorKind::Type, site.span,
                    "linear byteir.resize takes a float tensor, not " + type_string(x));
      ValueType out = site.declared_outs.at(0);
      if (std::count(out.shape.begin(), out.shape.end(), kDynamic) ||
          out.shape.size() != x.shape.size())
        throw Error(ErrorKind::Shape, site.span,
                    "byteir.resize needs a static result of the input's rank " +
                        std::to_string(x.shape.size()) + ", not " + type_string(out));
      out.dtype = x.dtype;
      // The target: a constant, so that the output's shape and the scales
      // are known when the function is read.
      const core::Tensor* given = constant_value(site.operands[1]);
      ValueType t = operand(site, 1);
      bool sizes = target == "size";
      if (!given || t.shape != Shape{static_cast<int64_t>(x.shape.size())} ||
          (sizes ? t.dtype != DType::Int64 : t.dtype != DType::Float32))
        throw Error(ErrorKind::Shape, site.call->args[1]->span,
                    "the target of byteir.resize must be a constant " +
                        type_string({sizes ? DType::Int64 : DType::Float32,
                                     {static_cast<int64_t>(x.shape.size())}}) +
                        " (the " + (sizes ? "sizes" : "scales") + " of every axis), not " +
                        (given ? type_string(t) : "a computed value"));
      core::Tensor scales(DType::Float32, {static_cast<int64_t>(x.shape.size())});
      for (size_t d = 0; d < x.shape.size(); ++d) {
        int64_t in_extent = x.shape[d], out_extent = out.shape[d];
        if (in_extent == 0 && out_extent != 0)
          throw Error(ErrorKind::Shape, site.span,
                      "byteir.resize of axis " + std::to_string(d) +
                          ", which is empty, to extent " + std::to_string(out_extent) +
                          ": there is no value to resize");
        core::Scalar s;
        if (sizes) {
          if (given->get(static_cast<int64_t>(d)).i != out_extent)
            throw Error(ErrorKind::Shape, site.call->args[1]->span,
                        "size " + std::to_string(given->get(static_cast<int64_t>(d)).i) +
                            " of axis " + std::to_string(d) + " is not the result's extent " +
                            std::to_string(out_extent));
          // As ONNX computes it: float(out) / float(in); an empty axis stays
          // empty, at scale 1.
          s = in_extent == 0
                  ? core::Scalar::of_float(DType::Float32, 1)
                  : core::apply(
                        core::Op::Div,
                        std::array{core::Scalar::of_float(DType::Float32, double(out_extent)),
                                   core::Scalar::of_float(DType::Float32, double(in_extent))}
                            .data(),
                        DType::Float32, core::Overflow::Wrap);
        } else {
          s = given->get(static_cast<int64_t>(d));
          double expected = std::floor(double(in_extent) * s.f);
          if (!(s.f > 0) || !std::isfinite(s.f) || expected != double(out_extent))
            throw Error(ErrorKind::Shape, site.call->args[1]->span,
                        "scale " + core::format_scalar(s) + " of axis " + std::to_string(d) +
                            " makes floor(" + std::to_string(in_extent) +
                            " * scale), not the result's extent " + std::to_string(out_extent));
        }
        scales.set(static_cast<int64_t>(d), s);
      }
      node.attrs["scales"] = scales;
      node.attrs["mode"] = mode;
      node.attrs["coordinate_transformation_mode"] = map;
      return {out};
    }
    case GraphOp::RngUniform: {
      only(site, {});
      if (site.operands.size() != 4 && site.operands.size() != 5)
        throw Error(ErrorKind::Shape, site.span,
                    "byteir.rng_uniform takes low, high, seed, offset and optionally the shape, "
                    "not " +
                        std::to_string(site.operands.size()) + " operands");
      ValueType out = site.declared_outs.at(0);
      for (size_t i = 0; i < 4; ++i) {
        DType want = i < 2 ? out.dtype : DType::Int64;
        if (operand(site, i).dtype != want || !operand(site, i).shape.empty() ||
            (i < 2 && !core::is_float(want)))
          throw Error(
              ErrorKind::Type, site.call->args[i]->span,
              std::string(i == 0   ? "low"
                          : i == 1 ? "high"
                          : i == 2 ? "seed"
                                   : "offset") +
                  " of byteir.rng_uniform is " + type_string(operand(site, i)) + "; it must be " +
                  (i < 2 ? "a 0-d tensor of the result's float type" : std::string("tensor<i64>")));
      }
      if (std::count(out.shape.begin(), out.shape.end(), kDynamic)) {
        const core::Tensor* shape =
            site.operands.size() == 5 ? constant_value(site.operands[4]) : nullptr;
        if (!shape || shape->dtype() != DType::Int64 ||
            shape->shape() != Shape{static_cast<int64_t>(out.shape.size())})
          throw Error(ErrorKind::Shape, site.span,
                      "byteir.rng_uniform of type " + type_string(out) +
                          " needs its shape as a constant tensor<" +
                          std::to_string(out.shape.size()) + "xi64> operand");
        for (size_t d = 0; d < out.shape.size(); ++d)
          if (out.shape[d] == kDynamic) {
            out.shape[d] = shape->get(static_cast<int64_t>(d)).i;
            if (out.shape[d] < 0 || out.shape[d] > INT32_MAX)
              throw Error(ErrorKind::Range, site.call->args[4]->span,
                          "extent " + std::to_string(out.shape[d]) +
                              " of the shape is not one teval has");
          }
      }
      return {out};
    }
    case GraphOp::Convert: {
      arity(site, 1);
      only(site, {});
      ValueType t = operand(site, 0);
      t.dtype = site.declared_outs.at(0).dtype;
      return {t};
    }
    case GraphOp::Reshape: {
      arity(site, 1);
      only(site, {});
      ValueType t = site.declared_outs.at(0);
      int64_t known = 1;
      int dynamic = 0;
      for (int64_t d : t.shape)
        d == kDynamic ? ++dynamic : known *= d;
      int64_t n = core::checked_numel(operand(site, 0).shape).value_or(0);
      if (dynamic > 1)
        throw Error(ErrorKind::Shape, site.span,
                    "a reshape to more than one `?` dimension; teval needs their extents");
      for (int64_t& d : t.shape)
        if (d == kDynamic)
          d = known ? n / known : 0;
      if (core::checked_numel(t.shape).value_or(-1) != n)
        throw Error(ErrorKind::Shape, site.span,
                    "reshape of " + type_string(operand(site, 0)) + " (" + std::to_string(n) +
                        " elements) to " + type_string(site.declared_outs[0]));
      return {t};
    }
    case GraphOp::BroadcastInDim: {
      arity(site, 1);
      bool stable = site.attrs.count("dims");
      only(site, {stable ? "dims" : "broadcast_dimensions"});
      std::vector<int64_t> dims = ints_attr(site, stable ? "dims" : "broadcast_dimensions");
      ValueType t = site.declared_outs.at(0);
      const ValueType& in = operand(site, 0);
      if (std::count(t.shape.begin(), t.shape.end(), kDynamic))
        throw Error(ErrorKind::Shape, site.span, "broadcast_in_dim needs a static result type");
      if (dims.size() != in.shape.size())
        throw Error(ErrorKind::Shape, site.span,
                    "broadcast_in_dim maps " + std::to_string(dims.size()) +
                        " dimensions, but the operand has rank " + std::to_string(in.shape.size()));
      for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] < 0 || dims[i] >= static_cast<int64_t>(t.shape.size()) ||
            (i && dims[i] <= dims[i - 1]))
          throw Error(ErrorKind::Shape, site.span,
                      "broadcast_in_dim's dimensions must rise within the result's rank " +
                          std::to_string(t.shape.size()));
        int64_t extent = t.shape[static_cast<size_t>(dims[i])];
        if (in.shape[i] != 1 && in.shape[i] != extent)
          throw Error(ErrorKind::Shape, site.span,
                      "operand dimension " + std::to_string(i) + " (" +
                          std::to_string(in.shape[i]) + ") broadcasts to neither 1 nor " +
                          std::to_string(extent));
      }
      t.dtype = in.dtype;
      node.attrs["dims"] = dims;
      return {t};
    }
    }
    TEVAL_UNREACHABLE("graph op without a meaning");
  }

  const ast::Function& fn_;
  const std::map<std::string, InputType>& inputs_;
  core::Graph g_;
  std::map<std::string, int> names_;
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
  return Elaborator(find_function(program, entry), inputs).run();
}

} // namespace teval::parser
