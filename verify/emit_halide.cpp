// A program as a Halide pipeline (see emit_halide.h). Each statement is two
// Funcs: its values, a Tuple over the statement's index variables (the
// value, whether the point counts, and for a scatter the output indices),
// and its target, which starts at the statement's start and folds the
// values in one update. Where each output index is its own variable (the
// common case) those variables are the update's pure variables and the
// others an RDom, so that the schedule may vectorize, parallelize or
// rfactor it; otherwise the update walks an RDom of every variable and
// writes at the indices it computes. An RDom's first dimension is its
// innermost loop, so the variables are listed last first: the update folds
// in the interpreter's order. Funcs list a tensor's dimensions last first
// too, Halide's innermost first. Every read is clamped into its tensor and
// every divisor guarded, so that a branch not taken is harmless; errors are
// not reported (the pipeline is undefined where teval reports one).
#include "verify/emit_halide.h"

#include "core/error.h"
#include "core/json.h"
#include "core/kernel_json.h"
#include "core/shape.h"
#include "verify/emit_halide_prelude.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <unordered_map>

namespace teval::verify {

namespace {

using core::DType;
using core::Expr;
using python::float_literal;
using python::int_literal;

std::string halide_type(DType t) {
  if (t == DType::Bool)
    return "hl.UInt(8)";
  if (core::is_float(t))
    return "hl.Float(" + std::to_string(core::bit_width(t)) + ")";
  return std::string(core::kind(t) == core::DTypeKind::Signed ? "hl.Int(" : "hl.UInt(") +
         std::to_string(core::bit_width(t)) + ")";
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& e : v)
    s += (s.empty() ? "" : ", ") + e;
  return s;
}

// Halide's order of a tensor's (or a statement's) indices: last first; one
// index 0 for a scalar, which is a Func of one dimension of extent 1.
std::vector<std::string> reversed(std::vector<std::string> v) {
  std::reverse(v.begin(), v.end());
  if (v.empty())
    v.push_back("hl.Expr(0)");
  return v;
}

std::string constant(DType t, const core::Scalar& v) {
  if (core::is_float(t) && v.f == 0) {
    // A zero by its bits: Halide 14 takes the constants -0.0 and 0.0 for
    // one expression and merges them (docs/findings/).
    const int bits = core::bit_width(t);
    return "hl.reinterpret(hl.Float(" + std::to_string(bits) + "), hl.u" + std::to_string(bits) +
           "(" + (std::signbit(v.f) ? "1 << " + std::to_string(bits - 1) : std::string("0")) + "))";
  }
  if (core::is_float(t)) {
    const std::string d = "hl.f64(" + float_literal(v.f) + ")";
    return t == DType::Float64   ? d
           : t == DType::Float16 ? "_f16(" + d + ")"
                                 : "hl.cast(" + halide_type(t) + ", " + d + ")";
  }
  if (t == DType::Bool)
    return v.i ? "hl.u8(1)" : "hl.u8(0)";
  if (core::kind(t) == core::DTypeKind::Unsigned)
    return "hl.cast(" + halide_type(t) + ", hl.u64(" + std::to_string(static_cast<uint64_t>(v.i)) +
           "))";
  return "hl.cast(" + halide_type(t) + ", hl.i64(" + int_literal(v.i) + "))";
}

// 1 where \p cond holds, else 0, in dtype \p t.
std::string boolean(DType t, const std::string& cond) {
  core::Scalar one;
  one.i = 1, one.f = 1;
  return "hl.select(" + cond + ", " + constant(t, one) + ", " + constant(t, core::Scalar{}) + ")";
}

// How a later expression reads a tensor: an input's hl.Buffer or a
// statement's Func (a Tuple's first element when it tracks writes).
struct Source {
  std::string name;
  bool tuple = false;
};

// A value at every point of a statement, with the conditions (Bool Exprs)
// under which evaluating it skips the point (Tile's fractional and
// out-of-range indices). Errors have no conditions: the pipeline is
// undefined where teval reports one.
struct Value {
  std::string var;
  std::vector<std::string> skips;
};

class StatementWriter {
public:
  StatementWriter(const core::Kernel& k, const core::Statement& s, int number, std::string& code,
                  int& counter, std::vector<Source>& sources)
      : k_(k), s_(s), number_(number), code_(code), counter_(counter), sources_(sources) {}

