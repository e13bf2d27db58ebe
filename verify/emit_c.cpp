// A program as C (see emit_c.h). Each statement is a nest of loops over
// its index variables in the interpreter's order; each value is computed
// in its dtype with one rounding per operation (float16 and bfloat16
// through double and the prelude's rounding, float32 and float64 as C's
// float and double operations, which IEEE rounds once); integers in 128
// bits, then wrapped or, in index arithmetic, checked.
#include "verify/emit_c.h"

#include "core/error.h"
#include "core/json.h"
#include "core/shape.h"
#include "verify/emit_c_prelude.h"

#include <cmath>
#include <cstdio>

namespace teval::verify {

namespace {

using core::DType;
using core::Expr;

struct Layout {
  const char* storage; // the C type of an element in memory
  const char* descr;   // the .npy type string
};

Layout layout(DType t) {
  switch (t) {
  case DType::Bool:
    return {"uint8_t", "|b1"};
  case DType::Int8:
  case DType::Int2:
  case DType::Int4: // kernels have none (kernel_dtype)
    return {"int8_t", "|i1"};
  case DType::Int16:
    return {"int16_t", "<i2"};
  case DType::Int32:
    return {"int32_t", "<i4"};
  case DType::Int64:
    return {"int64_t", "<i8"};
  case DType::UInt8:
  case DType::UInt2:
  case DType::UInt4:
    return {"uint8_t", "|u1"};
  case DType::UInt16:
    return {"uint16_t", "<u2"};
  case DType::UInt32:
    return {"uint32_t", "<u4"};
  case DType::UInt64:
    return {"uint64_t", "<u8"};
  case DType::Float16:
    return {"uint16_t", "<f2"};
  case DType::BFloat16:
    return {"uint16_t", "<V2"};
  case DType::Float32:
    return {"float", "<f4"};
  TEVAL_MINIFLOAT_CASES:
  TEVAL_COMPLEX_CASES:
    TEVAL_UNREACHABLE("kernels have no minifloats and no complex values (kernel_dtype)");
  case DType::Float64:
    return {"double", "<f8"};
  }
  TEVAL_UNREACHABLE("unknown dtype");
}

std::string str(int64_t v) {
  if (v == INT64_MIN)
    return "(-INT64_C(9223372036854775807) - 1)";
  return "INT64_C(" + std::to_string(v) + ")";
}

// An integer dtype's width and signedness, as the prelude's functions take
// them ("8, 1").
std::string int_form(DType t) {
  return std::to_string(core::bit_width(t)) + ", " +
         (core::kind(t) == core::DTypeKind::Signed ? "1" : "0");
}

// The prelude's rounding of a double to float dtype \p t.
std::string rounder(DType t) {
  switch (t) {
  case DType::Float16:
    return "r_f16";
  case DType::BFloat16:
    return "r_bf16";
  case DType::Float32:
    return "r_f32";
  default:
    return "r_f64";
  }
}

// A float constant as an exact C literal of its value type.
std::string float_literal(double v, DType t) {
  const char* type = t == DType::Float64 ? "(double)" : "(float)";
  if (std::isnan(v))
    return std::string(type) + "NAN";
  if (std::isinf(v))
    return std::string(type) + (v > 0 ? "INFINITY" : "-INFINITY");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return std::string(type) + buf;
}

class Emitter {
public:
  Emitter(const core::Kernel& k, const core::Statement& s, int number)
      : k_(k), s_(s), next_("next_" + std::to_string(number)) {}

  // The value of \p e, as a C expression (int64_t for integers and bool,
  // float for float32, float16 and bfloat16, double for float64).
  std::string expr(const Expr& e) {
    return std::visit([&](const auto& n) { return node(*e, n); }, e->node);
  }

  // Under OutOfRange::Skip: statements that go to the next point unless
  // every read anywhere in \p e is in range.
  void validity(const Expr& e, std::string& out) {
    core::for_each_node(e, [&](const Expr& x) {
      const auto* l = std::get_if<core::Load>(&x->node);
      if (!l)
        return;
      const core::Shape& shape = k_.tensors[l->tensor].shape;
      for (size_t d = 0; d < l->index.size(); ++d)
        out += "      { int64_t i = " + expr(l->index[d]) + "; if (i < 0 || i >= " + str(shape[d]) +
               ") goto " + next_ + "; }\n";
    });
  }

  const std::string& next() const { return next_; }

private:
  bool skip() const { return s_.out_of_range == core::OutOfRange::Skip; }

  std::string node(const core::ExprNode& e, const core::Const& c) {
    if (core::is_float(e.dtype))
      return float_literal(c.value.f, e.dtype);
    return str(c.value.i);
  }

