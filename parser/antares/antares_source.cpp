// Reading Antares sources: bare programs and the COMPUTE_V1 wrapper.
#include "parser/antares/antares_source.h"

#include "core/error.h"
#include "parser/python_grammar.h"
#include "parser/text.h"

#include <cctype>
#include <map>
#include <unordered_map>
#include <variant>

namespace teval::parser {

namespace {

using core::Error;
using core::ErrorKind;
using core::Span;

// A value of the preamble's small Python subset.
struct Value;
using ValueList = std::vector<Value>;
// Keys and values in order, as two lists: a list of pairs of a type still
// being defined is not portable (libc++ and clang reject it).
struct ValueDict {
  std::vector<Value> keys;
  std::vector<Value> values;
};
struct Value {
  std::variant<int64_t, MappedText, ValueList, ValueDict> v;
  Span span;

  const int64_t* as_int() const { return std::get_if<int64_t>(&v); }
  const MappedText* as_string() const { return std::get_if<MappedText>(&v); }
  const ValueList* as_list() const { return std::get_if<ValueList>(&v); }
  const ValueDict* as_dict() const { return std::get_if<ValueDict>(&v); }
};

std::string type_name(const Value& v) {
  if (v.as_int())
    return "an integer";
  if (v.as_string())
    return "a string";
  if (v.as_list())
    return "a list";
  return "a dict";
}

class Preamble {
public:
  explicit Preamble(const core::SourceFile& file) : file_(file) {}

  AntaresSource run(std::string_view text, uint32_t base) {
    std::string lines = logical_lines(text);
    TextOrigin origin(&file_, base);
    ast::Program program = parse_python(lines, origin);
    std::optional<AntaresSource> result;
    Span call_span;
    for (const ast::StmtPtr& s : program.statements) {
      if (const auto* a = std::get_if<ast::Assign>(&s->node)) {
        assign(*a->target, eval(*a->value));
        continue;
      }
      const auto& e = *std::get<ast::ExprStmt>(s->node).expr;
      const auto* call = std::get_if<ast::Call>(&e.node);
      if (!call || call->method || call->callee != "einstein_v2")
        throw Error(ErrorKind::Unsupported, e.span,
                    "a COMPUTE_V1 preamble holds assignments and one einstein_v2(...) call");
      if (result)
        throw Error(ErrorKind::Unsupported, e.span, "more than one einstein_v2(...) call")
            .note(call_span, "the first call is here");
      call_span = e.span;
      result = einstein_v2(*call, e.span);
    }
    if (!result)
      throw Error(ErrorKind::Syntax, Span{&file_, base, base},
                  "the COMPUTE_V1 text has no einstein_v2(...) call");
    return std::move(*result);
  }

private:
  void assign(const ast::Expr& target, Value value) {
    if (const auto* name = std::get_if<ast::Name>(&target.node)) {
      env_[name->id] = std::move(value);
      return;
    }
    const auto* tuple = std::get_if<ast::Tuple>(&target.node);
    if (!tuple)
      throw Error(ErrorKind::Unsupported, target.span,
                  "only names and tuples of names can be assigned");
    const ValueList* values = value.as_list();
    if (!values || values->size() != tuple->items.size())
      throw Error(ErrorKind::Shape, value.span,
                  "cannot unpack " + type_name(value) + " into " +
                      std::to_string(tuple->items.size()) + " names");
    for (size_t i = 0; i < values->size(); ++i)
      assign(*tuple->items[i], (*values)[i]);
  }

  int64_t expect_int(const Value& v, const char* what) {
    if (const int64_t* i = v.as_int())
      return *i;
    throw Error(ErrorKind::Type, v.span,
                std::string(what) + " must be an integer, not " + type_name(v));
  }

  Value eval(const ast::Expr& e) {
    return std::visit([&](const auto& n) { return eval_node(e, n); }, e.node);
  }

