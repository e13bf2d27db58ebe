// Helpers the loop transformations share (core/transform*.cpp); not part
// of core's interface.
#pragma once

#include "core/bounds.h"
#include "core/loopnest.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace teval::core::detail {

/// Sets *why (when given) to \p reason; false.
bool fail(std::string* why, std::string reason);

/// \p e is variable \p var, or an integer cast of it that keeps every value
/// of the variable's range [lo, hi] (when known) distinct.
bool whole_index(const Expr& e, int var, std::optional<std::pair<int64_t, int64_t>> range);

/// The value of an integer constant, or nothing.
std::optional<int64_t> constant(const Expr& e);

/// \p s rebuilt bottom-up; \p f may replace any statement (returning null
/// keeps it and descends into it).
Stmt map_stmt(const Stmt& s, const std::function<Stmt(const Stmt&)>& f);

/// \p root with the loop over \p var replaced by f(loop).
Stmt replace_loop_in(const Stmt& root, int var, const std::function<Stmt(const For&)>& f);

/// \p s with each expression node replaced by \p f(node) where that is
/// not null (core::replace on every expression of every statement, with
/// \p memo when given).
Stmt map_exprs(const Stmt& s, const std::function<Expr(const Expr&)>& f, ExprMemo* memo = nullptr);

/// \p nest with the top-level statement that holds loop \p var replaced by
/// the statements \p f makes of it (f may add variables and buffers to the
/// nest it is given); nothing when f refuses or no statement holds the
/// loop.
std::optional<LoopNest>
rewrite_top(const LoopNest& nest, int var, std::string* why,
            const std::function<std::optional<std::vector<Stmt>>(LoopNest&, const Stmt&)>& f);

/// Whether \p s (or a statement below it) reads \p buffer.
bool reads_buffer(const Stmt& s, int buffer);
/// Whether \p s reads, stores, allocates or frees \p buffer.
bool touches_buffer(const Stmt& s, int buffer);

/// For a list of statements, which of them touch each buffer (as
/// touches_buffer says), found in one walk of each: the searches for a
/// buffer's next use stay linear in the statements (5,000 temporaries'
/// searches one after another were quadratic, seconds of a compile).
class BufferTouches {
public:
  explicit BufferTouches(const std::vector<Stmt>& stmts);
  /// The first statement after \p i that touches \p buffer, or the
  /// number of statements when none does.
  size_t next(int buffer, size_t i) const;

private:
  std::map<int, std::vector<size_t>> at_; // ascending
  size_t size_;
};

/// The store of \p s when \p s writes every element of its buffer without
/// reading it: a chain of loops with constant nonempty bounds and lets
/// around one unguarded store whose index is, dimension by dimension, a
/// distinct loop's variable ranging over exactly that extent. Else null.
const Store* covering_store(const LoopNest& nest, const Stmt& s);

/// Loops over [lo_d, hi_d] for each dimension d of \p box (fresh int64
/// variables named \p prefix and d, added to \p nest) around store(vars).
Stmt box_loops(LoopNest& nest, const std::string& prefix, const std::vector<IntRange>& box,
               const std::function<Stmt(const std::vector<Expr>&)>& store);

/// Whether \p v, a value of dtype \p t, is all zero bits (what Allocate holds).
bool zero_bits(const Scalar& v, DType t);

/// \p nest with \p root as its root, or nothing without one.
std::optional<LoopNest> with_root(const LoopNest& nest, std::optional<Stmt> root);

} // namespace teval::core::detail
