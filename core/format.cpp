// Text forms of values and kernels.
#include "core/format.h"

#include "core/error.h"
#include "core/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace teval::core {

std::string format_scalar(const Scalar& v) {
  if (is_complex(v.dtype)) { // as Python's repr of a complex: (1.5-2.0j)
    const DType part = complex_part(v.dtype);
    const bool minus = !std::isnan(v.im) && std::signbit(v.im);
    return "(" + format_scalar(Scalar::of_float(part, v.f)) + (minus ? "-" : "+") +
           format_scalar(Scalar::of_float(part, minus ? -v.im : v.im)) + "j)";
  }
  if (is_bool(v.dtype))
    return v.i ? "True" : "False";
  if (v.dtype == DType::UInt64)
    return std::to_string(static_cast<uint64_t>(v.i));
  if (!is_float(v.dtype))
    return std::to_string(v.i);
  if (std::isnan(v.f))
    return "nan";
  if (std::isinf(v.f))
    return v.f < 0 ? "-inf" : "inf";
  // The fewest significant digits that read back as the value, laid out as
  // Python's repr does: positional for decimal exponents in [-4, 16).
  char buf[64];
  int digits = 1;
  for (; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v.f);
    if (round_float(v.dtype, std::strtod(buf, nullptr)) == v.f)
      break;
  }
  int exponent = std::atoi(std::strchr(buf, 'e') + 1);
  if (exponent < -4 || exponent >= 16) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v.f);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.*f", std::max(digits - 1 - exponent, 1), v.f);
  return buf;
}

std::string format_element(const Tensor& t, int64_t at) {
  std::string s = format_scalar(t.get(at));
  if (t.dtype() == DType::Bool) {
    auto byte = std::to_integer<unsigned>(t.bytes()[static_cast<size_t>(at)]);
    if (byte > 1)
      s += " (stored as byte " + std::to_string(byte) + ")";
  }
  return s;
}

std::string format_point(const std::vector<IndexVar>& vars, const std::vector<int64_t>& point) {
  if (point.empty())
    return "the only point";
  std::string out;
  for (size_t i = 0; i < point.size(); ++i)
    out += (i ? ", " : "") + vars[i].name + "=" + std::to_string(point[i]);
  return out;
}

std::string format_index(const std::vector<int64_t>& index) {
  std::string out;
  for (size_t i = 0; i < index.size(); ++i)
    out += (i ? ", " : "") + std::to_string(index[i]);
  return out;
}

std::string read_out_of_range(const std::string& tensor, const std::string& index,
                              const Shape& shape, const std::string& point) {
  return "read out of range: " + tensor + "[" + index + "] is outside shape " + to_string(shape) +
         " (at " + point + "); guard it with .when(...)";
}

std::string write_out_of_range(const std::string& tensor, const std::string& index,
                               const Shape& shape, const std::string& point) {
  return "write out of range: " + tensor + "[" + index + "] is outside shape " + to_string(shape) +
         " (at " + point + ")";
}

namespace {

class Printer {
public:
  Printer(const NameOf& var_name, const NameOf& tensor_name, bool c_style = false)
      : var_name_(var_name), tensor_name_(tensor_name), c_style_(c_style) {}