  Value eval_node(const ast::Expr& e, const ast::Name& n) {
    auto it = env_.find(n.id);
    if (it == env_.end())
      throw Error(ErrorKind::Name, e.span, "`" + n.id + "` is not defined");
    Value v = it->second;
    v.span = e.span;
    return v;
  }
  Value eval_node(const ast::Expr& e, const ast::IntLit& n) {
    if (n.value > static_cast<uint64_t>(INT64_MAX))
      throw Error(ErrorKind::Range, e.span, "integer literal does not fit in 64 bits");
    return {static_cast<int64_t>(n.value), e.span};
  }
  [[noreturn]] Value eval_node(const ast::Expr& e, const ast::FloatLit&) {
    throw Error(ErrorKind::Unsupported, e.span,
                "the preamble computes with integers only; write the float inside the "
                "einstein_v2 program");
  }
  Value eval_node(const ast::Expr& e, const ast::StringLit&) {
    DecodedString d = decode_string_literals(e.span.text(), e.span.begin, &file_);
    if (!d.formatted)
      return {std::move(d.value), e.span};
    return {interpolate(d.value), e.span};
  }
  Value eval_node(const ast::Expr& e, const ast::Unary& n) {
    int64_t v = expect_int(eval(*n.operand), "an operand of unary minus");
    switch (n.op) {
    case ast::UnaryOp::Plus:
      return {v, e.span};
    case ast::UnaryOp::Neg:
      if (v == INT64_MIN)
        break;
      return {-v, e.span};
    case ast::UnaryOp::Invert:
      return {~v, e.span};
    case ast::UnaryOp::Not:
      break;
    }
    throw Error(ErrorKind::Arithmetic, e.span, "integer overflow in the preamble");
  }
  Value eval_node(const ast::Expr& e, const ast::Binary& n) {
    Value lhs = eval(*n.lhs);
    Value rhs = eval(*n.rhs);
    if (n.op == ast::BinaryOp::Add && lhs.as_string() && rhs.as_string()) {
      MappedText joined = *lhs.as_string();
      joined.append(*rhs.as_string());
      return {std::move(joined), e.span};
    }
    int64_t a = expect_int(lhs, "an operand");
    int64_t b = expect_int(rhs, "an operand");
    int64_t r = 0;
    bool overflow = false;
    switch (n.op) {
    case ast::BinaryOp::Add:
      overflow = __builtin_add_overflow(a, b, &r);
      break;
    case ast::BinaryOp::Sub:
      overflow = __builtin_sub_overflow(a, b, &r);
      break;
    case ast::BinaryOp::Mul:
      overflow = __builtin_mul_overflow(a, b, &r);
      break;
    case ast::BinaryOp::FloorDiv:
    case ast::BinaryOp::Mod: {
      if (b == 0)
        throw Error(ErrorKind::Arithmetic, n.op_span, "integer division by zero");
      if (a == INT64_MIN && b == -1) {
        overflow = n.op == ast::BinaryOp::FloorDiv;
        r = 0;
        break;
      }
      int64_t q = a / b, m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) { // Python floors
        q -= 1;
        m += b;
      }
      r = n.op == ast::BinaryOp::FloorDiv ? q : m;
      break;
    }
    case ast::BinaryOp::Div:
      throw Error(ErrorKind::Unsupported, n.op_span,
                  "`/` gives a float in Python; use `//` for integer division");
    default:
      throw Error(ErrorKind::Unsupported, n.op_span,
                  "operator `" + std::string(spelling(n.op)) +
                      "` is not supported in a COMPUTE_V1 preamble (use + - * // %)");
    }
    if (overflow)
      throw Error(ErrorKind::Arithmetic, e.span, "integer overflow in the preamble");
    return {r, e.span};
  }
  [[noreturn]] Value eval_node(const ast::Expr& e, const ast::Subscript&) {
    throw Error(ErrorKind::Unsupported, e.span, "subscripts are not supported in the preamble");
  }
  [[noreturn]] Value eval_node(const ast::Expr& e, const ast::Call& n) {
    throw Error(ErrorKind::Unsupported, n.callee_span.valid() ? n.callee_span : e.span,
                "calls other than einstein_v2(...) are not supported in the preamble");
  }
  Value eval_node(const ast::Expr& e, const ast::List& n) { return {items(n.items), e.span}; }
  Value eval_node(const ast::Expr& e, const ast::Tuple& n) { return {items(n.items), e.span}; }
  Value eval_node(const ast::Expr& e, const ast::Dict& n) {
    ValueDict d;
    for (const auto& [k, v] : n.items) {
      d.keys.push_back(eval(*k));
      d.values.push_back(eval(*v));
    }
    return {std::move(d), e.span};
  }

