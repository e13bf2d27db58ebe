// The terms of a contraction, output by output: a floating-point sum whose
// every term is a product of at most two factors, each a constant or a
// read at affine indices — optionally cast between floating dtypes and
// guarded by a `.when` condition, as a padded window reads — which is how
// matmuls, convolutions, pools and reductions are written. The terms of
// each output element come in the order the interpreter adds them (its
// reduction variables in row-major order), a few neighbouring outputs at
// once, without evaluating the expression tree at every point.
//
// The interpreter adds these terms in sequence (sum_in_order()), and the
// oracle's fast check (oracle/evaluate.h) accumulates them exactly too, with
// their rigorous bound; the definitional walk both are proven equal to
// visits the same points one at a time.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"
#include "interp/affine.h"

#include <array>
#include <functional>
#include <optional>
#include <vector>

namespace teval::interp {

class Contraction {
public:
  /// Outputs computed together: neighbours along the target's last index.
  static constexpr int kLanes = 32;

  /// The plan of statement \p s of \p kernel, reading the tensors
  /// \p tensors holds by id (null for those not computed yet), or nothing
  /// when \p s is not of this form: a Sum of a floating dtype from a
  /// constant, every output index a distinct index variable spanning its
  /// extent, affine constraints, and a value F or F * F, with F a float
  /// constant, a read of a floating tensor (cast to another floating dtype
  /// or not) or `select(c, read, constant)` with c a conjunction of affine
  /// comparisons.
  static std::optional<Contraction> plan(const core::Kernel& kernel, const core::Statement& s,
                                         const std::vector<const core::Tensor*>& tensors);

  const core::Statement& statement() const { return *s_; }
  core::DType dtype() const { return dtype_; }
  /// The target's elements, and the extent of its last dimension (a row:
  /// the lanes of one call never cross it).
  int64_t outputs() const { return outputs_; }
  int64_t row() const { return row_; }
  /// The most terms an output has: the points of its reduction variables.
  int64_t points() const { return points_; }
  /// Whether a term is a product of two factors (else it is the first).
  bool product() const { return factors_.size() == 2; }
  /// The tensors the factors read (ids), each once.
  std::vector<int> reads() const;

  /// The terms of one call: lane j's k-th term is a[k * kLanes + j] (times
  /// b[k * kLanes + j] when product()), for k < count[j].
  struct Terms {
    std::vector<double> a, b;
    std::array<int64_t, kLanes> count{};
  };
  /// The terms of outputs first, ..., first + lanes - 1 (flat positions in
  /// one row, lanes <= kLanes) at reduction points from, ..., to - 1 (of
  /// points(), row-major): a long reduction is taken a part at a time.
  /// Returns false when a point reads out of range where the statement does
  /// not skip such points: the caller walks the statement instead, which
  /// reports the error where it occurs.
  bool terms(int64_t first, int lanes, int64_t from, int64_t to, Terms& out) const;

  /// The interpreter's result: each output's terms added to the initial
  /// value in order, every product and every sum rounded to the dtype as
  /// the definitional walk rounds them, into \p out (of the target's dtype
  /// and shape); \p progress(outputs done) now and then. False as terms():
  /// a read out of range, reported by the caller's walk.
  bool sum_in_order(core::Tensor& out, const std::function<void(int64_t)>& progress) const;

  /// A factor: a constant, or a read with its guard and cast.
  struct Factor {
    bool constant = false;
    double value = 0; // the constant, or the guard's other branch
    int tensor = -1;
    const std::byte* bytes = nullptr; // the tensor's elements, of dtype type
    core::DType type = core::DType::Float32;
    std::vector<int> dims;        // affine_ ids of the indices that may leave their extent
    std::vector<int64_t> extents; // and those extents
    int flat = -1;                // affine_ id of the flat position
    std::vector<std::pair<int, core::Op>> guard; // affine_ ids compared with 0
    std::optional<core::DType> cast;             // the read rounded to this dtype
  };

private:
  std::optional<Factor> factor(const core::Kernel& kernel, const core::Expr& e,
                               const std::vector<const core::Tensor*>& tensors);
  int add_affine(const Affine& a);

  const core::Statement* s_ = nullptr;
  core::DType dtype_ = core::DType::Float32;
  int64_t outputs_ = 0, row_ = 0, points_ = 0;
  std::vector<Factor> factors_;
  bool skip_ = false;
  // The output variable of each target dimension, and the reduction
  // variables in order.
  std::vector<int> out_vars_, reduce_vars_;
  // Every affine value the terms need, stepped together: its coefficients.
  std::vector<Affine> affine_;
  std::vector<std::pair<int, int64_t>> constraints_; // affine_ id, bound
};

} // namespace teval::interp
