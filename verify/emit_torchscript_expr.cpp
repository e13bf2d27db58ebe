// The expressions of a program as TorchScript (see emit_torchscript.cpp):
// each node a tensor over the statement's grid, with the conditions under
// which computing it is an error or skips its point.
#include "core/error.h"
#include "verify/emit.h"
#include "verify/emit_torchscript_body.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace teval::verify::torchscript {

std::string torch_dtype(DType t) {
  switch (t) {
  case DType::Float16:
    return "torch.float16";
  case DType::BFloat16:
    return "torch.bfloat16";
  case DType::Float32:
    return "torch.float32";
  case DType::Float64:
    return "torch.float64";
  default:
    return "torch.int64";
  }
}

} // namespace teval::verify::torchscript

namespace teval::verify::python {

std::string int_literal(int64_t v) {
  return v == INT64_MIN ? "(-9223372036854775807 - 1)" : std::to_string(v);
}

std::string float_literal(double v) {
  if (std::isnan(v))
    return "math.nan";
  if (std::isinf(v))
    return v > 0 ? "math.inf" : "-math.inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

} // namespace teval::verify::python

namespace teval::verify::torchscript {

std::string int_form(DType t) {
  if (t == DType::Bool)
    return "1, False";
  return std::to_string(core::bit_width(t)) + ", " +
         (core::kind(t) == core::DTypeKind::Signed ? "True" : "False");
}

std::string list(const std::vector<int64_t>& v) {
  if (v.empty())
    return "torch.jit.annotate(List[int], [])";
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

Value StatementWriter::node(const core::ExprNode&, const core::Load& l) {
  const core::TensorDecl& t = k_.tensors[l.tensor];
  const std::string tensor = "t" + std::to_string(l.tensor);
  Value v;
  // Each index its own variable, within the dimension: a slice, permuted
  // onto the grid's axes.
  bool sliced = true;
  std::vector<int> axes;
  for (size_t d = 0; d < l.index.size(); ++d) {
    const auto* r = std::get_if<core::VarRef>(&l.index[d]->node);
    const bool distinct = r && std::find(axes.begin(), axes.end(), r->var) == axes.end();
    if (!distinct || !(s_.vars[r->var].end <= s_.vars[r->var].begin ||
                       (s_.vars[r->var].begin >= 0 && s_.vars[r->var].end <= t.shape[d]))) {
      sliced = false;
      break;
    }
    axes.push_back(r->var);
  }
  if (sliced) {
    std::string slice = tensor;
    if (!axes.empty()) {
      slice += "[";
      for (size_t d = 0; d < axes.size(); ++d) {
        const core::IndexVar& iv = s_.vars[axes[d]];
        slice += (d ? ", " : "") + std::to_string(iv.begin) + ":" +
                 std::to_string(std::max(iv.begin, iv.end));
      }
      slice += "]";
      std::vector<int64_t> order(axes.size());
      for (size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int64_t>(i);
      std::sort(order.begin(), order.end(),
                [&](int64_t a, int64_t b) { return axes[a] < axes[b]; });
      std::vector<int64_t> view(grid_.size(), 1);
      for (int a : axes)
        view[a] = grid_[a];
      slice += ".permute(" + list(order) + ").reshape(" + list(view) + ")";
    }
    v.var = let(slice);
    return v;
  }
  std::string flat, outside;
  int64_t stride = 1;
  for (size_t d = l.index.size(); d-- > 0;) {
    Value i = value(l.index[d]);
    v.conds.insert(v.conds.end(), i.conds.begin(), i.conds.end());
    const std::string n = std::to_string(t.shape[d]);
    const std::string term = "torch.clamp(" + i.var + ", 0, " + std::to_string(t.shape[d] - 1) +
                             ") * " + std::to_string(stride);
    flat = flat.empty() ? term : term + " + " + flat;
    const std::string out = "(" + i.var + " < 0) | (" + i.var + " >= " + n + ")";
    outside = outside.empty() ? out : outside + " | " + out;
    stride *= t.shape[d];
  }
  if (!outside.empty()) {
    const std::string oor = let(outside);
    if (skip())
      out_of_range_.push_back(oor);
    else
      v.conds.push_back({oor, "read out of range of " + t.name});
  }
  if (l.index.empty())
    v.var = tensor;
  else if (core::checked_numel(t.shape).value_or(0) == 0) // every read is out of range
    v.var = let("torch.zeros_like(" + flat + ").to(" + tensor + ".dtype)");
  else
    v.var = let(tensor + ".reshape([-1])[" + flat + "]");
  return v;
}

Value StatementWriter::to_integer(const std::string& x, DType t, std::vector<Cond> conds) {
  const std::string d = let("torch.trunc(" + x + ".to(torch.float64))");
  const bool is_signed = core::kind(t) == core::DTypeKind::Signed;
  const int bits = core::bit_width(t);
  const std::string lo = float_literal(is_signed ? -std::ldexp(1.0, bits - 1) : 0.0);
  const std::string hi = float_literal(std::ldexp(1.0, is_signed ? bits - 1 : bits));
  const std::string finite = let("torch.isfinite(" + d + ")");
  const std::string fits = let("(" + d + " >= " + lo + ") & (" + d + " < " + hi + ")");
  conds.push_back({let("~" + finite), "a float that is NaN or infinite converted to an integer"});
  conds.push_back(
      {let(finite + " & ~" + fits), "a float converted to an integer that does not fit"});
  return {let("torch.where(" + fits + ", " + d + ", torch.zeros_like(" + d + ")).to(torch.int64)"),
          conds};
}

Value StatementWriter::node(const core::ExprNode& e, const core::Cast& c) {
  const DType from = c.value->dtype, to = e.dtype;
  Value v = value(c.value);
  if (from == to)
    return v;
  if (to == DType::Bool)
    return {let("(" + v.var + " != 0).to(torch.int64)"), v.conds};
  if (!core::is_float(to)) {
    if (core::is_float(from))
      return to_integer(v.var, to, v.conds);
    return {fix(v.var, to, false, v.conds), v.conds};
  }
  const std::string dt = torch_dtype(to);
  if (!core::is_float(from)) {
    if (to == DType::BFloat16 && from == DType::Int64)
      throw Inexpressible{"an int64 converted to bfloat16 (torch rounds it through float32, "
                          "twice; a value within 2^53 would be exact through float64)"};
    // int64 and float32 round once; every integer that float32 rounds is
    // beyond float16's range.
    if (to == DType::BFloat16)
      return {let("_narrow(" + v.var + ".to(torch.float64), torch.bfloat16)"), v.conds};
    if (to == DType::Float16)
      return {let(v.var + ".to(torch.float32).to(torch.float16)"), v.conds};
    return {let(v.var + ".to(" + dt + ")"), v.conds};
  }
  if (narrow(to) && from == DType::Float64)
    return {let("_narrow(" + v.var + ", " + dt + ")"), v.conds};
  if (narrow(to) && narrow(from))
    return {let(v.var + ".to(torch.float32).to(" + dt + ")"), v.conds};
  return {let(v.var + ".to(" + dt + ")"), v.conds};
}

Value StatementWriter::node(const core::ExprNode&, const core::Select& s) {
  Value c = value(s.cond), a = value(s.then), b = value(s.otherwise);
  const std::string taken = let(c.var + " != 0"), other = let("~" + taken);
  Value v{let("torch.where(" + taken + ", " + a.var + ", " + b.var + ")"), c.conds};
  under(taken, a.conds, v.conds);
  under(other, b.conds, v.conds);
  return v;
}

Value StatementWriter::node(const core::ExprNode& e, const core::Apply& a) {
  using core::Op;
  Value x = value(a.args[0]);
  if (a.op == Op::And || a.op == Op::Or) {
    Value y = value(a.args[1]);
    const std::string first = let(x.var + " != 0");
    Value v{let("(" + first + (a.op == Op::And ? " & " : " | ") + "(" + y.var +
                " != 0)).to(torch.int64)"),
            x.conds};
    under(a.op == Op::And ? first : let("~" + first), y.conds, v.conds);
    return v;
  }
  if (a.op == Op::Not)
    return {let("(" + x.var + " == 0).to(torch.int64)"), x.conds};
  if (a.op == Op::Floor || a.op == Op::Ceil)
    return to_integer(let(std::string(a.op == Op::Floor ? "torch.floor(" : "torch.ceil(") + x.var +
                          ".to(torch.float64))"),
                      e.dtype, x.conds);
  Value y;
  if (a.args.size() > 1) {
    y = value(a.args[1]);
    x.conds.insert(x.conds.end(), y.conds.begin(), y.conds.end());
  }
  switch (a.op) {
  case Op::Lt:
  case Op::Le:
  case Op::Gt:
  case Op::Ge:
  case Op::Eq:
  case Op::Ne:
    return {let("(" + x.var + " " + std::string(core::spelling(a.op)) + " " + y.var +
                ").to(torch.int64)"),
            x.conds};
  case Op::Same:
    return {let(core::is_float(a.args[0]->dtype)
                    ? "_same(" + x.var + ", " + y.var + ").to(torch.int64)"
                    : "(" + x.var + " == " + y.var + ").to(torch.int64)"),
            x.conds};
  default:
    break;
  }
  return core::is_float(e.dtype) ? floating(a, e.dtype, x, y) : integer(a, e.dtype, x, y);
}

Value StatementWriter::integer(const core::Apply& a, DType t, const Value& xv, const Value& yv) {
  using core::Op;
  const std::string& x = xv.var;
  const std::string& y = yv.var;
  std::vector<Cond> conds = xv.conds;
  const bool trap = a.overflow == core::Overflow::Trap;
  const bool wide = core::bit_width(t) == 64;
  const std::string min = int_literal(INT64_MIN);
  // A 64-bit result that overflowed, where the dtype traps it.
  auto overflow = [&](const std::string& condition) {
    if (trap && wide)
      conds.push_back({let(condition), "integer overflow in index arithmetic"});
  };
  // y with 0 and -1 replaced by 1, so that dividing by it is defined.
  auto divisor = [&] {
    return let("torch.where((" + y + " == 0) | (" + y + " == -1), torch.ones_like(" + y + "), " +
               y + ")");
  };
  std::string r;
  switch (a.op) {
  case Op::Neg:
  case Op::Abs:
    r = let(a.op == Op::Neg ? "0 - " + x : "torch.where(" + x + " < 0, 0 - " + x + ", " + x + ")");
    overflow("(" + x + " == " + min + ")");
    break;
  case Op::Add:
    r = let(x + " + " + y);
    overflow("((" + x + " ^ " + r + ") & (" + y + " ^ " + r + ")) < 0");
    break;
  case Op::Sub:
    r = let(x + " - " + y);
    overflow("((" + x + " ^ " + y + ") & (" + x + " ^ " + r + ")) < 0");
    break;
  case Op::Mul: {
    r = let(x + " * " + y);
    if (trap && wide) {
      const std::string d = divisor();
      overflow("((" + y + " == -1) & (" + x + " == " + min + ")) | ((" + y + " != 0) & (" + y +
               " != -1) & (torch.div(" + r + ", " + d + ", rounding_mode=\"trunc\") != " + x +
               "))");
    }
    break;
  }
  case Op::Div:
  case Op::ExactDiv: {
    const std::string d = divisor();
    conds.push_back({let(y + " == 0"), a.op == Op::Div
                                           ? "integer division by zero"
                                           : "division by zero in an index expression"});
    if (a.op == Op::ExactDiv)
      conds.push_back({let("(" + y + " != 0) & (torch.fmod(" + x + ", " + d + ") != 0)"),
                       skip() ? "" : "fractional index"});
    r = let("torch.where(" + y + " == -1, 0 - " + x + ", torch.div(" + x + ", " + d +
            ", rounding_mode=\"trunc\"))");
    overflow("(" + y + " == -1) & (" + x + " == " + min + ")");
    break;
  }
  case Op::Mod:
    conds.push_back({let(y + " == 0"), "integer modulo by zero"});
    return {let("torch.remainder(" + x + ", " + divisor() + ")"), conds};
  case Op::Max:
    return {let("torch.maximum(" + x + ", " + y + ")"), conds};
  case Op::Min:
    return {let("torch.minimum(" + x + ", " + y + ")"), conds};
  case Op::Shl:
  case Op::Shr: {
    const int bits = core::bit_width(t);
    const std::string bad = let("(" + y + " < 0) | (" + y + " >= " + std::to_string(bits) + ")");
    conds.push_back({bad, "shift amount out of range"});
    const std::string amount =
        let("torch.where(" + bad + ", torch.zeros_like(" + y + "), " + y + ")");
    if (a.op == Op::Shr)
      return {let(x + " >> " + amount), conds};
    return {fix(let(x + " << " + amount), t, false, conds), conds};
  }
  default:
    TEVAL_UNREACHABLE("not an integer operator: " + std::string(core::spelling(a.op)));
  }
  return {fix(r, t, trap, conds), conds};
}

Value StatementWriter::floating(const core::Apply& a, DType t, const Value& xv, const Value& yv) {
  using core::Op;
  // float16 and bfloat16 are computed in float32 and rounded once.
  const std::string cast = narrow(t) ? ".to(torch.float32)" : "";
  const std::string x = xv.var + cast;
  const std::string y = yv.var.empty() ? "" : yv.var + cast;
  std::string r;
  switch (a.op) {
  case Op::Add:
  case Op::Sub:
  case Op::Mul:
  case Op::Div:
    r = "(" + x + " " + std::string(core::spelling(a.op)) + " " + y + ")";
    break;
  case Op::Mod:
    r = "_floor_mod(" + x + ", " + y + ")";
    break;
  case Op::Max:
    r = "_fmax(" + x + ", " + y + ")";
    break;
  case Op::Min:
    r = "_fmin(" + x + ", " + y + ")";
    break;
  case Op::Pow:
    r = "torch.pow(" + x + ", " + y + ")";
    break;
  case Op::Atan2:
    r = "torch.atan2(" + x + ", " + y + ")";
    break;
  case Op::Cbrt:
    throw Inexpressible{"cbrt (torch has no cube root; pow(x, 1/3) is NaN below 0)"};
  case Op::NormCdf:
    r = "torch.special.ndtr(" + x + ")";
    break;
  case Op::Frac:
    r = "(" + x + " - torch.floor(" + x + "))";
    break;
  case Op::RFloor:
    r = "torch.floor(" + x + ")";
    break;
  case Op::RCeil:
    r = "torch.ceil(" + x + ")";
    break;
  default:
    r = "torch." + std::string(core::spelling(a.op)) + "(" + x + ")";
    break;
  }
  if (narrow(t))
    r += ".to(" + torch_dtype(t) + ")";
  return {let(r), xv.conds};
}

} // namespace teval::verify::torchscript