  void write();

private:
  bool skip() const { return s_.out_of_range == core::OutOfRange::Skip; }
  bool tracked() const { return s_.start == core::Start::FirstValue; }
  std::string prefix() const { return "s" + std::to_string(number_) + "_"; }

  std::string let(const std::string& rhs) {
    std::string name = "x" + std::to_string(counter_++);
    code_ += "    " + name + " = " + rhs + "\n";
    return name;
  }

  // \p conds, counted only where \p guard holds, appended to \p into.
  void under(const std::string& guard, const std::vector<std::string>& conds,
             std::vector<std::string>& into) {
    for (const std::string& c : conds)
      into.push_back(let("(" + c + ") & (" + guard + ")"));
  }

  Value value(const Expr& e) {
    if (auto it = memo_.find(e.get()); it != memo_.end())
      return it->second;
    Value v = std::visit([&](const auto& n) { return node(*e, n); }, e->node);
    memo_.emplace(e.get(), v);
    return v;
  }

  // An integer result \p r of dtype \p t: bool is one bit.
  std::string fix(const std::string& r, DType t) {
    return let(t == DType::Bool ? "(" + r + ") & hl.u8(1)" : r);
  }
  // float16 is computed in float32 and rounded after each operation.
  static std::string wide(DType t, const std::string& x) {
    return t == DType::Float16 ? "hl.f32(" + x + ")" : x;
  }
  static std::string rounded(DType t, const std::string& r) {
    return t == DType::Float16 ? "_f16(" + r + ")" : r;
  }

  Value node(const core::ExprNode& e, const core::Const& c) {
    return {let(constant(e.dtype, c.value)), {}};
  }
  Value node(const core::ExprNode& e, const core::VarRef& r) {
    return {let("hl.cast(" + halide_type(e.dtype) + ", v" + std::to_string(r.var) + ")"), {}};
  }
  Value node(const core::ExprNode& e, const core::Load& l);
  Value node(const core::ExprNode& e, const core::Cast& c);
  Value node(const core::ExprNode& e, const core::Select& s);
  Value node(const core::ExprNode& e, const core::Apply& a);
  Value integer(const core::Apply& a, DType t, const Value& x, const Value& y);
  Value floating(const core::Apply& a, DType t, const Value& x, const Value& y);
  std::string combine(DType t, const std::string& acc, const std::string& v) const;
  std::string identity(DType t) const;

