// The order a block evaluation may walk a statement's points in (see
// BlockEvaluator::with_output_row_innermost in block_eval.h).
#include "core/loopnest.h"
#include "interp/block_eval.h"

#include <algorithm>

namespace teval::interp::detail {

using core::Expr;
using core::ExprNode;
using core::Op;

namespace {

// Whether \p e is float arithmetic that never raises an error, its loads
// (not descended into) among \p in_range.
template <class Map> bool plain_float(const Expr& e, const Map& in_range) {
  if (std::holds_alternative<core::Load>(e->node))
    return in_range.count(e.get()) > 0;
  if (!core::is_float(e->dtype))
    return false;
  if (std::holds_alternative<core::Const>(e->node))
    return true;
  if (const auto* c = std::get_if<core::Cast>(&e->node))
    return core::is_float(c->value->dtype) && plain_float(c->value, in_range);
  const auto* a = std::get_if<core::Apply>(&e->node);
  if (!a)
    return false;
  switch (a->op) {
  case Op::Add:
  case Op::Sub:
  case Op::Mul:
  case Op::Div:
  case Op::Neg:
  case Op::Abs:
  case Op::Max:
  case Op::Min:
    break;
  default:
    return false;
  }
  return std::all_of(a->args.begin(), a->args.end(),
                     [&](const Expr& x) { return plain_float(x, in_range); });
}

} // namespace

std::optional<core::Statement> BlockEvaluator::with_output_row_innermost() const {
  const size_t nv = s_.vars.size();
  if (skip_ || !s_.constraints.empty() || !affine_target_ || nv < 2 || !s_.vars.back().reduce)
    return std::nullopt;
  if (!plain_float(s_.value, affine_loads_))
    return std::nullopt;
  // Each output is one data point's: its indices are the data variables.
  std::vector<bool> indexed(nv, false);
  for (const Expr& i : s_.out_index) {
    const auto* r = std::get_if<core::VarRef>(&i->node);
    if (!r || s_.vars[static_cast<size_t>(r->var)].reduce || indexed[static_cast<size_t>(r->var)])
      return std::nullopt;
    indexed[static_cast<size_t>(r->var)] = true;
  }
  for (size_t v = 0; v < nv; ++v)
    if (!s_.vars[v].reduce && !indexed[v])
      return std::nullopt;
  // The data variable the target's last dimension steps with.
  std::optional<size_t> row;
  for (size_t v = 0; v < nv; ++v) {
    if (s_.vars[v].reduce && affine_target_->coeff[v] != 0)
      return std::nullopt; // not a reduction into one location per output
    if (!s_.vars[v].reduce && affine_target_->coeff[v] == 1)
      row = v;
  }
  if (!row)
    return std::nullopt;
  bool strided = false;
  for (const auto& [load, a] : affine_loads_) {
    if (a.coeff[*row] != 0 && a.coeff[*row] != 1)
      return std::nullopt;
    strided |= a.coeff[nv - 1] < -1 || a.coeff[nv - 1] > 1;
  }
  if (!strided)
    return std::nullopt;
  // Variable v's new position: the others keep their order, row goes last.
  std::vector<int> position(nv);
  core::Statement moved = s_;
  moved.vars.clear();
  for (size_t v = 0; v < nv; ++v)
    if (v != *row) {
      position[v] = static_cast<int>(moved.vars.size());
      moved.vars.push_back(s_.vars[v]);
    }
  position[*row] = static_cast<int>(nv - 1);
  moved.vars.push_back(s_.vars[*row]);
  auto renumber = [&](const Expr& e) {
    return core::substitute(e, [&](const ExprNode& n, const core::VarRef& r) -> Expr {
      return core::make_var(position[static_cast<size_t>(r.var)], n.dtype, n.span);
    });
  };
  moved.value = renumber(s_.value);
  for (Expr& i : moved.out_index)
    i = renumber(i);
  return moved;
}

} // namespace teval::interp::detail