  ValueList items(const std::vector<ast::ExprPtr>& es) {
    ValueList out;
    for (const ast::ExprPtr& x : es)
      out.push_back(eval(*x));
    return out;
  }

  // Expands the {expr} fields of an f-string; {{ and }} are braces.
  MappedText interpolate(const MappedText& s) {
    MappedText out;
    size_t i = 0;
    const std::string& t = s.text;
    while (i < t.size()) {
      char c = t[i];
      if ((c == '{' || c == '}') && i + 1 < t.size() && t[i + 1] == c) {
        out.append(c, {s.origin[i].begin, s.origin[i + 1].end});
        i += 2;
        continue;
      }
      if (c == '}')
        throw Error(ErrorKind::Syntax, Span{&file_, s.origin[i].begin, s.origin[i].end},
                    "single `}` in an f-string; write `}}`");
      if (c != '{') {
        out.append(c, s.origin[i]);
        ++i;
        continue;
      }
      size_t close = t.find('}', i + 1);
      if (close == std::string::npos)
        throw Error(ErrorKind::Syntax, Span{&file_, s.origin[i].begin, s.origin[i].end},
                    "unterminated `{` field in an f-string");
      MappedText field = s.slice(i + 1, close);
      CharOrigin whole{s.origin[i].begin, s.origin[close].end};
      if (field.text.find_first_of(":!") != std::string::npos)
        throw Error(ErrorKind::Unsupported, Span{&file_, whole.begin, whole.end},
                    "format specs and conversions in f-string fields are not supported");
      ast::ExprPtr expr = parse_python_expression(field.text, TextOrigin(&file_, &field));
      Value v = eval(*expr);
      std::string text;
      if (const int64_t* n = v.as_int())
        text = std::to_string(*n);
      else if (const MappedText* str = v.as_string())
        text = str->text;
      else
        throw Error(ErrorKind::Type, v.span,
                    "an f-string field must be an integer or a string, not " + type_name(v));
      for (char ch : text)
        out.append(ch, whole);
      i = close + 1;
    }
    return out;
  }

  AntaresSource einstein_v2(const ast::Call& call, Span span) {
    std::optional<Value> program, input_dict, extra_outputs;
    if (call.args.size() > 2)
      throw Error(ErrorKind::Unsupported, call.args[2]->span,
                  "einstein_v2 takes the program, input_dict and extra_outputs");
    if (call.args.empty())
      throw Error(ErrorKind::Syntax, span, "einstein_v2(...) needs the program text");
    program = eval(*call.args[0]);
    if (call.args.size() > 1)
      input_dict = eval(*call.args[1]);
    for (const ast::Keyword& k : call.keywords) {
      if (k.name == "input_dict" && !input_dict)
        input_dict = eval(*k.value);
      else if (k.name == "extra_outputs" && !extra_outputs)
        extra_outputs = eval(*k.value);
      else
        throw Error(ErrorKind::Unsupported, k.span,
                    "unexpected argument `" + k.name +
                        "`; einstein_v2 takes the program, input_dict and extra_outputs");
    }
    const MappedText* text = program->as_string();
    if (!text)
      throw Error(ErrorKind::Type, program->span,
                  "the einstein_v2 program must be a string, not " + type_name(*program));
    AntaresSource out;
    out.program = parse_einstein(text->text, TextOrigin(&file_, text));
    out.program_span = program->span;
    if (input_dict)
      out.inputs = inputs(*input_dict);
    if (extra_outputs) {
      const ValueList* names = extra_outputs->as_list();
      if (!names)
        throw Error(ErrorKind::Type, extra_outputs->span, "extra_outputs must be a list");
      for (const Value& n : *names) {
        const MappedText* s = n.as_string();
        if (!s)
          throw Error(ErrorKind::Type, n.span, "extra_outputs lists tensor names (strings)");
        out.extra_outputs.push_back({s->text, n.span});
      }
    }
    return out;
  }

