// Pattern matching and constraint evaluation for HTP rules (see htp_eval.h).
#include "rules/htp_eval.h"

#include <algorithm>

#include "core/error.h"

#include <cmath>
#include <limits>

namespace teval::rules {

namespace {

using core::Error;
using core::ErrorKind;
using Type = Value::Type;

bool bind(Match& m, const std::string& tag, int node) {
  auto [it, fresh] = m.tags.emplace(tag, node);
  return fresh || it->second == node;
}

bool match_op(const Graph& g, int node, const ast::Call& pat, Match& m) {
  const Node& n = g.nodes[node];
  const std::string& op = as_string(*pat.args[0])->value;
  bool kind_ok = op == "$Const"
                     ? n.kind == Node::Kind::Const
                     : n.kind == Node::Kind::Op || (op == n.op && n.kind == Node::Kind::Input);
  if (!kind_ok || (n.kind == Node::Kind::Op && n.op != op))
    return false;
  size_t operands = pat.args.size() - 1;
  bool variadic = pat.callee == "OpVarIn";
  if (variadic ? n.inputs.size() < operands : n.inputs.size() != operands)
    return false;
  for (size_t i = 0; i < operands; ++i) {
    const ast::Expr& a = *pat.args[i + 1];
    int in = n.inputs[i];
    if (const ast::StringLit* s = as_string(a)) {
      if (!bind(m, s->value, in))
        return false;
      continue;
    }
    const ast::Call& c = *as_call(a);
    if (c.callee == "LET") {
      if (!bind(m, as_string(*c.args[0])->value, in) || !match_op(g, in, *as_call(*c.args[1]), m))
        return false;
      continue;
    }
    if (!match_op(g, in, c, m))
      return false;
  }
  return true;
}

Type promote(Type a, Type b) {
  if (a == Type::Float || b == Type::Float)
    return Type::Float;
  if (a == Type::Size || b == Type::Size)
    return Type::Size;
  return Type::Int;
}

Value make_bool(bool b) {
  return Value{Type::Bool, b, 0, 0, {}};
}
Value make_int(int64_t i) {
  return Value{Type::Int, i, 0, 0, {}};
}
Value make_size(uint64_t u) {
  return Value{Type::Size, 0, u, 0, {}};
}
Value make_float(float f) {
  return Value{Type::Float, 0, 0, f, {}};
}

// C's conversions between int, size, float (and bool as an integer).
Value convert(const Value& v, Type to) {
  if (v.type == to)
    return v;
  double d = v.type == Type::Float ? v.f : v.type == Type::Size ? double(v.u) : double(v.i);
  switch (to) {
  case Type::Float:
    return make_float(v.type == Type::Size ? float(v.u) : v.type == Type::Float ? v.f : float(v.i));
  case Type::Size:
    return make_size(v.type == Type::Float  ? uint64_t(d)
                     : v.type == Type::Size ? v.u
                                            : uint64_t(v.i));
  case Type::Int:
    return make_int(v.type == Type::Float  ? int64_t(d)
                    : v.type == Type::Size ? int64_t(int32_t(v.u))
                                           : v.i);
  case Type::Bool:
    return make_bool(d != 0);
  case Type::DType:
    break;
  }
  TEVAL_UNREACHABLE("conversion to dtype");
}

Value checked_int(int64_t v, const ast::Expr& e, const char* op) {
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    throw Error(ErrorKind::Arithmetic, e.span,
                std::string("int overflow in ") + op + " (" + std::to_string(v) +
                    " does not fit in int)");
  return make_int(v);
}

// ADD SUB MUL DIV MIN MAX REM MOD of two values of one C type (REM and
// MOD truncate like C's %; the caller fixes MOD's sign). Floats use fmin,
// fmax and fmod.
template <class T> T arithmetic(const std::string& f, T x, T y) {
  if (f == "ADD")
    return x + y;
  if (f == "SUB")
    return x - y;
  if (f == "MUL")
    return x * y;
  if (f == "DIV")
    return x / y;
  if constexpr (std::is_floating_point_v<T>) {
    if (f == "MIN")
      return std::fmin(x, y);
    if (f == "MAX")
      return std::fmax(x, y);
    return std::fmod(x, y);
  } else {
    if (f == "MIN")
      return std::min(x, y);
    if (f == "MAX")
      return std::max(x, y);
    return x % y;
  }
}

// -v in v's type: floats flip their sign, sizes wrap, ints must fit.
Value negated(Value v, const ast::Expr& e, const char* op) {
  if (v.type == Type::Float)
    v.f = -v.f;
  else if (v.type == Type::Size)
    v.u = 0 - v.u;
  else
    v = checked_int(-v.i, e, op);
  return v;
}

} // namespace

std::optional<Match> match(const Graph& g, int node, const ast::Expr& pattern) {
  Match m;
  m.tags["*"] = node;
  if (!match_op(g, node, *as_call(pattern), m))
    return std::nullopt;
  return m;
}

bool Evaluator::truth(const Value& v, const ast::Expr& e) {
  TEVAL_ASSERT(v.type == Type::Bool,
               "checked rules have bool conditions: " + std::string(e.span.text()));
  return v.i != 0;
}

int64_t Evaluator::integer(const ast::Expr& e) {
  Value v = eval(e);
  if (v.type == Type::Size) {
    if (v.u > uint64_t(std::numeric_limits<int64_t>::max()))
      throw Error(ErrorKind::Arithmetic, e.span,
                  "size value " + std::to_string(v.u) + " is too large here");
    return int64_t(v.u);
  }
  return v.i;
}

const Split& Evaluator::split(const ast::Expr& tag) {
  const std::string& t = as_string(tag)->value;
  for (auto it = splits.rbegin(); it != splits.rend(); ++it)
    if (it->tag == t)
      return *it;
  TEVAL_UNREACHABLE("checked rules use split tags in scope only");
}

int Evaluator::opref(const ast::Expr& e) {
  if (const ast::StringLit* s = as_string(e)) {
    auto it = m_.tags.find(s->value);
    TEVAL_ASSERT(it != m_.tags.end(), "checked rules use matched tags only");
    return it->second;
  }
  const ast::Call& c = *as_call(e);
  if (c.callee == "SELECT")
    return holds(*c.args[0]) ? opref(*c.args[1]) : opref(*c.args[2]);
  int node = opref(*c.args[0]);
  int64_t i = integer(*c.args[1]);
  const Node& n = g_.nodes[node];
  if (c.callee == "OUTPUT_OF") {
    if (i == 0 && n.outputs == 1)
      return node;
    throw NotEvaluable{e.span, "OUTPUT_OF a multi-output op is not modelled"};
  }
  if (i < 0 || i >= int64_t(n.inputs.size()))
    throw Error(ErrorKind::Range, e.span,
                "INPUT_OF index " + std::to_string(i) + " is out of range: " + n.name + " has " +
                    std::to_string(n.inputs.size()) + " input(s)");
  return n.inputs[i];
}

Value Evaluator::eval(const ast::Expr& e) {
  if (const auto* i = std::get_if<ast::IntLit>(&e.node)) {
    bool size = i->text.find_first_of("uU") != std::string::npos;
    return size ? make_size(i->value) : make_int(int64_t(i->value));
  }
  if (const auto* f = std::get_if<ast::FloatLit>(&e.node))
    return make_float(float(f->value));
  if (const auto* u = std::get_if<ast::Unary>(&e.node)) {
    Value v = eval(*u->operand);
    return u->op == ast::UnaryOp::Neg ? negated(v, e, "-") : v;
  }
  if (const auto* n = std::get_if<ast::Name>(&e.node)) {
    if (n->id == "OK" || n->id == "true")
      return make_bool(true);
    if (n->id == "false")
      return make_bool(false);
    if (n->id == "INF" || n->id == "NEG_INF")
      return make_float(n->id == "INF" ? INFINITY : -INFINITY);
    Value v;
    v.type = Type::DType;
    v.dtype = n->id.substr(7); // DType::Name
    return v;
  }
  return call(*as_call(e), e);
}

Value Evaluator::call(const ast::Call& c, const ast::Expr& e) {
  const std::string& f = c.callee;
  auto arg = [&](size_t i) { return eval(*c.args[i]); };
  if (f == "AND" || f == "OR") {
    // Left to right, stopping at the first operand that decides.
    for (const ast::ExprPtr& a : c.args)
      if (holds(*a) != (f == "AND"))
        return make_bool(f == "OR");
    return make_bool(f == "AND");
  }
  if (f == "XOR") {
    bool r = false;
    for (const ast::ExprPtr& a : c.args)
      r = r != holds(*a);
    return make_bool(r);
  }
  if (f == "NOT")
    return make_bool(!holds(*c.args[0]));
  if (f == "SELECT") {
    bool cond = holds(*c.args[0]);
    Value a = eval(*c.args[cond ? 1 : 2]);
    // Both branches have one type after promotion: evaluate the other only
    // for its type, never for its value (SELECT is lazy).
    return a;
  }
  if (f == "EQ" || f == "NE" || f == "LT" || f == "GT" || f == "LE" || f == "GE") {
    Value a = arg(0), b = arg(1);
    int cmp = 0;
    if (a.type == Type::DType || a.type == Type::Bool) {
      cmp = a.type == Type::DType ? (a.dtype == b.dtype ? 0 : 1) : int(a.i - b.i);
    } else {
      Type t = promote(a.type, b.type);
      Value x = convert(a, t), y = convert(b, t);
      if (t == Type::Float) {
        if (std::isnan(x.f) || std::isnan(y.f))
          return make_bool(f == "NE");
        cmp = x.f < y.f ? -1 : x.f > y.f ? 1 : 0;
      } else if (t == Type::Size) {
        cmp = x.u < y.u ? -1 : x.u > y.u ? 1 : 0;
      } else {
        cmp = x.i < y.i ? -1 : x.i > y.i ? 1 : 0;
      }
    }
    bool r = f == "EQ"   ? cmp == 0
             : f == "NE" ? cmp != 0
             : f == "LT" ? cmp < 0
             : f == "GT" ? cmp > 0
             : f == "LE" ? cmp <= 0
                         : cmp >= 0;
    return make_bool(r);
  }
  if (f == "ADD" || f == "MUL" || f == "MIN" || f == "MAX" || f == "SUB" || f == "DIV" ||
      f == "REM" || f == "MOD" || f == "ROUNDUP") {
    std::vector<Value> vs;
    Type t = Type::Int;
    for (size_t i = 0; i < c.args.size(); ++i) {
      vs.push_back(arg(i));
      t = i == 0 ? vs[0].type : promote(t, vs[i].type);
    }
    for (Value& v : vs)
      v = convert(v, t);
    Value acc = vs[0];
    for (size_t i = 1; i < vs.size(); ++i) {
      const Value& b = vs[i];
      const ast::Expr& at = *c.args[i];
      if (t == Type::Float) {
        acc.f = arithmetic(f, acc.f, b.f);
        continue;
      }
      bool zero = t == Type::Size ? b.u == 0 : b.i == 0;
      if (zero && (f == "DIV" || f == "REM" || f == "MOD"))
        throw Error(ErrorKind::Arithmetic, at.span, f + " by zero in a constraint");
      if (f == "ROUNDUP") {
        if (zero)
          throw Error(ErrorKind::Arithmetic, at.span, "ROUNDUP to a multiple of zero");
        if (t == Type::Size)
          acc.u = (acc.u + b.u - 1) / b.u * b.u;
        else
          acc = checked_int((acc.i + b.i - 1) / b.i * b.i, e, "ROUNDUP");
        continue;
      }
      if (t == Type::Size) {
        acc.u = arithmetic(f, acc.u, b.u);
        continue;
      }
      int64_t x = acc.i, y = b.i;
      if ((f == "DIV" || f == "REM" || f == "MOD") && x == std::numeric_limits<int32_t>::min() &&
          y == -1)
        throw Error(ErrorKind::Arithmetic, e.span, f + "(-2147483648, -1) overflows int");
      // Operands are ints, so the int64 result of + - * never overflows.
      int64_t r = arithmetic(f, x, y);
      if (f == "MOD" && r != 0 && ((r < 0) != (y < 0)))
        r += y;
      acc = checked_int(r, e, f.c_str());
    }
    return acc;
  }
  if (f == "NEG" || f == "ABS") {
    Value v = arg(0);
    bool negate =
        f == "NEG" || (v.type == Type::Float ? std::signbit(v.f) : v.type == Type::Int && v.i < 0);
    return negate ? negated(v, e, f.c_str()) : v;
  }
  if (f == "IS_POW2") {
    Value v = arg(0);
    if (v.type == Type::Size)
      return make_bool(v.u != 0 && (v.u & (v.u - 1)) == 0);
    return make_bool(v.i > 0 && (v.i & (v.i - 1)) == 0);
  }
  if (f == "UINT" || f == "INT" || f == "FLOAT") {
    Value v = arg(0);
    if (v.type == Type::DType)
      throw NotEvaluable{e.span, "INT of a dtype depends on HTP's internal DType numbering"};
    Type to = f == "UINT" ? Type::Size : f == "INT" ? Type::Int : Type::Float;
    if (v.type == Type::Float && to != Type::Float &&
        (std::isnan(v.f) || v.f <= (to == Type::Int ? -2147483649.0f : -1.0f) ||
         v.f >= (to == Type::Int ? 2147483648.0f : 18446744073709551616.0f)))
      throw Error(ErrorKind::Arithmetic, e.span, "float value out of range of " + f);
    return convert(v, to);
  }
  if (f == "DTYPE")
    throw NotEvaluable{e.span, "DTYPE of an integer depends on HTP's internal DType numbering"};
  if (f == "OPTION_INT" || f == "OPTION_UINT" || f == "OPTION_BOOL" || f == "OPTION_FLOAT") {
    const std::string& name = as_string(*c.args[0])->value;
    auto it = g_.options.find(name);
    if (it == g_.options.end())
      throw NotEvaluable{e.span, "the rule reads graph option '" + name + "', which is not set"};
    double v = it->second;
    if (f == "OPTION_BOOL")
      return make_bool(v != 0);
    if (f == "OPTION_FLOAT")
      return make_float(float(v));
    if (f == "OPTION_INT")
      return make_int(int64_t(int32_t(int64_t(v))));
    return make_size(uint64_t(int64_t(v)));
  }
  if (f == "LAYOUT_CHUNKSIZE")
    throw NotEvaluable{e.span, "LAYOUT_CHUNKSIZE depends on HTP's tensor layout classes"};
  if (f == "EXTERNAL_CONSTRAINT")
    throw NotEvaluable{c.args[0]->span, "EXTERNAL_CONSTRAINT calls the C++ function '" +
                                            std::string(c.args[0]->span.text()) + "'"};
  if (f == "PRODUCER_FOR")
    return make_bool(feeds(opref(*c.args[0]), as_string(*c.args[1])->value));
  if (f == "SPLIT_DIM" || f == "SPLIT_START" || f == "SPLIT_SIZE" || f == "ITER_VAR") {
    const Split& s = split(*c.args[0]);
    return make_int(f == "SPLIT_DIM" ? s.dim : f == "SPLIT_SIZE" ? s.size : s.start);
  }
  if (f == "SAME_OP")
    return make_bool(opref(*c.args[0]) == opref(*c.args[1]));
  if (f == "SAME_ENCODING") {
    const TensorType& a = g_.nodes[opref(*c.args[0])].type;
    const TensorType& b = g_.nodes[opref(*c.args[1])].type;
    return make_bool(a.dtype == b.dtype &&
                     (!quantized(a.dtype) || (a.zero_offset == b.zero_offset && a.step == b.step)));
  }
  const Node& n = g_.nodes[opref(*c.args[0])];
  if (f == "RANK_OF")
    return make_size(n.type.shape.size());
  if (f == "DIM_OF") {
    int64_t d = integer(*c.args[1]);
    if (d < 0 || d >= int64_t(n.type.shape.size()))
      throw Error(ErrorKind::Range, e.span,
                  "DIM_OF(" + n.name + ", " + std::to_string(d) + "): the tensor has rank " +
                      std::to_string(n.type.shape.size()));
    return make_size(uint64_t(n.type.shape[d]));
  }
  if (f == "STEPSIZE_OF")
    return make_float(n.type.step);
  if (f == "ZERO_OFFSET_OF")
    return make_int(n.type.zero_offset);
  if (f == "DTYPE_OF") {
    Value v;
    v.type = Type::DType;
    v.dtype = tag(n.type.dtype);
    return v;
  }
  if (f == "ELEMENTSIZE_OF")
    return make_size(uint64_t(element_size(n.type.dtype)));
  if (f == "INPUTS_OF")
    return make_size(n.inputs.size());
  if (f == "OUTPUTS_OF")
    return make_size(uint64_t(n.outputs));
  if (f == "SIZE_OF") {
    uint64_t count = 1;
    for (int64_t d : n.type.shape)
      count *= uint64_t(d);
    return make_size(count);
  }
  if (f == "CONSTVAL_INT" || f == "CONSTVAL_INT_VALID" || f == "CONSTVAL_FLOAT" ||
      f == "CONSTVAL_FLOAT_VALID") {
    int64_t i = integer(*c.args[1]);
    bool ok = n.kind == Node::Kind::Const && i >= 0 && i < n.value->numel();
    double v = ok ? n.value->get(i).as_double() : 0;
    bool as_int = f.starts_with("CONSTVAL_INT");
    if (as_int)
      ok = ok && v == std::floor(v) && v >= -2147483648.0 && v <= 2147483647.0;
    if (f.ends_with("_VALID"))
      return make_bool(ok);
    if (as_int)
      return make_int(ok ? int64_t(v) : std::numeric_limits<int32_t>::min());
    return make_float(ok ? float(v) : NAN);
  }
  TEVAL_UNREACHABLE("checked constraint form " + f);
}

bool Evaluator::feeds(int producer, const std::string& opname) const {
  // "*Output" is the graph's output itself.
  if (opname == "*Output")
    return producer == g_.output;
  // Only nodes still in the graph count: those the output depends on.
  std::vector<bool> live(g_.nodes.size(), false);
  std::vector<int> stack = {g_.output};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    if (n < 0 || live[size_t(n)])
      continue;
    live[size_t(n)] = true;
    for (int i : g_.nodes[size_t(n)].inputs)
      stack.push_back(i);
  }
  for (size_t n = 0; n < g_.nodes.size(); ++n) {
    const Node& node = g_.nodes[n];
    if (live[n] && node.kind == Node::Kind::Op && node.op == opname &&
        std::find(node.inputs.begin(), node.inputs.end(), producer) != node.inputs.end())
      return true;
  }
  return false;
}

} // namespace teval::rules
