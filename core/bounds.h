// What a loop nest can be proved never to do: the integer ranges of its
// index expressions over loops with known bounds, and from them whether a
// statement can raise an error at all (an out-of-range read or write, an
// integer division by zero, a trapping overflow, a shift past the width, a
// float that does not fit an integer, a Raise), whatever the input values.
// Conservative: "can fail" means "not proved unable to".
//
// Code that cannot fail may run its iterations in another order without
// changing any result or error (core/schedule.h relies on this).
#pragma once

#include "core/loopnest.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_set>

namespace teval::core {

/// The closed interval [lo, hi].
struct IntRange {
  int64_t lo = 0;
  int64_t hi = 0;
};

/// Whether \p s, run inside \p nest with every variable it uses but does
/// not bind in \p bound (a variable absent there is unknown), can never
/// raise an error.
bool cannot_fail(const LoopNest& nest, const Stmt& s,
                 const std::vector<std::optional<IntRange>>& bound = {});

/// The range checks of \p nest that can never fail: the Load nodes and
/// Store statements whose every index is proved in range wherever the nest
/// evaluates them (a node shared by two places must be proved in both);
/// and the overflow checks: the trapping integer +, -, * and negation
/// nodes whose result is proved to fit their dtype wherever they are
/// evaluated. Code generators leave these checks out.
/// And the integer divisions and remainders (Div, Mod) whose dividend is
/// proved >= 0 and divisor >= 1 wherever they are evaluated: truncating
/// and floored agree there, and they cannot fail (code generators divide
/// as unsigned integers, which folds `(x / n) * n + x % n` into x).
struct ProvenAccesses {
  std::unordered_set<const ExprNode*> loads;
  std::unordered_set<const StmtNode*> stores;
  std::unordered_set<const ExprNode*> arithmetic;
  std::unordered_set<const ExprNode*> natural_divisions;
};
ProvenAccesses proven_accesses(const LoopNest& nest);

/// Whether \p a and \p b compute the same value wherever neither fails:
/// the same structure, whether integer overflow traps or wraps aside.
bool same_value(const Expr& a, const Expr& b);

/// The range of an integer expression where a node is evaluated (from the
/// ranges of the loops and lets around it; what conditions say is left
/// out), or nothing when unknown. A known range is also a proof that the
/// expression's arithmetic does not overflow there.
using RangeOf = std::function<std::optional<IntRange>(const Expr&)>;
/// Calls \p f on every expression node \p s evaluates, parents first, with
/// the ranges where it is evaluated.
void each_node_in_scope(const LoopNest& nest, const Stmt& s,
                        const std::function<void(const Expr&, const RangeOf&)>& f);

} // namespace teval::core
