// What the TorchScript emitter's two files share (see emit_torchscript.h):
// the writer of one statement's code and the spellings it uses.
#pragma once

#include "core/kernel.h"
#include "verify/emit.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace teval::verify::torchscript {

using core::DType;
using core::Expr;

/// The torch dtype of a value of \p t: integers and bool are int64.
std::string torch_dtype(DType t);
/// float16 or bfloat16, computed in float32 and rounded.
inline bool narrow(DType t) {
  return t == DType::Float16 || t == DType::BFloat16;
}
using python::float_literal;
using python::int_literal;
/// The width and signedness _wrap and _fits take ("8, True").
std::string int_form(DType t);
/// A List[int] (TorchScript types an empty [] as List[Tensor]).
std::string list(const std::vector<int64_t>& v);

// A condition on the points: an error (`what`) or, with `what` empty, a
// point skipped.
struct Cond {
  std::string var;
  std::string what;
};

// A value of an expression at every point, with the conditions under which
// evaluating it is an error or skips the point.
struct Value {
  std::string var;
  std::vector<Cond> conds;
};

class StatementWriter {
public:
  StatementWriter(const core::Kernel& k, const core::Statement& s, std::string& code, int& counter)
      : k_(k), s_(s), code_(code), counter_(counter) {}

  void write(int number);

private:
  bool skip() const { return s_.out_of_range == core::OutOfRange::Skip; }
  // Whether the fold tracks which elements were written (a first-value
  // start, or assignments that may collide).
  bool tracked() const {
    return s_.start == core::Start::FirstValue ||
           (s_.aggregation == core::Aggregation::Assign && !core::injective(s_));
  }

  std::string let(const std::string& rhs) {
    std::string name = "x" + std::to_string(counter_++);
    code_ += "    " + name + " = " + rhs + "\n";
    return name;
  }

  // \p conds, true only where \p guard is (a relative condition inside a
  // branch), appended to \p into.
  void under(const std::string& guard, const std::vector<Cond>& conds, std::vector<Cond>& into) {
    for (const Cond& c : conds)
      into.push_back({let(c.var + " & " + guard), c.what});
  }

  Value value(const Expr& e) {
    if (auto it = memo_.find(e.get()); it != memo_.end())
      return it->second;
    Value v = std::visit([&](const auto& n) { return node(*e, n); }, e->node);
    memo_.emplace(e.get(), v);
    return v;
  }

  // An int64 result \p r of dtype \p t: wrapped to it, or with \p trap an
  // error where it does not fit (64-bit overflow is the operator's).
  std::string fix(const std::string& r, DType t, bool trap, std::vector<Cond>& conds) {
    if (t != DType::Bool && core::bit_width(t) == 64)
      return r;
    if (trap)
      conds.push_back(
          {let("~_fits(" + r + ", " + int_form(t) + ")"), "integer overflow in index arithmetic"});
    return let("_wrap(" + r + ", " + int_form(t) + ")");
  }

  Value node(const core::ExprNode& e, const core::Const& c) {
    if (core::is_float(e.dtype))
      return {let("torch.scalar_tensor(" + float_literal(c.value.f) +
                  ", dtype=" + torch_dtype(e.dtype) + ")"),
              {}};
    return {let("torch.scalar_tensor(" + int_literal(c.value.i) + ", dtype=torch.int64)"), {}};
  }

  Value node(const core::ExprNode& e, const core::VarRef& r) {
    const core::IndexVar& v = s_.vars[r.var];
    const std::string name = "v" + std::to_string(r.var);
    const bool fits = v.end <= v.begin ||
                      (v.begin >= core::int_min(e.dtype) && v.end - 1 <= core::int_max(e.dtype));
    return {fits ? name : let("_wrap(" + name + ", " + int_form(e.dtype) + ")"), {}};
  }

  Value node(const core::ExprNode& e, const core::Load& l);
  Value node(const core::ExprNode& e, const core::Cast& c);
  Value node(const core::ExprNode& e, const core::Select& s);
  Value node(const core::ExprNode& e, const core::Apply& a);
  Value integer(const core::Apply& a, DType t, const Value& x, const Value& y);
  Value floating(const core::Apply& a, DType t, const Value& x, const Value& y);
  // float \p x (any float dtype) truncated or floored to integer dtype \p t.
  Value to_integer(const std::string& x, DType t, std::vector<Cond> conds);
  // The fold of value \p v into accumulator \p acc in dtype \p t.
  std::string combine(DType t, const std::string& acc, const std::string& v) const;
  // One step of the fold: \p acc updated with \p v where \p mask holds
  // (everywhere when empty); \p written: where a value was folded before.
  std::string step(const std::string& acc, const std::string& v, const std::string& mask,
                   const std::string& written, const std::string& indent);
  void fold_plain(const std::string& v, const std::string& mask, const std::string& fill,
                  const std::vector<int>& axes);
  void fold_points(const std::string& v, const std::string& mask, const std::string& fill,
                   const std::vector<Value>& out);

  const core::Kernel& k_;
  const core::Statement& s_;
  std::string& code_;
  int& counter_;
  std::unordered_map<const core::ExprNode*, Value> memo_;
  std::vector<std::string> out_of_range_; // under Skip: reads whose point is skipped
  std::vector<int64_t> grid_;
};

} // namespace teval::verify::torchscript