  std::string print(const Expr& e) {
    return std::visit([&](const auto& n) { return node(*e, n); }, e->node);
  }

private:
  std::string list(const std::vector<Expr>& es) {
    std::string out;
    for (size_t i = 0; i < es.size(); ++i)
      out += (i ? ", " : "") + print(es[i]);
    return out;
  }
  std::string node(const ExprNode&, const Const& c) {
    std::string v = format_scalar(c.value);
    if (c.value.dtype == DType::Int32 || c.value.dtype == DType::Float32 ||
        (c_style_ && c.value.dtype == DType::Int64))
      return v;
    return std::string(name(c.value.dtype)) + "(" + v + ")";
  }
  std::string node(const ExprNode&, const VarRef& v) { return var_name_(v.var); }
  std::string node(const ExprNode&, const Load& l) {
    if (!c_style_)
      return tensor_name_(l.tensor) + "[" + list(l.index) + "]";
    std::string out = tensor_name_(l.tensor);
    for (const Expr& i : l.index) {
      std::string text = print(i);
      bool binary =
          text.front() == '(' && text.back() == ')' && std::holds_alternative<Apply>(i->node);
      out += "[" + (binary ? text.substr(1, text.size() - 2) : text) + "]";
    }
    return out;
  }
  std::string node(const ExprNode& n, const Apply& a) {
    std::string op(spelling(a.op));
    std::string trap = a.overflow == Overflow::Trap ? "!" : "";
    if (a.args.size() == 2 && !std::isalpha(static_cast<unsigned char>(op[0])))
      return "(" + print(a.args[0]) + " " + op + trap + " " + print(a.args[1]) + ")";
    std::string result;
    if (rule(a.op) == OpRule::Compare || rule(a.op) == OpRule::Logical ||
        rule(a.op) == OpRule::FloatToInt)
      result = "<" + std::string(name(n.dtype)) + ">";
    return op + trap + result + "(" + list(a.args) + ")";
  }
  std::string node(const ExprNode& n, const Cast& c) {
    return "cast<" + std::string(name(n.dtype)) + ">(" + print(c.value) + ")";
  }
  std::string node(const ExprNode&, const Select& s) {
    return "select(" + print(s.cond) + ", " + print(s.then) + ", " + print(s.otherwise) + ")";
  }

  const NameOf& var_name_;
  const NameOf& tensor_name_;
  bool c_style_;
};

// The names of a statement's variables and a kernel's tensors.
struct KernelNames {
  NameOf var;
  NameOf tensor;
  KernelNames(const Kernel& k, const Statement& s)
      : var([&s](int v) { return s.vars[v].name; }),
        tensor([&k](int t) { return k.tensors[t].name; }) {}
};

} // namespace

std::string to_string(const Expr& e, const NameOf& var_name, const NameOf& tensor_name,
                      bool c_style) {
  return Printer(var_name, tensor_name, c_style).print(e);
}

std::string to_string(const Kernel& k, const Statement& s, const Expr& e) {
  KernelNames names(k, s);
  return to_string(e, names.var, names.tensor);
}

std::string to_string(const Kernel& k) {
  std::string out;
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    const TensorDecl& t = k.tensors[i];
    out += std::string(spelling(t.role)) + " %" + std::to_string(i) + " " + t.name + ": " +
           std::string(name(t.dtype)) + to_string(t.shape) + "\n";
  }
  for (const Statement& s : k.statements) {
    const TensorDecl& target = k.tensors[s.target];
    KernelNames names(k, s);
    Printer p(names.var, names.tensor);
    out += "%" + std::to_string(s.target) + " " + target.name + "[";
    for (size_t i = 0; i < s.out_index.size(); ++i)
      out += (i ? ", " : "") + p.print(s.out_index[i]);
    out += "] " + std::string(spelling(s.aggregation)) + "= " + p.print(s.value) + "\n";
    out += "  for";
    for (const IndexVar& v : s.vars)
      out += " " + v.name + (v.reduce ? "~" : "") + " in [" + std::to_string(v.begin) + ", " +
             std::to_string(v.end) + ")";
    out += "\n";
    for (const Constraint& c : s.constraints)
      out += "  where 0 <= " + p.print(c.expr) + " < " + std::to_string(c.bound) + "\n";
    out += "  start ";
    if (s.init_from)
      out += "copy of %" + std::to_string(*s.init_from);
    else
      out += format_scalar(s.init);
    out += s.start == Start::Init ? ", accumulate from it" : ", accumulate from the first value";
    out += s.out_of_range == OutOfRange::Error ? ", out-of-range is an error"
                                               : ", out-of-range points are skipped";
    if (s.aggregation == Aggregation::Assign)
      out += s.conflict == WriteConflict::Error ? ", rewrites are errors"
                                                : ", rewrites must be identical";
    out += "\n";
  }
  out += "outputs:";
  for (int o : k.outputs)
    out += " " + k.tensors[o].name;
  return out + "\n";
}

} // namespace teval::core