  std::string node(const core::ExprNode& e, const core::VarRef& v) {
    return "wrap_bits(v" + std::to_string(v.var) + ", " + int_form_or_bool(e.dtype) + ")";
  }

  static std::string int_form_or_bool(DType t) { return t == DType::Bool ? "1, 0" : int_form(t); }

  std::string node(const core::ExprNode& e, const core::Load& l) {
    const core::TensorDecl& t = k_.tensors[l.tensor];
    std::string r = "({ int64_t at = 0;";
    for (size_t d = 0; d < l.index.size(); ++d) {
      std::string i = "i" + std::to_string(d);
      r += " int64_t " + i + " = " + expr(l.index[d]) + "; if (" + i + " < 0 || " + i +
           " >= " + str(t.shape[d]) + ") " +
           (skip() ? "goto " + next_ + ";" : "fail(\"read out of range of " + t.name + "\");") +
           " at = at * " + str(t.shape[d]) + " + " + i + ";";
    }
    std::string element = "t" + std::to_string(l.tensor) + "[at]";
    if (e.dtype == DType::Float16)
      element = "f16_value(" + element + ")";
    else if (e.dtype == DType::BFloat16)
      element = "bf16_value(" + element + ")";
    else if (!core::is_float(e.dtype))
      element = "(int64_t)" + element;
    return r + " " + element + "; })";
  }

  std::string node(const core::ExprNode& e, const core::Cast& c) {
    const DType from = c.value->dtype, to = e.dtype;
    const std::string v = expr(c.value);
    if (to == DType::Bool)
      return "(int64_t)(" + v + " != 0)";
    if (!core::is_float(to))
      return core::is_float(from) ? "float_to_int(" + v + ", " + int_form(to) + ")"
                                  : "wrap_bits(" + v + ", " + int_form(to) + ")";
    if (!core::is_float(from)) {
      const char* format = to == DType::Float64   ? "53, -1022, 1023"
                           : to == DType::Float32 ? "24, -126, 127"
                           : to == DType::Float16 ? "11, -14, 15"
                                                  : "8, -126, 127";
      return std::string(to == DType::Float64 ? "" : "(float)") + "int_to_float(" + v + ", " +
             format + ")";
    }
    return rounder(to) + "((double)" + v + ")";
  }

  std::string node(const core::ExprNode&, const core::Select& s) {
    return "((" + expr(s.cond) + ") != 0 ? " + expr(s.then) + " : " + expr(s.otherwise) + ")";
  }

  std::string node(const core::ExprNode& e, const core::Apply& a) {
    using core::Op;
    auto arg = [&](size_t i) { return expr(a.args[i]); };
    switch (a.op) {
    case Op::And:
      return "(int64_t)((" + arg(0) + ") != 0 && (" + arg(1) + ") != 0)";
    case Op::Or:
      return "(int64_t)((" + arg(0) + ") != 0 || (" + arg(1) + ") != 0)";
    case Op::Not:
      return "(int64_t)((" + arg(0) + ") == 0)";
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne:
      return "(int64_t)(" + arg(0) + " " + std::string(core::spelling(a.op)) + " " + arg(1) + ")";
    case Op::Same:
      return core::is_float(a.args[0]->dtype)
                 ? "(int64_t)same_float(" + arg(0) + ", " + arg(1) + ")"
                 : "(int64_t)(" + arg(0) + " == " + arg(1) + ")";
    case Op::Floor:
    case Op::Ceil:
      return "float_to_int(" + std::string(a.op == Op::Floor ? "floor" : "ceil") + "((double)" +
             arg(0) + "), " + int_form(e.dtype) + ")";
    default:
      break;
    }
    const DType t = e.dtype;
    if (!core::is_float(t))
      return integer(a, t);
    return floating(a, t);
  }

