// Index expressions as affine functions of a statement's index variables:
// what the interpreter's block evaluator and the contraction plan
// (interp/contraction.h) step through a box without evaluating nodes.
#pragma once

#include "core/kernel.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace teval::interp {

/// constant + Σ coeff[v]·(variable v).
struct Affine {
  int64_t constant = 0;
  std::vector<int64_t> coeff;
};

/// \p e as an affine function of the index variables \p vars: sums,
/// differences, negations and constant multiples of constants and
/// variables (and integer casts of them), when neither \p e nor any part
/// of it leaves its dtype anywhere in the box of \p vars, so that no step
/// wraps or traps. Nothing otherwise, or when the box is empty.
std::optional<Affine> affine(const core::Expr& e, const std::vector<core::IndexVar>& vars);

/// The smallest and largest value of \p a over the box of \p vars.
std::pair<__int128, __int128> affine_range(const Affine& a,
                                           const std::vector<core::IndexVar>& vars);

/// One conjunct of a condition: `difference op 0`.
struct Comparison {
  core::Op op;
  Affine difference;
};

/// \p cond as a conjunction (`&&`) of comparisons of affine operands whose
/// difference fits int64 over the box of \p vars (a `.when` guard, as a
/// padded window reads), or nothing.
std::optional<std::vector<Comparison>> conjunction(const core::Expr& cond,
                                                   const std::vector<core::IndexVar>& vars);

/// Whether \p c holds where the affine values are \p difference.
inline bool holds(core::Op op, int64_t difference) {
  switch (op) {
  case core::Op::Lt:
    return difference < 0;
  case core::Op::Le:
    return difference <= 0;
  case core::Op::Gt:
    return difference > 0;
  case core::Op::Ge:
    return difference >= 0;
  case core::Op::Eq:
    return difference == 0;
  default:
    return difference != 0; // Ne
  }
}

} // namespace teval::interp
