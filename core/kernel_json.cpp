// The Kernel IR as JSON (see kernel_json.h and docs/KERNEL_JSON.md).
#include "core/kernel_json.h"

#include "core/error.h"
#include "core/json.h"
#include "core/numeric.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace teval::core {

std::string_view json_name(Op op) {
  switch (op) {
  case Op::Neg:
    return "neg";
  case Op::Abs:
    return "abs";
  case Op::Not:
    return "not";
  case Op::Exp:
    return "exp";
  case Op::Log:
    return "log";
  case Op::Sqrt:
    return "sqrt";
  case Op::Rsqrt:
    return "rsqrt";
  case Op::Sin:
    return "sin";
  case Op::Cos:
    return "cos";
  case Op::Tan:
    return "tan";
  case Op::Asin:
    return "asin";
  case Op::Acos:
    return "acos";
  case Op::Atan:
    return "atan";
  case Op::Sinh:
    return "sinh";
  case Op::Cosh:
    return "cosh";
  case Op::Tanh:
    return "tanh";
  case Op::Erf:
    return "erf";
  case Op::Erfc:
    return "erfc";
  case Op::Expm1:
    return "expm1";
  case Op::Log1p:
    return "log1p";
  case Op::Cbrt:
    return "cbrt";
  case Op::Asinh:
    return "asinh";
  case Op::Acosh:
    return "acosh";
  case Op::Atanh:
    return "atanh";
  case Op::NormCdf:
    return "normcdf";
  case Op::Sigmoid:
    return "sigmoid";
  case Op::Frac:
    return "frac";
  case Op::RFloor:
    return "rfloor";
  case Op::RCeil:
    return "rceil";
  case Op::Floor:
    return "floor";
  case Op::Ceil:
    return "ceil";
  case Op::Add:
    return "add";
  case Op::Sub:
    return "sub";
  case Op::Mul:
    return "mul";
  case Op::Div:
    return "div";
  case Op::Mod:
    return "mod";
  case Op::ExactDiv:
    return "exactdiv";
  case Op::Max:
    return "max";
  case Op::Min:
    return "min";
  case Op::Pow:
    return "pow";
  case Op::Atan2:
    return "atan2";
  case Op::Shl:
    return "shl";
  case Op::Shr:
    return "shr";
  case Op::Lt:
    return "lt";
  case Op::Le:
    return "le";
  case Op::Gt:
    return "gt";
  case Op::Ge:
    return "ge";
  case Op::Eq:
    return "eq";
  case Op::Ne:
    return "ne";
  case Op::Same:
    return "same";
  case Op::And:
    return "and";
  case Op::Or:
    return "or";
  }
  TEVAL_UNREACHABLE("unknown operator");
}

