// Internal to the interpreter: evaluation of a run of consecutive index
// points at once.
//
// The definitional evaluator (interpreter.cpp) walks one point at a time.
// This one computes the same values for up to kBlock consecutive points
// (row-major order, crossing loop boundaries) one expression node at a time,
// so each node is dispatched once per block instead of once per point. It
// stays lazy: a Select evaluates each branch only for the points that choose
// it, And/Or their right operand only where needed. It never reports an
// error itself: at the first sign of one (an out-of-range access, a Fault
// from the arithmetic) it gives up on the block, and the caller replays the
// block point by point with the definitional evaluator, which reports the
// first error in iteration order exactly as it would have anyway. Every
// value it computes goes through the same scalar operations (or loops that
// perform the identical computation), so results are bit-identical.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"
#include "interp/affine.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace teval::interp::detail {

/// Element \p flat of an array of T at \p p.
template <class T> T read(const std::byte* p, int64_t flat) {
  T v;
  std::memcpy(&v, p + flat * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

class BlockEvaluator {
public:
  static constexpr int kBlock = 256;

  /// \p tensors maps tensor ids to their current values (null when not yet
  /// computed; the statement reads only computed ones).
  BlockEvaluator(const core::Statement& s, const std::vector<const core::Tensor*>& tensors,
                 const core::Shape& target_shape);

  /// Evaluates the \p count points starting at \p start (one value per index
  /// variable). Returns false when the block must be replayed point by point.
  bool evaluate(const std::vector<int64_t>& start, int count);

  /// The statement with its target's last index variable moved innermost,
  /// when its points may be evaluated in that order: a reduction that
  /// cannot fail (no constraints; every read and the write affine and in
  /// range over the whole box; float + - * /, neg, abs, max, min and float
  /// casts only) whose reads step by 0 or 1 element along that variable
  /// and at least one of them with a stride along the innermost one (a
  /// matmul's B, read down a column). Each output still receives its
  /// values in the original order; only outputs interleave.
  std::optional<core::Statement> with_output_row_innermost() const;

  /// After evaluate(): the positions of the block's valid points, in order —
  /// every point, unless the statement skips invalid ones (Tile).
  const std::vector<int32_t>& selected() const { return *selected_; }
  /// After evaluate(): the flat target position and the value of point k.
  int64_t flat(int k) const { return flat_[k]; }
  core::Scalar value(int k) const;
  /// The value of point k of a floating-point statement, as a double.
  double float_value(int k) const { return value_->f[k]; }

private:
  struct Column {
    std::vector<int64_t> i;
    std::vector<double> f;
  };
  using Selection = std::vector<int32_t>;

  struct GiveUp {};

  /// Calls \p f for each position of \p sel; the whole block as a plain
  /// counted loop, which the compiler can vectorise.
  template <class F> void each(const Selection& sel, F f) const {
    if (&sel == &all_) {
      for (int32_t k = 0; k < count_; ++k)
        f(k);
    } else {
      for (int32_t k : sel)
        f(k);
    }
  }

  // A guarded read: `select(c, t[i...], k)` where c is a conjunction (&&)
  // of comparisons of affine index expressions, every index is affine
  // (neither need stay in range) and k is a constant, as a padded
  // convolution's `.when` reads its window. Evaluated in one pass over the
  // points from the variables' columns, without a column per comparison or
  // a selection per branch. A point whose condition holds and whose read is
  // out of range gives the block up (the replay reports the error); the
  // comparisons cannot fail, so evaluating them all, not lazily, is the same.
  struct Linear {
    int64_t constant = 0;
    std::vector<std::pair<int, int64_t>> terms; // (variable, coefficient)
    // The change in value from a point to the next when variable v steps
    // and the variables inside it start again (the block's row-major walk).
    std::vector<int64_t> step;
  };
  // The values of \p l at the points of \p sel, into \p out.
  void linear_values(const Linear& l, const Selection& sel, std::vector<int64_t>& out);
  // For the whole block: the variable that steps from each point to the
  // next (-1 at the first), computed once per block.
  std::vector<int> stepping_;
  int64_t stepping_block_ = -1;
  std::vector<std::vector<int64_t>> linear_scratch_;
  struct Comparison {
    core::Op op;
    Linear difference; // lhs - rhs, compared with 0
  };
  struct GuardedRead {
    std::vector<Comparison> conditions;
    std::vector<Linear> index;
    int tensor = 0;
    core::Scalar otherwise;
    // When the conditions bound every index that can leave its extent
    // (`i >= 0`, `i < n` as a padded window's guard reads): the flat
    // position, read where the conditions hold without further checks.
    std::optional<Linear> flat;
  };
  std::optional<GuardedRead> guarded_read(const core::Select& s) const;
  std::optional<Linear> linear(const core::Expr& e) const;
  void finish(Linear& l) const;
  void guarded(const GuardedRead& g, const Selection& sel, Column& out);
  std::unordered_map<const core::ExprNode*, GuardedRead> guarded_;

  const Column& eval(const core::Expr& e, const Selection& sel);
  int slot(const core::Expr& e, std::map<std::string, int>& by_key);
  void load(const core::ExprNode& e, const core::Load& l, const Selection& sel, Column& out);
  void apply(const core::ExprNode& e, const core::Apply& a, const Selection& sel, Column& out);
  void logical(const core::ExprNode& e, const core::Apply& a, const Selection& sel, Column& out);

  const core::Statement& s_;
  const std::vector<const core::Tensor*>& tensors_;
  std::vector<int64_t> target_strides_;
  core::Shape target_shape_;
  std::vector<Column> vars_; // the values of each index variable
  // Structurally equal nodes (the same index expression written in a guard
  // and in a subscript, say) share one column, computed once per block when
  // it is needed for every point: evaluation is pure, so this is only reuse.
  std::unordered_map<const core::ExprNode*, int> slot_of_;
  std::vector<Column> slots_;
  std::vector<int64_t> done_; // the block a slot was computed for, for all points
  int64_t block_ = 0;
  std::deque<Selection> scratch_; // a deque: nested evaluation grows it
  size_t scratch_used_ = 0;
  Selection all_;
  int32_t count_ = 0;
  std::vector<int64_t> flat_;
  const Column* value_ = nullptr;
  // Under OutOfRange::Skip: the value's loads (inner ones first), which
  // positions had an inexact index division, and the valid positions.
  bool skip_ = false;
  std::vector<const core::ExprNode*> loads_;
  std::vector<char> inexact_;
  Selection valid_;
  const Selection* selected_ = nullptr;

  /// Narrows the block to the points whose index points satisfy the
  /// constraints and whose accesses are all in range and integral.
  void select_valid();

  // An integer expression affine in the index variables that, over the
  // statement's whole box of points, never leaves its dtype (interp/affine.h).
  using Affine = interp::Affine;
  std::optional<Affine> affine(const core::Expr& e) const;
  // The flat position of an access whose every index is affine and in
  // range at every point of the box, or nothing.
  std::optional<Affine> affine_flat(const std::vector<core::Expr>& index,
                                    const core::Shape& shape) const;
  // Calls f(k, flat) for the positions k of sel and their flat positions
  // under \p a: stepping through the block from its first point (the whole
  // block), or from the variables' columns.
  template <class F> void each_affine(const Affine& a, const Selection& sel, F f) const {
    const size_t nv = s_.vars.size();
    if (&sel != &all_) {
      for (int32_t k : sel) {
        int64_t flat = a.constant;
        for (size_t v = 0; v < nv; ++v)
          flat += a.coeff[v] * vars_[v].i[k];
        f(k, flat);
      }
      return;
    }
    int64_t flat = a.constant;
    for (size_t v = 0; v < nv; ++v)
      flat += a.coeff[v] * block_start_[v];
    if (nv == 0) {
      for (int32_t k = 0; k < count_; ++k)
        f(k, flat);
      return;
    }
    step_.assign(block_start_.begin(), block_start_.end());
    std::vector<int64_t>& p = step_;
    const size_t last = nv - 1;
    const int64_t step = a.coeff[last], end = s_.vars[last].end;
    for (int32_t k = 0; k < count_;) {
      // A run of the innermost variable.
      int32_t run = static_cast<int32_t>(std::min<int64_t>(end - p[last], count_ - k));
      for (int32_t j = 0; j < run; ++j, flat += step)
        f(k + j, flat);
      k += run;
      p[last] += run;
      // Carry into the outer variables.
      for (size_t v = last + 1; v-- > 0 && p[v] == s_.vars[v].end;) {
        flat -= a.coeff[v] * (s_.vars[v].end - s_.vars[v].begin);
        p[v] = s_.vars[v].begin;
        if (v == 0)
          break;
        ++p[v - 1];
        flat += a.coeff[v - 1];
      }
    }
  }
  mutable std::vector<int64_t> step_;
  std::unordered_map<const core::ExprNode*, Affine> affine_loads_;
  std::optional<Affine> affine_target_;
  std::vector<int64_t> block_start_;
  bool needs_vars_ = true; // whether evaluate() fills vars_
};

} // namespace teval::interp::detail
