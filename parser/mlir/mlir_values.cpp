// Types and attribute values of MLIR text (see mlir_values.h).
#include "parser/mlir/mlir_values.h"

#include "core/error.h"

#include <cstring>

namespace teval::parser::mlir_detail {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::Shape;
using core::Span;
using core::ValueType;

namespace {

// A number literal, a sign allowed: its magnitude's node and sign.
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

/// A float of \p t from its bit pattern `0x7FC00000` (MLIR's spelling of
/// NaN and infinities in dense attributes).
core::Scalar float_from_bits(DType t, uint64_t bits, Span span) {
  int width = core::bit_width(t);
  if (width < 64 && bits >> width)
    throw Error(ErrorKind::Range, span,
                "bit pattern does not fit the " + std::to_string(width) + " bits of " +
                    core::to_string(t));
  core::Tensor one(t, {});
  std::memcpy(one.bytes().data(), &bits, static_cast<size_t>(core::size_bytes(t)));
  return one.get(0);
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

} // namespace

std::optional<DType> element_type(std::string_view name) {
  static const std::pair<std::string_view, DType> kTypes[] = {
      {"i1", DType::Bool},
      {"i8", DType::Int8},
      {"i16", DType::Int16},
      {"i32", DType::Int32},
      {"i64", DType::Int64},
      {"ui8", DType::UInt8},
      {"f16", DType::Float16},
      {"bf16", DType::BFloat16},
      {"f32", DType::Float32},
      {"f64", DType::Float64},
      {"ui16", DType::UInt16},
      {"ui32", DType::UInt32},
      {"ui64", DType::UInt64},
      {"i2", DType::Int2},
      {"i4", DType::Int4},
      {"ui2", DType::UInt2},
      {"ui4", DType::UInt4},
      {"f8E4M3FN", DType::Float8E4M3FN},
      {"f8E5M2", DType::Float8E5M2},
      {"f8E4M3", DType::Float8E4M3},
      {"f8E3M4", DType::Float8E3M4},
      {"f8E4M3FNUZ", DType::Float8E4M3FNUZ},
      {"f8E5M2FNUZ", DType::Float8E5M2FNUZ},
      {"f8E4M3B11FNUZ", DType::Float8E4M3B11FNUZ},
      {"f6E2M3FN", DType::Float6E2M3FN},
      {"f6E3M2FN", DType::Float6E3M2FN},
      {"f4E2M1FN", DType::Float4E2M1FN},
      {"f8E8M0FNU", DType::Float8E8M0FNU},
      {"complex<f32>", DType::Complex64},
      {"complex<f64>", DType::Complex128},
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
  if (const ast::Name* n = ast::as_name(e);
      n && (n->id == "!stablehlo.token" || n->id == "!mhlo.token"))
    return ValueType{DType::Bool, {0}, nullptr, true};
  const ast::Call* c = ast::as_call(e);
  if (!c || c->callee != "tensor")
    throw Error(ErrorKind::Unsupported, e.span,
                "`" + text(e) + "` is not a tensor type; teval reads tensor<...> values only");
  ValueType t;
  const ast::Name* element = ast::as_name(*c->args.back());
  std::optional<DType> dtype = element ? element_type(element->id) : std::nullopt;
  if (element && element->id.starts_with("!quant.")) {
    t.quant = quantized_element(element->id, c->args.back()->span);
    dtype = t.quant->storage;
  }
  if (!dtype)
    throw Error(
        ErrorKind::Unsupported, c->args.back()->span,
        "element type `" + text(*c->args.back()) +
            "` is not one teval has; it reads i1, i2, i4, i8, i16, i32, i64, ui2, ui4, ui8, ui16, "
            "ui32, ui64, f4E2M1FN, f6E2M3FN, f6E3M2FN, f8E3M4, f8E4M3, f8E4M3FN, f8E4M3FNUZ, "
            "f8E4M3B11FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f16, bf16, f32, f64, complex<f32> and "
            "complex<f64>");
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
  if (t.quant && t.quant->axis) { // (C12), (C13)
    const int64_t axis = *t.quant->axis;
    if (axis >= static_cast<int64_t>(t.shape.size()) ||
        (t.shape[static_cast<size_t>(axis)] != kDynamic &&
         t.shape[static_cast<size_t>(axis)] != static_cast<int64_t>(t.quant->scales.size())))
      throw Error(ErrorKind::Shape, e.span,
                  "`" + text(e) + "`: quantization_dimension " + std::to_string(axis) +
                      " must be a dimension of the tensor, of one index per scale (" +
                      std::to_string(t.quant->scales.size()) + ")");
  }
  return t;
}

std::string type_string(const ValueType& t) {
  if (t.token)
    return "!stablehlo.token";
  std::string s = "tensor<";
  for (int64_t d : t.shape)
    s += (d == kDynamic ? std::string("?") : std::to_string(d)) + "x";
  return s + std::string(core::to_mlir({t.dtype, {}, t.quant})).substr(7);
}

/// The declared type \p declared admits \p actual: same dtype and rank,
/// equal extents where \p declared is static.
bool fits(const ValueType& declared, const ValueType& actual) {
  // An int8 or uint8 array holds values of i2, i4, ui2 and ui4 (checked
  // when the function runs: ops::evaluate).
  bool dtype = declared.dtype == actual.dtype || core::carrier(declared.dtype) == actual.dtype;
  if (!core::same_quantization(declared, actual) || declared.token != actual.token)
    return false;
  if (!dtype || declared.shape.size() != actual.shape.size())
    return false;
  for (size_t i = 0; i < declared.shape.size(); ++i)
    if (declared.shape[i] != kDynamic && declared.shape[i] != actual.shape[i])
      return false;
  return true;
}

Typed typed(const ast::Expr& e) {
  const ast::Call* c = ast::as_call(e);
  if (c && c->callee == ":" && c->args.size() == 2)
    return {c->args[0].get(), c->args[1].get()};
  return {&e};
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

/// One element of a dense attribute as a value of \p t.
core::Scalar element_value(const ast::Expr& e, DType t) {
  if (core::is_complex(t)) { // `(re, im)`
    const auto* pair = std::get_if<ast::Tuple>(&e.node);
    if (!pair)
      throw Error(ErrorKind::Type, e.span,
                  "`" + text(e) + "` is not a value of " + core::mlir_element(t) +
                      ", written (real part, imaginary part)");
    const DType part = core::complex_part(t);
    return core::Scalar::of_complex(t, element_value(*pair->items[0], part).f,
                                    element_value(*pair->items[1], part).f);
  }
  if (std::get_if<ast::Tuple>(&e.node))
    throw Error(ErrorKind::Type, e.span,
                "`" + text(e) + "` is a complex number, not a value of " + core::to_string(t));
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
  if (t == DType::UInt64) { // up to 2^64 - 1, past int64
    const auto* i = std::get_if<ast::IntLit>(&n->literal->node);
    if (!i)
      throw Error(ErrorKind::Type, e.span, "`" + text(e) + "` is not a value of uint64");
    if (n->negative && i->value != 0)
      throw Error(ErrorKind::Range, e.span, text(e) + " is not a value of uint64 (it would wrap)");
    return core::Scalar::of_int(t, static_cast<int64_t>(i->value));
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

} // namespace teval::parser::mlir_detail