  std::vector<InputSpec> inputs(const Value& dict) {
    const ValueDict* d = dict.as_dict();
    if (!d)
      throw Error(ErrorKind::Type, dict.span, "input_dict must be a dict");
    std::vector<InputSpec> out;
    std::unordered_map<std::string_view, size_t> seen; // name -> index in out
    for (size_t i = 0; i < d->keys.size(); ++i) {
      const Value& key = d->keys[i];
      const Value& value = d->values[i];
      const MappedText* name = key.as_string();
      if (!name)
        throw Error(ErrorKind::Type, key.span, "input_dict keys are tensor names (strings)");
      if (auto it = seen.find(name->text); it != seen.end())
        throw Error(ErrorKind::Name, key.span, "input `" + name->text + "` declared twice")
            .note(out[it->second].span, "first declared here");
      seen.emplace(name->text, out.size());
      InputSpec spec{name->text, core::DType::Float32, {}, key.span.to(value.span)};
      if (const MappedText* str = value.as_string())
        type_string(*str, value.span, spec);
      else
        type_dict(value, spec);
      out.push_back(std::move(spec));
    }
    return out;
  }

  core::DType dtype(const std::string& text, Span span) {
    std::optional<core::DType> t = core::dtype_from_name(text);
    if (t && core::kernel_dtype(*t))
      return *t;
    throw Error(ErrorKind::Type, span,
                "unknown dtype \"" + text + "\"" + (t ? core::not_kernel_note(*t) : ""));
  }

  void type_dict(const Value& value, InputSpec& spec) {
    const ValueDict* d = value.as_dict();
    if (!d)
      throw Error(ErrorKind::Type, value.span,
                  "an input_dict entry is {\"dtype\": ..., \"shape\": [...]} or \"dtype[shape]\"");
    bool have_dtype = false, have_shape = false;
    for (size_t i = 0; i < d->keys.size(); ++i) {
      const Value& key = d->keys[i];
      const Value& field = d->values[i];
      const MappedText* k = key.as_string();
      if (k && k->text == "dtype") {
        const MappedText* s = field.as_string();
        if (!s)
          throw Error(ErrorKind::Type, field.span, "dtype must be a string such as \"float32\"");
        spec.dtype = dtype(s->text, field.span);
        have_dtype = true;
      } else if (k && k->text == "shape") {
        const ValueList* dims = field.as_list();
        if (!dims)
          throw Error(ErrorKind::Type, field.span, "shape must be a list of integers");
        spec.shape.clear();
        for (const Value& dim : *dims) {
          int64_t n = expect_int(dim, "a dimension");
          if (n < 0)
            throw Error(ErrorKind::Shape, dim.span, "negative dimension " + std::to_string(n));
          spec.shape.push_back(n);
        }
        have_shape = true;
      } else {
        throw Error(ErrorKind::Unsupported, key.span,
                    "unexpected key in an input_dict entry; expected \"dtype\" and \"shape\"");
      }
    }
    if (!have_dtype || !have_shape)
      throw Error(ErrorKind::Syntax, value.span,
                  "an input_dict entry needs both \"dtype\" and \"shape\"");
  }

