// Reading an op's attributes by name (see mlir_attributes.h).
#include "parser/mlir/mlir_attributes.h"

#include "core/error.h"
#include "parser/mlir/mlir_values.h"

#include <algorithm>
#include <cctype>

namespace teval::parser::mlir_detail {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::ValueType;

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
    throw Error(ErrorKind::Type, e->span, "`" + name + "` must be a float, not `" + text(*e) + "`");
  return *v;
}

std::optional<std::string> enum_word(const OpSite& site, const std::string& name, size_t at) {
  const ast::Expr* e = find(site, name, false);
  if (!e && at < site.positional.size())
    e = site.positional[at];
  if (!e)
    return std::nullopt;
  const ast::Name* n = ast::as_name(*e);
  std::string word = n ? n->id : "";
  if (word.starts_with("#") && word.ends_with(">")) {
    size_t from = word.find_last_of(" <", word.size() - 2);
    word = word.substr(from + 1, word.size() - from - 2);
  }
  if (word.empty())
    throw Error(ErrorKind::Type, e->span, "`" + name + "` must be a word such as GT");
  return word;
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

std::optional<std::string> string_attr(const OpSite& site, const std::string& name, bool required) {
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

std::optional<std::map<std::string, std::vector<int64_t>>>
dialect_fields(std::string_view written) {
  std::string text;
  for (char c : written)
    if (!std::isspace(static_cast<unsigned char>(c)))
      text += c;
  if (!text.empty() && text[0] == '#') {
    size_t open = text.find('<');
    if (open == std::string::npos || text.back() != '>')
      return std::nullopt;
    text = text.substr(open + 1, text.size() - open - 2);
  }
  // One integer of at most 18 digits, a sign allowed.
  auto number = [](const std::string& s) -> std::optional<int64_t> {
    size_t digits = s.size() - (!s.empty() && s[0] == '-');
    if (digits == 0 || digits > 18 ||
        !std::all_of(s.end() - static_cast<std::ptrdiff_t>(digits), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return std::nullopt;
    return std::stoll(s);
  };
  std::map<std::string, std::vector<int64_t>> fields;
  for (size_t at = 0; at < text.size();) {
    size_t eq = text.find('=', at);
    if (eq == std::string::npos || eq == at)
      return std::nullopt;
    std::string key = text.substr(at, eq - at);
    if (fields.count(key))
      return std::nullopt;
    std::vector<int64_t>& values = fields[key];
    size_t end = eq + 1;
    if (end < text.size() && text[end] == '[') {
      size_t close = text.find(']', end);
      if (close == std::string::npos)
        return std::nullopt;
      std::string items = text.substr(end + 1, close - end - 1);
      for (size_t p = 0; p < items.size();) {
        size_t comma = std::min(items.find(',', p), items.size());
        std::optional<int64_t> v = number(items.substr(p, comma - p));
        if (!v)
          return std::nullopt;
        values.push_back(*v);
        p = comma + 1;
      }
      end = close + 1;
    } else {
      size_t comma = std::min(text.find(',', end), text.size());
      std::optional<int64_t> v = number(text.substr(end, comma - end));
      if (!v)
        return std::nullopt;
      values.push_back(*v);
      end = comma;
    }
    if (end < text.size() && text[end] != ',')
      return std::nullopt;
    at = end + 1;
  }
  return fields;
}

// The integers of a window attribute, flattened: `[1, 2]`, `[[0, 0], [1,
// 1]]`, `array<i64: 1, 2>`, `dense<0> : tensor<2x2xi64>`, and for the
// reversal `[false, true]`, `array<i1: false, true>`, `dense<false> :
// tensor<2xi1>` (as 0 and 1).
std::vector<int64_t> flat_ints(const ast::Expr& e, const std::string& name) {
  Typed t = typed(e);
  auto fail = [&]() -> Error {
    return Error(ErrorKind::Type, e.span,
                 "`" + name + "` must be a list of integers (or of booleans), not `" + text(e) +
                     "`");
  };
  const ast::Call* c = ast::as_call(*t.value);
  std::vector<int64_t> out;
  if (c && c->callee == "dense" && t.type) {
    core::ValueType type = tensor_type(*t.type);
    if (core::is_float(type.dtype))
      throw fail();
    core::Tensor v = dense_value(*t.value, type);
    for (int64_t i = 0; i < v.numel(); ++i)
      out.push_back(v.get(i).i);
    return out;
  }
  std::vector<const ast::Expr*> items;
  if (const auto* list = std::get_if<ast::List>(&t.value->node)) {
    for (const ast::ExprPtr& i : list->items)
      items.push_back(i.get());
  } else if (c && c->callee == "array") {
    for (size_t i = 1; i < c->args.size(); ++i)
      items.push_back(c->args[i].get());
  } else {
    throw fail();
  }
  for (const ast::Expr* item : items) {
    const ast::Expr& v = *typed(*item).value;
    if (std::holds_alternative<ast::List>(v.node)) {
      for (int64_t x : flat_ints(v, name))
        out.push_back(x);
    } else if (const ast::Name* n = ast::as_name(v); n && (n->id == "true" || n->id == "false")) {
      out.push_back(n->id == "true");
    } else if (std::optional<int64_t> x = integer_value(v)) {
      out.push_back(*x);
    } else {
      throw fail();
    }
  }
  return out;
}

} // namespace teval::parser::mlir_detail