namespace {

// A value as JSON: integers as numbers; floats as the shortest decimal
// that reads back as the same double (which is the dtype's value exactly),
// or "nan", "inf", "-inf"; and for floats the dtype's bits in hex.
std::string json_value(const Scalar& v) {
  if (!is_float(v.dtype))
    return std::to_string(v.i);
  if (std::isnan(v.f))
    return "\"nan\"";
  if (std::isinf(v.f))
    return v.f > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.f);
  std::string text(buf, end);
  // A JSON number needs a digit before any exponent; to_chars gives
  // "1e+20", which is one, and "-0" for negative zero, which reads back as
  // an integer in some parsers: keep it a float.
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

std::string json_bits(const Scalar& v) {
  uint64_t bits = 0;
  int digits = 0;
  switch (v.dtype) {
  case DType::Float16:
    bits = float16_bits(v.f), digits = 4;
    break;
  case DType::BFloat16:
    bits = bfloat16_bits(v.f), digits = 4;
    break;
  case DType::Float32: {
    float f = static_cast<float>(v.f);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    bits = b, digits = 8;
    break;
  }
  default:
    std::memcpy(&bits, &v.f, 8);
    digits = 16;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "\"0x%0*llx\"", digits, static_cast<unsigned long long>(bits));
  return buf;
}

std::string constant(const Scalar& v) {
  std::string out = "{\"dtype\": " + json_string(name(v.dtype)) + ", \"value\": " + json_value(v);
  if (is_float(v.dtype))
    out += ", \"bits\": " + json_bits(v);
  return out + "}";
}

std::string expr(const Expr& e);

std::string list(const std::vector<Expr>& es) {
  std::string out = "[";
  for (size_t i = 0; i < es.size(); ++i)
    out += (i ? ", " : "") + expr(es[i]);
  return out + "]";
}

std::string expr(const Expr& e) {
  std::string out = "{\"dtype\": " + json_string(name(e->dtype)) + ", ";
  if (const auto* c = std::get_if<Const>(&e->node)) {
    out += "\"kind\": \"const\", \"value\": " + json_value(c->value);
    if (is_float(c->value.dtype))
      out += ", \"bits\": " + json_bits(c->value);
  } else if (const auto* v = std::get_if<VarRef>(&e->node)) {
    out += "\"kind\": \"var\", \"var\": " + std::to_string(v->var);
  } else if (const auto* l = std::get_if<Load>(&e->node)) {
    out += "\"kind\": \"load\", \"tensor\": " + std::to_string(l->tensor) +
           ", \"index\": " + list(l->index);
  } else if (const auto* a = std::get_if<Apply>(&e->node)) {
    out += "\"kind\": \"apply\", \"op\": " + json_string(json_name(a->op)) +
           ", \"args\": " + list(a->args);
    // Integer arithmetic wraps, or in index arithmetic is an error.
    if (is_integer(e->dtype))
      out += std::string(", \"overflow\": ") +
             (a->overflow == Overflow::Trap ? "\"error\"" : "\"wrap\"");
  } else if (const auto* c = std::get_if<Cast>(&e->node)) {
    out += "\"kind\": \"cast\", \"from\": " + json_string(name(c->value->dtype)) +
           ", \"value\": " + expr(c->value);
  } else {
    const auto& s = std::get<Select>(e->node);
    out += "\"kind\": \"select\", \"cond\": " + expr(s.cond) + ", \"then\": " + expr(s.then) +
           ", \"else\": " + expr(s.otherwise);
  }
  return out + "}";
}

std::string source(const Span& span) {
  if (!span.valid())
    return "null";
  SourceFile::Location at = span.file->location(span.begin);
  return "{\"line\": " + std::to_string(at.line) + ", \"column\": " + std::to_string(at.column) +
         "}";
}

std::string statement(const Statement& s) {
  std::string out = "    {\"target\": " + std::to_string(s.target);
  out += ", \"aggregation\": " + json_string(spelling(s.aggregation));
  out += ", \"start\": " + std::string(s.start == Start::Init ? "\"init\"" : "\"first_value\"");
  out += ", \"init_from\": " + (s.init_from ? std::to_string(*s.init_from) : std::string("null"));
  out += ", \"init\": " + (s.init_from ? std::string("null") : constant(s.init));
  out += ",\n     \"vars\": [";
  for (size_t v = 0; v < s.vars.size(); ++v) {
    const IndexVar& x = s.vars[v];
    out += std::string(v ? ", " : "") + "{\"name\": " + json_string(x.name) +
           ", \"begin\": " + std::to_string(x.begin) + ", \"end\": " + std::to_string(x.end) +
           ", \"reduce\": " + (x.reduce ? "true" : "false") +
           ", \"dtype\": " + json_string(name(x.dtype)) + "}";
  }
  out += "],\n     \"out_index\": " + list(s.out_index);
  out += ",\n     \"value\": " + expr(s.value);
  out += ",\n     \"constraints\": [";
  for (size_t c = 0; c < s.constraints.size(); ++c)
    out += std::string(c ? ", " : "") + "{\"expr\": " + expr(s.constraints[c].expr) +
           ", \"bound\": " + std::to_string(s.constraints[c].bound) + "}";
  out += "],\n     \"out_of_range\": " +
         std::string(s.out_of_range == OutOfRange::Error ? "\"error\"" : "\"skip\"");
  out += ", \"write_conflict\": " +
         std::string(s.conflict == WriteConflict::Error ? "\"error\"" : "\"error_if_different\"");
  out += ", \"source\": " + source(s.span) + "}";
  return out;
}

} // namespace

std::string kernel_json(const Kernel& k, const std::map<std::string, Tensor>& constants) {
  std::string out =
      "{\"schema\": \"teval-kernel\", \"version\": " + std::to_string(kKernelJsonVersion) +
      ",\n \"tensors\": [\n";
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    const TensorDecl& d = k.tensors[t];
    out += "    {\"name\": " + json_string(d.name) + ", \"dtype\": " + json_string(name(d.dtype)) +
           ", \"shape\": [";
    for (size_t i = 0; i < d.shape.size(); ++i)
      out += (i ? ", " : "") + std::to_string(d.shape[i]);
    out += "], \"role\": \"" + std::string(spelling(d.role)) + "\"";
    if (auto c = constants.find(d.name); c != constants.end() && d.role == TensorRole::Input) {
      out += ", \"constant\": [";
      for (int64_t i = 0; i < c->second.numel(); ++i)
        out += (i ? ", " : "") + json_value(c->second.get(i));
      out += "]";
    }
    out += std::string("}") + (t + 1 < k.tensors.size() ? ",\n" : "\n");
  }
  out += " ],\n \"statements\": [\n";
  for (size_t s = 0; s < k.statements.size(); ++s)
    out += statement(k.statements[s]) + (s + 1 < k.statements.size() ? ",\n" : "\n");
  out += " ],\n \"outputs\": [";
  for (size_t o = 0; o < k.outputs.size(); ++o)
    out += (o ? ", " : "") + std::to_string(k.outputs[o]);
  return out + "]}\n";
}

} // namespace teval::core