  std::string integer(const core::Apply& a, DType t) {
    using core::Op;
    const std::string x = expr(a.args[0]), form = int_form(t);
    const std::string trap = a.overflow == core::Overflow::Trap ? "1" : "0";
    if (a.op == Op::Neg)
      return "int_result(-(__int128)" + x + ", " + form + ", " + trap + ")";
    if (a.op == Op::Abs)
      return "({ int64_t x = " + x + "; x < 0 ? int_result(-(__int128)x, " + form + ", " + trap +
             ") : x; })";
    const std::string y = expr(a.args[1]);
    switch (a.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
      return "int_result((__int128)" + x + " " + std::string(core::spelling(a.op)) + " (__int128)" +
             y + ", " + form + ", " + trap + ")";
    case Op::Div:
      return "int_div(" + x + ", " + y + ", " + form + ", " + trap + ")";
    case Op::ExactDiv:
      return "({ int64_t q = int_exactdiv(" + x + ", " + y + ", " + form + ", " + trap +
             "); if (inexact) { inexact = 0; " +
             (skip() ? "goto " + next_ + ";" : std::string("fail(\"fractional index\");")) +
             " } q; })";
    case Op::Mod:
      return "int_mod(" + x + ", " + y + ")";
    case Op::Max:
      return "({ int64_t a = " + x + ", b = " + y + "; a > b ? a : b; })";
    case Op::Min:
      return "({ int64_t a = " + x + ", b = " + y + "; a < b ? a : b; })";
    case Op::Shl:
    case Op::Shr:
      return "int_shift(" + x + ", " + y + ", " + (a.op == Op::Shl ? "1" : "0") + ", " + form + ")";
    default:
      TEVAL_UNREACHABLE("not an integer operator: " + std::string(core::spelling(a.op)));
    }
  }

  // A float operation: float32 and float64 as C's operations on float and
  // double (one IEEE rounding); float16 and bfloat16 in double, rounded.
  std::string floating(const core::Apply& a, DType t) {
    using core::Op;
    const bool narrow = t == DType::Float16 || t == DType::BFloat16;
    const bool wide = t == DType::Float64;
    const std::string x = expr(a.args[0]);
    const std::string y = a.args.size() > 1 ? expr(a.args[1]) : "";
    const std::string X = "(double)" + x, Y = "(double)" + y;
    auto in_dtype = [&](const std::string& double_value) {
      return rounder(t) + "(" + double_value + ")";
    };
    // A math function in the argument's precision: float64's, or float32's
    // (the float64 function rounded to float32) for the narrower dtypes.
    auto precise = [&](const std::string& double_value) {
      return wide ? double_value : in_dtype("r_f32(" + double_value + ")");
    };
    const std::string f = wide ? "" : "f";
    switch (a.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div: {
      const std::string op = std::string(" ") + std::string(core::spelling(a.op)) + " ";
      return narrow ? in_dtype(X + op + Y) : "(" + x + op + y + ")";
    }
    case Op::Mod:
      return in_dtype("floor_mod(" + X + ", " + Y + ")");
    case Op::Max:
      return in_dtype("fmax_nan(" + X + ", " + Y + ")");
    case Op::Min:
      return in_dtype("fmin_nan(" + X + ", " + Y + ")");
    case Op::Neg:
      return "(-" + x + ")";
    case Op::Abs:
      return "fabs" + f + "(" + x + ")";
    case Op::Pow:
      return precise("pow(" + X + ", " + Y + ")");
    case Op::Atan2:
      return precise("atan2(" + X + ", " + Y + ")");
    case Op::Sqrt:
      return in_dtype("sqrt" + f + "(" + x + ")");
    case Op::Rsqrt:
      return in_dtype("(1.0" + f + " / sqrt" + f + "(" + x + "))");
    case Op::Sigmoid:
      return wide ? "(1.0 / (1.0 + exp(-" + x + ")))"
                  : in_dtype("(1.0f / (1.0f + r_f32(exp(-(double)" + x + "))))");
    case Op::NormCdf:
      return wide
                 ? "(0.5 * erfc(-" + x + " * 0.70710678118654752440))"
                 : in_dtype("(0.5f * r_f32(erfc((double)(-" + x + " * 0.70710678118654752440f))))");
    case Op::Frac:
      return in_dtype("(" + x + " - floor" + f + "(" + x + "))");
    case Op::RFloor:
      return "floor" + f + "(" + x + ")";
    case Op::RCeil:
      return "ceil" + f + "(" + x + ")";
    default:
      break;
    }
    std::string name(core::spelling(a.op));
    return precise(name + "(" + X + ")");
  }

