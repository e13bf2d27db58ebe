// The evaluator of an op graph's native references (native.h): one class
// whose methods live in native.cpp (the walk, elementwise ops, regions),
// native_byteir.cpp (ByteIR's ops) and native_layout.cpp (StableHLO's
// layout, selection and comparison ops). Internal to ops/.
#pragma once

#include "core/complex.h"
#include "core/graph.h"
#include "core/kernel.h"
#include "core/scalar_ops.h"
#include "core/tensor.h"
#include "ops/split.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace teval::ops::detail {

/// The multi-index of flat position \p at of \p shape.
std::vector<int64_t> unflatten(int64_t at, const core::Shape& shape);

/// Evaluates an op graph node by node with each op's native reference,
/// plain loops with teval's scalar arithmetic; each method's meaning is
/// documented where it is defined.
class Evaluator {
public:
  Evaluator(const core::Graph& g) : g_(g), values_(g.values.size()) {}

  /// The graph's outputs on \p inputs; with \p split, each of its segments
  /// computed by \p segment.
  std::vector<core::Tensor> run(const std::vector<core::Tensor>& inputs,
                                const Split* split = nullptr, const SegmentRun* segment = nullptr);

private:
  core::Tensor narrowed(size_t i, const core::Tensor& given) const;

  const core::Tensor& in(size_t i) const {
    return values_[static_cast<size_t>(node_->operands[i])];
  }

  void set(size_t i, core::Tensor t) {
    values_[static_cast<size_t>(node_->results[i])] = std::move(t);
  }

  const core::ValueType& result_type(size_t i) const;

  core::Scalar apply(core::Op op, std::initializer_list<core::Scalar> args, core::DType t,
                     int64_t at) const;

  core::Error fault(const core::Fault& f, int64_t at) const;

  core::Scalar constant(core::DType t, double v) const { return core::Scalar::of_float(t, v); }

  core::Tensor map(const std::function<core::Scalar(const core::Scalar&, int64_t)>& f) const;

  core::Tensor unary(core::Op op) const;

  core::Tensor real_or_complex(core::Op op, core::Complex (*c)(core::Complex, core::Complex)) const;

  core::Tensor binary(core::Op op) const;

  // A reduction over some axes: for each point of the kept shape (the
  // reduced axes of extent 1), the input positions that fold into it, in
  // row-major order of the reduced axes.
  struct Reduction {
    core::Shape kept;
    std::vector<int64_t> group;                ///< of each input position
    std::vector<std::vector<int64_t>> members; ///< of each kept point
  };

  static Reduction reduction(const core::Shape& shape, const std::vector<int64_t>& axes);

  // Folds f(x at each member of group g) with aggregation a, in order.
  template <class F>
  core::Scalar fold(core::Aggregation a, core::DType t, const Reduction& r, int64_t g,
                    F&& f) const {
    core::Scalar acc = core::aggregation_init(a, t);
    for (int64_t i : r.members[static_cast<size_t>(g)])
      acc = core::combine(a, acc, f(i));
    return acc;
  }

  core::Tensor softmax(bool log) const;

  void layer_norm();

  core::Tensor l2_norm() const;

  static bool beats(const core::Scalar& x, const core::Scalar& y, bool larger, bool total = false);

  void arg_extreme(bool max);

  void top_k();

  core::Tensor one_hot() const;

  core::Tensor quantize(bool to_integer) const;

  // resize: per axis, each output position's source coordinate in
  // float32 (the coordinate transformation, clamped to [0, L_in - 1]), then
  // the floor (nearest), or the two neighbours and their weights (linear).
  struct AxisMap {
    bool changed = false; ///< linear interpolates along it
    std::vector<int64_t> i0, i1;
    std::vector<core::Scalar> w0, w1;
  };

  AxisMap axis_map(int64_t in_extent, int64_t out_extent, const core::Scalar& scale) const;

  core::Tensor resize() const;

  core::Tensor rng_uniform() const;

  core::Tensor addn() const;

  core::Tensor gelu() const;

  core::Tensor broadcast() const;

  // ---- the stablehlo ops beyond the elementwise ones

  static std::pair<int, double> total_key(double x);

  core::Tensor compare() const;

  static core::Scalar at_or_only(const core::Tensor& t, int64_t i);

  core::Tensor select() const;

  core::Tensor clamp() const;

  core::Tensor gather_from(const core::Tensor& x,
                           const std::function<void(std::vector<int64_t>&)>& from) const;

  core::Tensor transpose() const;

  core::Tensor slice() const;

  core::Tensor reverse() const;

  core::Tensor concatenate() const;

  core::Tensor iota() const;

  core::Tensor sign() const;

  core::Tensor round(bool even) const;

  core::Tensor next_after() const;

  core::Tensor logic() const;

  void node(const core::GraphNode& n);

  core::Tensor integer_power() const;

  void with_regions(const core::GraphNode& n);

  std::vector<core::Tensor> region(const core::GraphRegion& r, std::vector<core::Tensor> args);

  const core::Graph& g_;

  std::vector<core::Tensor> values_;

  const core::GraphNode* node_ = nullptr;
};

} // namespace teval::ops::detail