  // The string form "float32[4, 8]".
  void type_string(const MappedText& s, Span span, InputSpec& spec) {
    const std::string& t = s.text;
    size_t open = t.find('[');
    if (open == std::string::npos || t.back() != ']')
      throw Error(ErrorKind::Syntax, span, "expected \"dtype[d0, d1, ...]\"");
    spec.dtype = dtype(t.substr(0, open), span);
    spec.shape.clear();
    std::string dims = t.substr(open + 1, t.size() - open - 2);
    size_t i = 0;
    while (i < dims.size()) {
      while (i < dims.size() && (dims[i] == ' ' || dims[i] == ','))
        ++i;
      if (i == dims.size())
        break;
      int64_t n = 0;
      size_t start = i;
      while (i < dims.size() && std::isdigit(static_cast<unsigned char>(dims[i])))
        if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, dims[i++] - '0', &n))
          throw Error(ErrorKind::Range, span, "dimension too large");
      if (i == start)
        throw Error(ErrorKind::Syntax, span, "expected \"dtype[d0, d1, ...]\"");
      spec.shape.push_back(n);
    }
  }

  const core::SourceFile& file_;
  std::map<std::string, Value> env_;
};

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// Skips blank lines and `#` comment lines.
size_t skip_comments(const std::string& t, size_t i) {
  while (i < t.size()) {
    if (is_blank(t[i])) {
      ++i;
    } else if (t[i] == '#') {
      while (i < t.size() && t[i] != '\n')
        ++i;
    } else {
      break;
    }
  }
  return i;
}

} // namespace

AntaresSource read_antares(const core::SourceFile& file) {
  const std::string& t = file.text();
  size_t i = skip_comments(t, 0);
  std::string_view rest = std::string_view(t).substr(i);
  if (rest.starts_with("COMPUTE_V1=")) {
    size_t q = i + std::string_view("COMPUTE_V1=").size();
    if (q >= t.size() || (t[q] != '\'' && t[q] != '"'))
      throw Error(ErrorKind::Syntax, Span{&file, static_cast<uint32_t>(q), uint32_t(q + 1)},
                  "expected a quoted COMPUTE_V1 value");
    size_t close = t.find(t[q], q + 1);
    if (close == std::string::npos)
      throw Error(ErrorKind::Syntax, Span{&file, static_cast<uint32_t>(q), uint32_t(q + 1)},
                  "unterminated COMPUTE_V1 quote");
    // Whatever follows on the same line (`make`, ...) is the shell's.
    size_t eol = t.find('\n', close);
    size_t after = skip_comments(t, eol == std::string::npos ? t.size() : eol);
    if (after < t.size())
      throw Error(ErrorKind::Unsupported,
                  Span{&file, static_cast<uint32_t>(after), static_cast<uint32_t>(after + 1)},
                  "one COMPUTE_V1 per file");
    size_t body = q + 1;
    while (body < close && is_blank(t[body]))
      ++body;
    if (body >= close || t[body] != '-')
      throw Error(ErrorKind::Syntax,
                  Span{&file, static_cast<uint32_t>(body), static_cast<uint32_t>(body + 1)},
                  "a COMPUTE_V1 value starts with `- `");
    return Preamble(file).run(std::string_view(t).substr(body + 1, close - body - 1),
                              static_cast<uint32_t>(body + 1));
  }
  if (rest.starts_with("-"))
    return Preamble(file).run(rest.substr(1), static_cast<uint32_t>(i + 1));
  AntaresSource out;
  out.program = parse_einstein(rest, TextOrigin(&file, static_cast<uint32_t>(i)));
  out.program_span = Span{&file, static_cast<uint32_t>(i), static_cast<uint32_t>(t.size())};
  return out;
}

} // namespace teval::parser