  const core::Kernel& k_;
  const core::Statement& s_;
  int number_;
  std::string& code_;
  int& counter_;
  std::vector<Source>& sources_;
  std::unordered_map<const core::ExprNode*, Value> memo_;
  std::vector<std::string> out_of_range_; // under Skip: reads whose point is skipped
};

Value StatementWriter::node(const core::ExprNode& e, const core::Load& l) {
  const core::TensorDecl& t = k_.tensors[l.tensor];
  Value v;
  std::vector<std::string> at, outside;
  for (size_t d = 0; d < l.index.size(); ++d) {
    Value i = value(l.index[d]);
    v.skips.insert(v.skips.end(), i.skips.begin(), i.skips.end());
    const std::string n = std::to_string(t.shape[d]);
    at.push_back("_at(" + i.var + ", " + n + ")");
    outside.push_back("hl.logical_not(_in(" + i.var + ", " + n + "))");
  }
  if (skip() && !outside.empty()) {
    std::string any;
    for (const std::string& o : outside)
      any += (any.empty() ? "" : " | ") + ("(" + o + ")");
    out_of_range_.push_back(let(any));
  }
  if (core::checked_numel(t.shape).value_or(0) == 0) // every read is out of range
    return {let(constant(e.dtype, core::Scalar{})), v.skips};
  const Source& src = sources_[l.tensor];
  v.var = let("_e(" + src.name + "[" + join(reversed(at)) + "]" + (src.tuple ? "[0]" : "") + ")");
  return v;
}

Value StatementWriter::node(const core::ExprNode& e, const core::Cast& c) {
  const DType from = c.value->dtype, to = e.dtype;
  Value v = value(c.value);
  if (from == to)
    return v;
  if (to == DType::Bool)
    return {let(boolean(to, "_true(" + v.var + ")")), v.skips};
  if (!core::is_float(to) && core::is_float(from)) // truncated, 0 where it does not fit
    return {fix("_to_int(" + v.var + ", " + halide_type(to) + ")", to), v.skips};
  if (!core::is_float(to)) // wrapped
    return {fix("hl.cast(" + halide_type(to) + ", " + v.var + ")", to), v.skips};
  if (to == DType::Float16) {
    // float64 through float32 would round twice: once, by rounding to odd
    // first. An integer that float32 rounds is beyond float16's range.
    if (from == DType::Float64)
      return {let("_narrow16(" + v.var + ")"), v.skips};
    return {let("_f16(hl.f32(" + v.var + "))"), v.skips};
  }
  return {let("hl.cast(" + halide_type(to) + ", " + v.var + ")"), v.skips};
}

Value StatementWriter::node(const core::ExprNode&, const core::Select& s) {
  Value c = value(s.cond), a = value(s.then), b = value(s.otherwise);
  const std::string taken = let("_true(" + c.var + ")"),
                    other = let("hl.logical_not(" + taken + ")");
  Value v{let("hl.select(" + taken + ", " + a.var + ", " + b.var + ")"), c.skips};
  under(taken, a.skips, v.skips);
  under(other, b.skips, v.skips);
  return v;
}

Value StatementWriter::node(const core::ExprNode& e, const core::Apply& a) {
  using core::Op;
  Value x = value(a.args[0]);
  if (a.op == Op::And || a.op == Op::Or) {
    Value y = value(a.args[1]);
    const std::string first = let("_true(" + x.var + ")");
    Value v{let(boolean(e.dtype, "(" + first + ")" + (a.op == Op::And ? " & " : " | ") + "_true(" +
                                     y.var + ")")),
            x.skips};
    under(a.op == Op::And ? first : let("hl.logical_not(" + first + ")"), y.skips, v.skips);
    return v;
  }
  if (a.op == Op::Not)
    return {let(boolean(e.dtype, "hl.logical_not(_true(" + x.var + "))")), x.skips};
  if (a.op == Op::Floor || a.op == Op::Ceil)
    return {fix("_to_int(" + std::string(a.op == Op::Floor ? "hl.floor(" : "hl.ceil(") +
                    wide(a.args[0]->dtype, x.var) + "), " + halide_type(e.dtype) + ")",
                e.dtype),
            x.skips};
  Value y;
  if (a.args.size() > 1) {
    y = value(a.args[1]);
    x.skips.insert(x.skips.end(), y.skips.begin(), y.skips.end());
  }
  switch (a.op) {
  case Op::Lt:
  case Op::Le:
  case Op::Gt:
  case Op::Ge:
  case Op::Eq:
  case Op::Ne:
    if (core::is_float(a.args[0]->dtype)) { // through the bits (see _lt)
      const std::string c = a.op == Op::Lt   ? "_lt(" + x.var + ", " + y.var + ")"
                            : a.op == Op::Le ? "_le(" + x.var + ", " + y.var + ")"
                            : a.op == Op::Gt ? "_lt(" + y.var + ", " + x.var + ")"
                            : a.op == Op::Ge ? "_le(" + y.var + ", " + x.var + ")"
                            : a.op == Op::Eq ? "_eq(" + x.var + ", " + y.var + ")"
                                             : "_ne(" + x.var + ", " + y.var + ")";
      return {let(boolean(e.dtype, c)), x.skips};
    }
    return {let(boolean(e.dtype, x.var + " " + std::string(core::spelling(a.op)) + " " + y.var)),
            x.skips};
  case Op::Same:
    return {let(boolean(e.dtype, core::is_float(a.args[0]->dtype)
                                     ? "_same(" + x.var + ", " + y.var + ")"
                                     : x.var + " == " + y.var)),
            x.skips};
  default:
    break;
  }
  return core::is_float(e.dtype) ? floating(a, e.dtype, x, y) : integer(a, e.dtype, x, y);
}

Value StatementWriter::integer(const core::Apply& a, DType t, const Value& xv, const Value& yv) {
  using core::Op;
  const std::string& x = xv.var;
  const std::string& y = yv.var;
  std::vector<std::string> skips = xv.skips;
  const bool is_signed = core::kind(t) == core::DTypeKind::Signed;
  // y with 0 (and, signed, -1) replaced by 1, so that dividing by it is
  // defined where teval does not divide (the smallest value divided by -1
  // overflows).
  auto divisor = [&] {
    return let("hl.select((" + y + " == 0)" + (is_signed ? " | (" + y + " == -1)" : "") + ", " +
               "hl.cast(" + y + ".type(), 1), " + y + ")");
  };
  switch (a.op) {
  case Op::Neg:
    return {fix("_sub(" + constant(t, core::Scalar{}) + ", " + x + ")", t), skips};
  case Op::Abs:
    return {is_signed ? let("hl.select(" + x + " < 0, _sub(" + constant(t, core::Scalar{}) + ", " +
                            x + "), " + x + ")")
                      : x,
            skips};
  case Op::Add:
    return {fix("_add(" + x + ", " + y + ")", t), skips};
  case Op::Sub:
    return {fix("_sub(" + x + ", " + y + ")", t), skips};
  case Op::Mul:
    return {fix("_mul(" + x + ", " + y + ")", t), skips};
  case Op::Div:
  case Op::ExactDiv: {
    const std::string d = divisor();
    if (a.op == Op::ExactDiv && skip()) // (y 0 or -1 divides by 1, exactly)
      skips.push_back(let(x + " % " + d + " != 0"));
    if (!is_signed)
      return {fix(x + " / " + d, t), skips};
    // Halide 14's div_round_to_zero is wrong for most constant divisors
    // (docs/findings/): truncation from its Euclidean / and %.
    return {let("hl.select(" + y + " == -1, _sub(" + constant(t, core::Scalar{}) + ", " + x +
                "), _div_trunc(" + x + ", " + d + "))"),
            skips};
  }
  case Op::Mod: {
    const std::string d = divisor();
    if (!is_signed)
      return {fix(x + " % " + d, t), skips};
    // Halide's % is Euclidean (never negative); teval's floors. (The
    // divisor's sign in a select of its own: `(d < 0) & (m != 0)` makes
    // Halide 14's compiler divide by zero when the read it indexes is
    // vectorized, docs/findings/.)
    const std::string m = let(x + " % " + d);
    return {let("hl.select(" + d + " < 0, hl.select(" + m + " != 0, " + m + " + " + d + ", " + m +
                "), " + m + ")"),
            skips};
  }
  case Op::Max:
    return {let("hl.max(" + x + ", " + y + ")"), skips};
  case Op::Min:
    return {let("hl.min(" + x + ", " + y + ")"), skips};
  case Op::Shl:
  case Op::Shr: {
    const std::string bits = std::to_string(t == DType::Bool ? 1 : core::bit_width(t));
    const std::string amount =
        let("hl.select(" + (is_signed ? "(" + y + " < 0) | " : std::string()) + "(" + y +
            " >= " + bits + "), hl.cast(" + y + ".type(), 0), " + y + ")");
    if (a.op == Op::Shr)
      return {let(x + " >> " + amount), skips};
    return {fix("_shl(" + x + ", " + amount + ")", t), skips};
  }
  default:
    TEVAL_UNREACHABLE("not an integer operator: " + std::string(core::spelling(a.op)));
  }
}

Value StatementWriter::floating(const core::Apply& a, DType t, const Value& xv, const Value& yv) {
  using core::Op;
  const std::string x = wide(t, xv.var);
  const std::string y = yv.var.empty() ? "" : wide(t, yv.var);
  const std::string one = t == DType::Float64 ? "hl.f64(1.0)" : "hl.f32(1.0)";
  std::string r;
  switch (a.op) {
  case Op::Neg:
    r = "-" + x;
    break;
  case Op::Abs:
    r = "hl.abs(" + x + ")";
    break;
  case Op::Add:
  case Op::Sub:
  case Op::Mul:
  case Op::Div:
    r = "(" + x + " " + std::string(core::spelling(a.op)) + " " + y + ")";
    break;
  case Op::Max:
    r = "_fmax(" + x + ", " + y + ")";
    break;
  case Op::Min:
    r = "_fmin(" + x + ", " + y + ")";
    break;
  case Op::Pow:
    r = t == DType::Float64 ? "hl.pow(" + x + ", " + y + ")"
                            : "hl.cast(hl.Float(32), hl.pow(hl.f64(" + x + "), hl.f64(" + y + ")))";
    break;
  case Op::Exp:
  case Op::Log:
    r = t == DType::Float64 ? "hl." + std::string(core::spelling(a.op)) + "(" + x + ")"
                            : "_libm(hl." + std::string(core::spelling(a.op)) + ", " + x + ")";
    break;
  case Op::Rsqrt: // two roundings, as teval computes it
    r = "(" + one + " / " + wide(t, rounded(t, "hl.sqrt(" + x + ")")) + ")";
    break;
  case Op::Sigmoid: {
    const std::string e = wide(
        t, rounded(t, t == DType::Float64 ? "hl.exp(-" + x + ")" : "_libm(hl.exp, -" + x + ")"));
    r = "(" + one + " / " + wide(t, rounded(t, "(" + one + " + " + e + ")")) + ")";
    break;
  }
  case Op::Frac:
    r = "(" + x + " - hl.floor(" + x + "))";
    break;
  case Op::RFloor:
    r = "hl.floor(" + x + ")";
    break;
  case Op::RCeil:
    r = "hl.ceil(" + x + ")";
    break;
  case Op::Mod:
    throw Inexpressible{"% of floats (Halide has no fmod: its float % is x - y * floor(x / y), "
                        "rounded twice)"};
  case Op::NormCdf:
    throw Inexpressible{"normcdf (Halide has no erfc; 1 + erf(x / sqrt(2)) loses the small "
                        "values)"};
  case Op::Erfc:
  case Op::Expm1:
  case Op::Log1p:
  case Op::Cbrt:
    throw Inexpressible{std::string(core::spelling(a.op)) +
                        " (Halide has no such function; composing it from exp, log or pow "
                        "loses the small values)"};
  case Op::Atan2:
    r = t == DType::Float64
            ? "hl.atan2(" + x + ", " + y + ")"
            : "hl.cast(hl.Float(32), hl.atan2(hl.f64(" + x + "), hl.f64(" + y + ")))";
    break;
  case Op::Erf:
    if (t == DType::Float64)
      throw Inexpressible{"erf of float64 (Halide's erf takes float32 only)"};
    r = "_erf(" + x + ")";
    break;
  default:
    r = "hl." + std::string(core::spelling(a.op)) + "(" + x + ")";
    break;
  }
  return {let(rounded(t, r)), xv.skips};
}

std::string StatementWriter::combine(DType t, const std::string& acc, const std::string& v) const {
  using core::Aggregation;
  const Aggregation a = s_.aggregation;
  if (a == Aggregation::All || a == Aggregation::Any)
    return boolean(t, "_true(" + acc + ") " + (a == Aggregation::All ? "&" : "|") + " _true(" + v +
                          ")");
  if (core::is_float(t)) {
    const std::string x = wide(t, acc), y = wide(t, v);
    return rounded(t, a == Aggregation::Sum       ? "(" + x + " + " + y + ")"
                      : a == Aggregation::Product ? "(" + x + " * " + y + ")"
                      : a == Aggregation::Max     ? "_fmax(" + x + ", " + y + ")"
                                                  : "_fmin(" + x + ", " + y + ")");
  }
  const std::string r = a == Aggregation::Sum       ? "_add(" + acc + ", " + v + ")"
                        : a == Aggregation::Product ? "_mul(" + acc + ", " + v + ")"
                        : a == Aggregation::Max     ? "hl.max(" + acc + ", " + v + ")"
                                                    : "hl.min(" + acc + ", " + v + ")";
  return t == DType::Bool ? "(" + r + ") & hl.u8(1)" : r;
}

// The value that leaves any accumulator as it is: folding it in is exact.
std::string StatementWriter::identity(DType t) const {
  using core::Aggregation;
  core::Scalar v;
  switch (s_.aggregation) {
  case Aggregation::Sum:
    v.f = -0.0;
    break;
  case Aggregation::Product:
  case Aggregation::All:
    v.f = 1, v.i = 1;
    break;
  case Aggregation::Max:
    v.f = -INFINITY, v.i = core::is_float(t) || t == DType::Bool ? 0 : core::int_min(t);
    break;
  case Aggregation::Min:
    v.f = INFINITY, v.i = core::is_float(t) ? 0 : t == DType::Bool ? 1 : core::int_max(t);
    break;
  default:
    break;
  }
  return constant(t, v);
}

void StatementWriter::write() {
  const core::TensorDecl& target = k_.tensors[s_.target];
  const std::string p = prefix();
  code_ += "    # statement " + std::to_string(number_) + ": " + target.name + "\n";
  // The target: its dimensions x0, x1, ..., listed last first.
  std::vector<std::string> xs;
  for (size_t d = 0; d < target.shape.size(); ++d)
    xs.push_back(p + "x" + std::to_string(d));
  const std::string f = p + "t";
  code_ += "    " + f + " = hl.Func(\"" + f + "\")\n";
  std::vector<std::string> pure = xs;
  if (pure.empty())
    pure.push_back(p + "x");
  for (const std::string& x : pure)
    code_ += "    " + x + " = hl.Var(\"" + x + "\")\n";
  const std::string lhs = join(reversed(pure));
  std::string fill;
  if (s_.init_from && core::checked_numel(target.shape).value_or(0) > 0) {
    const Source& from = sources_[*s_.init_from];
    fill = from.name + "[" + lhs + "]" + (from.tuple ? "[0]" : "");
  } else {
    fill = constant(target.dtype, s_.init);
  }
  const bool track = tracked();
  code_ += "    " + f + "[" + lhs + "] = " + (track ? "hl.Tuple([" + fill + ", hl.u8(0)])" : fill) +
           "\n";
  std::string stage = "_Stage(\"" + p + "\", " + f + ", [" + join(reversed(pure)) + "]";
  bool empty = false;
  for (const core::IndexVar& v : s_.vars)
    empty = empty || v.end <= v.begin;
  if (empty) { // no point: nothing happens
    sources_[s_.target] = {f, track};
    code_ += "    stages.append(" + stage + "))\n";
    return;
  }
  for (const core::IndexVar& v : s_.vars)
    if (v.begin < INT32_MIN || v.end > INT32_MAX)
      throw Inexpressible{"an index variable beyond Halide's 32-bit coordinates"};
  // The values, over the statement's variables v0, v1, ... (listed last
  // first), and whether each point counts.
  std::vector<std::string> vs;
  for (size_t v = 0; v < s_.vars.size(); ++v) {
    vs.push_back("v" + std::to_string(v));
    code_ += "    v" + std::to_string(v) + " = hl.Var(\"" + p + "v" + std::to_string(v) + "\")\n";
  }
  if (vs.empty()) {
    vs.push_back(p + "v");
    code_ += "    " + vs[0] + " = hl.Var(\"" + vs[0] + "\")\n";
  }
  std::vector<std::string> live;
  auto check = [&](const std::vector<std::string>& skips) {
    for (const std::string& c : skips)
      live.push_back("hl.logical_not(" + c + ")");
  };
  for (const core::Constraint& c : s_.constraints) {
    const Value cv = value(c.expr);
    check(cv.skips);
    live.push_back("(" + cv.var + " >= 0) & (" + cv.var + " < " + std::to_string(c.bound) + ")");
  }
  // Each output index its own variable, inside the dimension: the
  // update's pure variables.
  bool plain = true;
  std::vector<int> axes;
  for (size_t d = 0; d < s_.out_index.size() && plain; ++d) {
    const auto* r = std::get_if<core::VarRef>(&s_.out_index[d]->node);
    plain = r && std::find(axes.begin(), axes.end(), r->var) == axes.end() &&
            s_.vars[r->var].begin >= 0 && s_.vars[r->var].end <= target.shape[d];
    if (plain)
      axes.push_back(r->var);
  }
  std::vector<std::string> out;
  for (const Expr& e : s_.out_index) {
    const Value o = value(e);
    check(o.skips);
    out.push_back(o.var);
  }
  const Value v = value(s_.value);
  for (const std::string& o : out_of_range_) // the reads of a point Tile skips
    live.push_back("hl.logical_not(" + o + ")");
  check(v.skips);
  std::string counts;
  for (const std::string& c : live)
    counts += (counts.empty() ? "" : " & ") + ("(" + c + ")");
  const std::string e = p + "e";
  std::vector<std::string> tuple = {
      v.var, counts.empty() ? "hl.u8(1)" : "hl.select(" + counts + ", hl.u8(1), hl.u8(0))"};
  if (!plain)
    tuple.insert(tuple.end(), out.begin(), out.end());
  code_ += "    " + e + " = hl.Func(\"" + e + "\")\n";
  code_ += "    " + e + "[" + join(reversed(vs)) + "] = hl.Tuple([" + join(tuple) + "])\n";
  // The update: an RDom of the variables that are not pure, last first.
  std::vector<std::string> args(s_.vars.size());
  std::string ranges;
  std::vector<std::string> inside; // a pure variable over part of its dimension
  int rvars = 0;
  for (size_t i = s_.vars.size(); i-- > 0;) {
    const auto axis = std::find(axes.begin(), axes.end(), static_cast<int>(i));
    const core::IndexVar& iv = s_.vars[i];
    if (plain && axis != axes.end()) {
      const size_t d = static_cast<size_t>(axis - axes.begin());
      args[i] = xs[d];
      if (iv.begin > 0 || iv.end < target.shape[d])
        inside.push_back("(" + xs[d] + " >= " + std::to_string(iv.begin) + ") & (" + xs[d] + " < " +
                         std::to_string(iv.end) + ")");
      continue;
    }
    args[i] = p + "r[" + std::to_string(rvars++) + "]";
    ranges += (ranges.empty() ? "" : ", ") + ("hl.Range(" + std::to_string(iv.begin) + ", " +
                                              std::to_string(iv.end - iv.begin) + ")");
  }
  if (rvars > 0)
    code_ += "    " + p + "r = hl.RDom([" + ranges + "])\n";
  const std::string call = e + "[" + join(reversed(args)) + "]";
  std::string counted = let(call + "[1] != 0");
  for (const std::string& c : inside)
    counted = let("(" + counted + ") & " + c);
  const std::string value_at = let("_e(" + call + "[0])");
  std::string at = lhs;
  if (!plain) {
    std::vector<std::string> where, in;
    for (size_t d = 0; d < out.size(); ++d) {
      const std::string o = let("_e(" + call + "[" + std::to_string(2 + d) + "])");
      where.push_back("_at(" + o + ", " + std::to_string(target.shape[d]) + ")");
      in.push_back("_in(" + o + ", " + std::to_string(target.shape[d]) + ")");
    }
    for (const std::string& c : in)
      counted = let("(" + counted + ") & " + c);
    at = join(reversed(where));
  }
  const DType t = target.dtype;
  const std::string acc = "_e(" + f + "[" + at + "]" + (track ? "[0]" : "") + ")";
  std::string next;
  if (track) {
    const std::string written = f + "[" + at + "][1] != 0";
    next = "hl.Tuple([hl.select(" + counted + ", hl.select(" + written + ", " +
           combine(t, acc, value_at) + ", " + value_at + "), " + acc + "), hl.select(" + counted +
           ", hl.u8(1), " + f + "[" + at + "][1])])";
  } else if (s_.aggregation == core::Aggregation::Assign) {
    next = "hl.select(" + counted + ", " + value_at + ", " + acc + ")";
  } else {
    next = combine(t, acc, "hl.select(" + counted + ", " + value_at + ", " + identity(t) + ")");
  }
  code_ += "    " + f + "[" + at + "] = " + next + "\n";
  sources_[s_.target] = {f, track};
  code_ += "    stages.append(" + stage + ", " + e + ", [" + join(reversed(vs)) + "], " +
           (rvars > 0 ? p + "r" : "None") + ", " + (plain ? "True" : "False") + "))\n";
}

// FNV-1a of \p text: the schedule seed a program always gets.
uint32_t fnv1a(const std::string& text) {
  uint32_t h = 2166136261u;
  for (unsigned char c : text)
    h = (h ^ c) * 16777619u;
  return h;
}

std::string shape_tuple(const core::Shape& shape) {
  std::string s = "(";
  for (size_t d = 0; d < shape.size(); ++d)
    s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

void refuse_bfloat16(const Expr& e) {
  if (e->dtype == DType::BFloat16)
    throw Inexpressible{"bfloat16 (Halide 14's Python bindings have no bfloat16 type)"};
  std::visit(
      [](const auto& n) {
        using N = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<N, core::Load>) {
          for (const Expr& i : n.index)
            refuse_bfloat16(i);
        } else if constexpr (std::is_same_v<N, core::Cast>) {
          refuse_bfloat16(n.value);
        } else if constexpr (std::is_same_v<N, core::Select>) {
          refuse_bfloat16(n.cond);
          refuse_bfloat16(n.then);
          refuse_bfloat16(n.otherwise);
        } else if constexpr (std::is_same_v<N, core::Apply>) {
          for (const Expr& a : n.args)
            refuse_bfloat16(a);
        }
      },
      e->node);
}

} // namespace