  const core::Kernel& k_;
  const core::Statement& s_;
  std::string next_;
};

// The statement's aggregation of value \p v into element \p at of \p out.
std::string combine(core::Aggregation a, DType t, const std::string& acc, const std::string& v) {
  using core::Aggregation;
  if (a == Aggregation::All)
    return "(int64_t)((" + acc + ") != 0 && (" + v + ") != 0)";
  if (a == Aggregation::Any)
    return "(int64_t)((" + acc + ") != 0 || (" + v + ") != 0)";
  if (core::is_float(t)) {
    const std::string r = rounder(t);
    switch (a) {
    case Aggregation::Sum:
      return r + "((double)" + acc + " + (double)" + v + ")";
    case Aggregation::Product:
      return r + "((double)" + acc + " * (double)" + v + ")";
    case Aggregation::Max:
      return r + "(fmax_nan(" + acc + ", " + v + "))";
    default:
      return r + "(fmin_nan(" + acc + ", " + v + "))";
    }
  }
  const std::string form = t == DType::Bool ? "1, 0" : int_form(t);
  switch (a) {
  case Aggregation::Sum:
    return "int_result((__int128)" + acc + " + " + v + ", " + form + ", 0)";
  case Aggregation::Product:
    return "int_result((__int128)" + acc + " * " + v + ", " + form + ", 0)";
  case Aggregation::Max:
    return "({ int64_t a = " + acc + ", b = " + v + "; a > b ? a : b; })";
  default:
    return "({ int64_t a = " + acc + ", b = " + v + "; a < b ? a : b; })";
  }
}

// Element \p at of tensor \p id as a value, and a value stored into it.
std::string read_element(DType t, const std::string& where) {
  if (t == DType::Float16)
    return "f16_value(" + where + ")";
  if (t == DType::BFloat16)
    return "bf16_value(" + where + ")";
  return core::is_float(t) ? where : "(int64_t)" + where;
}
std::string stored(DType t, const std::string& v) {
  if (t == DType::Float16)
    return "f16_bits(" + v + ")";
  if (t == DType::BFloat16)
    return "bf16_bits(" + v + ")";
  return "(" + std::string(layout(t).storage) + ")(" + v + ")";
}

std::string shape_array(const core::Shape& shape) {
  std::string s = "{";
  for (size_t d = 0; d < shape.size(); ++d)
    s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (shape.empty() ? "0}" : "}");
}

std::string statement(const core::Kernel& k, const core::Statement& s, int number) {
  Emitter em(k, s, number);
  const core::TensorDecl& target = k.tensors[s.target];
  const DType dt = target.dtype;
  const int64_t n = core::checked_numel(target.shape).value_or(0);
  const std::string out = "o" + std::to_string(number), size = std::to_string(n);
  std::string c = "  /* statement " + std::to_string(number) + ": " + target.name + " */\n  {\n";
  c += "    " + std::string(layout(dt).storage) + "* " + out + " = malloc(" + size + " * sizeof *" +
       out + " + 1);\n";
  if (s.init_from)
    c += "    memcpy(" + out + ", t" + std::to_string(*s.init_from) + ", " + size + " * sizeof *" +
         out + ");\n";
  else
    c += "    for (int64_t e = 0; e < " + size + "; ++e)\n      " + out +
         "[e] = " + stored(dt, core::is_float(dt) ? float_literal(s.init.f, dt) : str(s.init.i)) +
         ";\n";
  const bool track = s.start == core::Start::FirstValue ||
                     (s.aggregation == core::Aggregation::Assign && !core::injective(s));
  if (track)
    c += "    unsigned char* written = calloc(" + size + " + 1, 1);\n";

  // One point: constraints, validity, the output index, the value, its store.
  std::string body;
  for (const core::Constraint& con : s.constraints)
    body += "      { int64_t c = " + em.expr(con.expr) + "; if (c < 0 || c >= " + str(con.bound) +
            ") goto " + em.next() + "; }\n";
  const bool skip = s.out_of_range == core::OutOfRange::Skip;
  if (skip)
    em.validity(s.value, body);
  body += "      int64_t at = 0;\n";
  for (size_t d = 0; d < s.out_index.size(); ++d)
    body += "      { int64_t i = " + em.expr(s.out_index[d]) +
            "; if (i < 0 || i >= " + str(target.shape[d]) + ") " +
            (skip ? "goto " + em.next() + ";"
                  : "fail(\"write out of range of " + target.name + "\");") +
            " at = at * " + str(target.shape[d]) + " + i; }\n";
  const std::string value_type = !core::is_float(dt)    ? "int64_t"
                                 : dt == DType::Float64 ? "double"
                                                        : "float";
  body += "      " + value_type + " v = " + em.expr(s.value) + ";\n";
  const std::string element = out + "[at]", old = read_element(dt, element);
  if (s.aggregation == core::Aggregation::Assign) {
    if (track) {
      const std::string clash = s.conflict == core::WriteConflict::Error ? "1"
                                : core::is_float(dt) ? "!same_float(" + old + ", v)"
                                                     : old + " != v";
      body += "      if (written[at] && " + clash + ") fail(\"two writes to one element of " +
              target.name + "\");\n";
    }
    body += "      " + element + " = " + stored(dt, "v") + ";\n";
  } else {
    const std::string folded = stored(dt, combine(s.aggregation, dt, old, "v"));
    body +=
        "      " + element + " = " +
        (s.start == core::Start::FirstValue ? "written[at] ? " + folded + " : " + stored(dt, "v")
                                            : folded) +
        ";\n";
  }
  if (track)
    body += "      written[at] = 1;\n";
  body += "    " + em.next() + ":;\n";

  // The points in the interpreter's order: the first variable outermost.
  std::string close;
  if (s.vars.empty()) { // one point, in a loop for the label's sake
    c += "    for (int once = 0; once < 1; ++once) {\n";
    close = "    }\n";
  }
  for (size_t v = 0; v < s.vars.size(); ++v) {
    const std::string var = "v" + std::to_string(v);
    c += "    for (int64_t " + var + " = " + str(s.vars[v].begin) + "; " + var + " < " +
         str(s.vars[v].end) + "; ++" + var + ") {\n";
    close += "    }\n";
  }
  c += body + close;
  if (track)
    c += "    free(written);\n";
  return c + "    t" + std::to_string(s.target) + " = " + out + ";\n  }\n";
}

} // namespace

std::string emit_c(const core::Kernel& k, const std::string& origin,
                   const std::map<std::string, core::Tensor>& constants) {
  std::string c =
      "/* " + origin +
      " as C, by teval emit --to c (docs/EMIT.md).\n"
      "   Usage: PROGRAM INPUT_DIR OUTPUT_DIR: reads INPUT_DIR/NAME.npy for each input,\n"
      "   writes OUTPUT_DIR/NAME.npy for each output, or on the program's error prints it\n"
      "   and exits 1 writing nothing.\n"
      "   It computes teval's interpreter's bits where the compiler keeps C's IEEE semantics,\n"
      "   and relies on: GNU C (statement expressions, __int128, __builtin_clzll: GCC or\n"
      "   Clang); float and double as IEEE binary32 and binary64 with FLT_EVAL_METHOD 0\n"
      "   (x86-64, AArch64) and rounding to nearest; no contraction of a * b + c into a\n"
      "   fused multiply-add (-ffp-contract=off; GCC ignores the pragma below) and no\n"
      "   -ffast-math; >> of a negative int64_t being arithmetic. exp, log, sin, pow and\n"
      "   the other library functions are the C library's, within an ulp of teval's own. */\n";
  c += detail::kCPrelude;
  for (size_t i = 0; i < k.tensors.size(); ++i)
    c += "static " + std::string(layout(k.tensors[i].dtype).storage) + "* t" + std::to_string(i) +
         "; /* " + k.tensors[i].name + " */\n";
  c += "\nint main(int argc, char** argv) {\n"
       "  if (argc != 3) {\n"
       "    fprintf(stderr, \"usage: %s INPUT_DIR OUTPUT_DIR\\n\", argv[0]);\n"
       "    return 2;\n"
       "  }\n";
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    const core::TensorDecl& d = k.tensors[i];
    if (d.role != core::TensorRole::Input)
      continue;
    const Layout l = layout(d.dtype);
    const std::string id = std::to_string(i);
    if (auto cst = constants.find(d.name); cst != constants.end()) {
      c += "  {\n    static " + std::string(l.storage) + " data[] = {";
      for (int64_t e = 0; e < cst->second.numel(); ++e) {
        core::Scalar v = cst->second.get(e);
        c += (e ? ", " : "") +
             stored(d.dtype, core::is_float(d.dtype) ? float_literal(v.f, d.dtype) : str(v.i));
      }
      c += std::string(cst->second.numel() ? "" : "0") + "};\n    t" + id + " = data;\n  }\n";
      continue;
    }
    c += "  {\n    static const int64_t shape[] = " + shape_array(d.shape) + ";\n    t" + id +
         " = read_npy(argv[1], " + core::json_string(d.name) + ", \"" + l.descr + "\", " +
         std::to_string(d.shape.size()) + ", shape, sizeof *t" + id + ");\n  }\n";
  }
  for (size_t s = 0; s < k.statements.size(); ++s)
    c += statement(k, k.statements[s], static_cast<int>(s));
  for (int o : k.outputs) {
    const core::TensorDecl& d = k.tensors[o];
    c += "  {\n    static const int64_t shape[] = " + shape_array(d.shape) +
         ";\n    write_npy(argv[2], " + core::json_string(d.name) + ", \"" + layout(d.dtype).descr +
         "\", " + std::to_string(d.shape.size()) + ", shape, t" + std::to_string(o) +
         ", sizeof *t" + std::to_string(o) + ");\n  }\n";
  }
  return c + "  return 0;\n}\n";
}

} // namespace teval::verify
