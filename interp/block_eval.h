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

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace teval::interp::detail {

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
};

} // namespace teval::interp::detail