std::string emit_halide(const core::Kernel& k, const std::string& origin,
                        const std::map<std::string, core::Tensor>& constants) {
  std::vector<bool> written(k.tensors.size(), false);
  for (const core::Statement& s : k.statements)
    written[s.target] = true;
  for (const core::TensorDecl& d : k.tensors)
    if (d.dtype == DType::BFloat16)
      throw Inexpressible{"bfloat16 (Halide 14's Python bindings have no bfloat16 type)"};
  for (int o : k.outputs)
    if (k.tensors[o].role != core::TensorRole::Input && !written[o])
      throw Inexpressible{"an output no statement writes (" + k.tensors[o].name + ")"};
  for (const core::Statement& s : k.statements) {
    refuse_bfloat16(s.value);
    for (const Expr& e : s.out_index)
      refuse_bfloat16(e);
    for (const core::Constraint& c : s.constraints)
      refuse_bfloat16(c.expr);
  }
  const uint32_t seed = fnv1a(core::kernel_json(k, constants));
  std::string py =
      "#!/usr/bin/env python3\n"
      "# " +
      origin +
      " as a Halide pipeline, by teval emit --to halide (docs/EMIT.md).\n"
      "# Usage: python3 THIS INPUT_DIR OUTPUT_DIR [--schedule SEED]: reads INPUT_DIR/NAME.npy\n"
      "# for each input, builds the pipeline, schedules it from SEED (default " +
      std::to_string(seed) +
      ",\n"
      "# this program's), JIT-compiles it for the host and writes OUTPUT_DIR/NAME.npy for\n"
      "# each output. The pipeline is undefined where teval reports an error on the inputs.\n"
      "# It computes teval's interpreter's bits where Halide keeps IEEE semantics, and relies\n"
      "# on: Halide 14's Python bindings and numpy; the target's strict_float (no fused\n"
      "# multiply-add, no reassociation), float32 and float64 operations rounding once to\n"
      "# nearest, float16 computed in float32 and rounded after each operation (as teval\n"
      "# does); 8- and 16-bit integers wrapping (wider signed ones are computed unsigned:\n"
      "# Halide assumes they do not overflow); the math functions (sin, tanh, erf, ...) are\n"
      "# Halide's, within a few ulps of teval's own, float32 exp, log and pow through float64\n"
      "# (the C library's). Floats are compared, and rounded to float16, around Halide 14's\n"
      "# mistakes with NaN. A reduction folds in teval's order unless the schedule rfactors\n"
      "# it.\n";
  py += detail::kHalideHelpers;
  std::string params, inputs, made;
  std::vector<Source> sources(k.tensors.size());
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    const core::TensorDecl& d = k.tensors[i];
    sources[i] = {"t" + std::to_string(i), false};
    if (d.role == core::TensorRole::Input && !constants.count(d.name)) {
      params += (params.empty() ? "" : ", ") + ("t" + std::to_string(i));
      inputs += "    (" + core::json_string(d.name) + ", \"" +
                std::string(core::npy_descr(d.dtype)) + "\", " + shape_tuple(d.shape) + "),\n";
    }
  }
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    const core::TensorDecl& d = k.tensors[i];
    auto c = constants.find(d.name);
    if (d.role != core::TensorRole::Input || c == constants.end())
      continue;
    params += (params.empty() ? "" : ", ") + ("t" + std::to_string(i));
    std::string values;
    for (int64_t e = 0; e < c->second.numel(); ++e) {
      const core::Scalar v = c->second.get(e);
      values += (e ? ", " : "") + (core::is_float(d.dtype) ? float_literal(v.f) : int_literal(v.i));
    }
    made += "        np.array([" + values + "], dtype=\"" + std::string(core::npy_descr(d.dtype)) +
            "\").reshape(" + shape_tuple(d.shape) + "),\n";
  }
  py += "\ndef build(" + params +
        "):\n"
        "    # The pipeline's Funcs and the stages the schedule may change.\n"
        "    stages = []\n";
  int counter = 0;
  for (size_t s = 0; s < k.statements.size(); ++s)
    StatementWriter(k, k.statements[s], static_cast<int>(s), py, counter, sources).write();
  std::string outputs, returned;
  for (int o : k.outputs) {
    const core::TensorDecl& d = k.tensors[o];
    returned += (returned.empty() ? "" : ", ") + std::string("(") + sources[o].name + ", " +
                (sources[o].tuple ? "True" : "False") + ")";
    outputs += "    (" + core::json_string(d.name) + ", \"" +
               std::string(core::npy_descr(d.dtype)) + "\", " + shape_tuple(d.shape) + "),\n";
  }
  py += "    return [" + returned + "], stages\n\n\n_SEED = " + std::to_string(seed) +
        "\n_INPUTS = [\n" + inputs + "]\n_OUTPUTS = [\n" + outputs +
        "]\n\n\ndef _constants():\n    return [\n" + made + "    ]\n";
  return py + detail::kHalideDriver;
}

} // namespace teval::verify
