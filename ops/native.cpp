// The native reference meaning of an op graph (see native.h and the ByteIR
// section of docs/SEMANTICS.md).
#include "ops/native.h"

#include "ops/bitcast.h"
#include "ops/bits.h"
#include "ops/convolution.h"
#include "ops/dot.h"
#include "ops/dynamic_slice.h"
#include "ops/fft.h"
#include "ops/gather.h"
#include "ops/pad.h"
#include "ops/philox.h"
#include "ops/quantize.h"
#include "ops/reduce.h"
#include "ops/regions.h"
#include "ops/triangular_solve.h"
#include "ops/value_shaped.h"

#include "core/complex.h"
#include "core/error.h"
#include "core/format.h"
#include "core/interrupt.h"
#include "core/kernel.h"
#include "core/scalar_ops.h"
#include "core/tmath.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace teval::ops {

namespace {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphNode;
using core::GraphOp;
using core::Op;
using core::Scalar;
using core::Shape;
using core::Tensor;

/// The multi-index of flat position \p at of \p shape.
std::vector<int64_t> unflatten(int64_t at, const Shape& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? at % shape[d] : 0;
    at = shape[d] ? at / shape[d] : 0;
  }
  return index;
}

class Evaluator {
public:
  Evaluator(const core::Graph& g) : g_(g), values_(g.values.size()) {}

  std::vector<Tensor> run(const std::vector<Tensor>& inputs) {
    TEVAL_ASSERT(inputs.size() == g_.inputs.size(), "one tensor per graph input");
    for (size_t i = 0; i < inputs.size(); ++i)
      values_[static_cast<size_t>(g_.inputs[i])] = narrowed(i, inputs[i]);
    for (const GraphNode& n : g_.nodes) {
      core::poll_interrupt();
      node_ = &n;
      node(n);
    }
    std::vector<Tensor> out;
    for (int v : g_.outputs)
      out.push_back(values_[static_cast<size_t>(v)]);
    return out;
  }

private:
  // Input i as the graph's type: an int8 or uint8 tensor holding i2, i4,
  // ui2 or ui4 values, or a float32 one holding a minifloat's
  // (core::carrier), converted, each value checked to be one of the type.
  Tensor narrowed(size_t i, const Tensor& given) const {
    const core::ValueType& type = g_.values[static_cast<size_t>(g_.inputs[i])];
    const DType t = type.dtype;
    if (type.quant) // the stored integers, each in the storage range
      for (int64_t k = 0; k < given.numel(); ++k)
        if (const int64_t v = given.get(k).i;
            v < type.quant->storage_min || v > type.quant->storage_max)
          throw core::Error(
              core::ErrorKind::Range, g_.input_spans[i],
              "input " + core::graph_input_name(i) + " holds " + std::to_string(v) +
                  " at element " + std::to_string(k) + ", outside the storage range [" +
                  std::to_string(type.quant->storage_min) + ", " +
                  std::to_string(type.quant->storage_max) + "] of " + type.quant->text);
    if (given.dtype() == t)
      return given;
    TEVAL_ASSERT(core::carrier(t) == given.dtype(), "an input of another dtype");
    Tensor out(t, given.shape());
    for (int64_t k = 0; k < given.numel(); ++k) {
      if (core::is_float(t)) { // a minifloat given as float32: each value one of t's
        const Scalar x = given.get(k), v = Scalar::of_float(t, x.f);
        if (!(std::isnan(x.f) && std::isnan(v.f)) &&
            (v.f != x.f || std::signbit(v.f) != std::signbit(x.f)))
          throw core::Error(core::ErrorKind::Range, g_.input_spans[i],
                            "input " + core::graph_input_name(i) + " holds " +
                                core::format_scalar(x) + " at element " + std::to_string(k) +
                                ", which is not a value of " + core::mlir_element(t));
        out.set(k, v);
        continue;
      }
      const int64_t v = given.get(k).i;
      if (v < core::int_min(t) || v > core::int_max(t))
        throw core::Error(core::ErrorKind::Range, g_.input_spans[i],
                          "input " + core::graph_input_name(i) + " holds " + std::to_string(v) +
                              " at element " + std::to_string(k) + ", which is not a value of " +
                              core::mlir_element(t) + " (" + std::to_string(core::int_min(t)) +
                              " to " + std::to_string(core::int_max(t)) + ")");
      out.set(k, Scalar::of_int(t, v));
    }
    return out;
  }

  const Tensor& in(size_t i) const { return values_[static_cast<size_t>(node_->operands[i])]; }
  void set(size_t i, Tensor t) { values_[static_cast<size_t>(node_->results[i])] = std::move(t); }
  const core::ValueType& result_type(size_t i) const {
    return g_.values[static_cast<size_t>(node_->results[i])];
  }

  // One scalar operation at element \p at of the node's first result, a
  // Fault becoming the node's error at that element.
  Scalar apply(Op op, std::initializer_list<Scalar> args, DType t, int64_t at) const {
    try {
      return core::apply(op, args.begin(), t, core::Overflow::Wrap);
    } catch (const core::Fault& f) {
      throw fault(f, at);
    }
  }

  Error fault(const core::Fault& f, int64_t at) const {
    return Error(ErrorKind::Arithmetic, node_->span,
                 f.message + " in " + std::string(core::graph_op_name(node_->op)) +
                     " at element [" + core::format_index(unflatten(at, result_type(0).shape)) +
                     "] of " + g_.value_names[static_cast<size_t>(node_->results[0])]);
  }

  Scalar constant(DType t, double v) const { return Scalar::of_float(t, v); }

  Tensor map(const std::function<Scalar(const Scalar&, int64_t)>& f) const {
    Tensor out(result_type(0).dtype, result_type(0).shape);
    for (int64_t i = 0; i < out.numel(); ++i)
      out.set(i, f(in(0).get(i), i));
    return out;
  }

  Tensor unary(Op op) const {
    DType t = result_type(0).dtype;
    return map([&](const Scalar& x, int64_t i) { return apply(op, {x}, t, i); });
  }

  // A function of teval's math library the Kernel IR has no operator for,
  // in the precision of t: float64's, or float32's (the float64 function
  // rounded to float) for the narrower ones, rounded to t.
  // Of complex values, \p c (core/complex.h), computed in double and each
  // part rounded to t's.
  Tensor library(double (*f)(double, double), bool binary,
                 core::Complex (*c)(core::Complex, core::Complex)) const {
    DType t = result_type(0).dtype;
    if (core::is_complex(t))
      return map([&](const Scalar& x, int64_t i) {
        const Scalar y = binary ? in(1).get(i) : Scalar{};
        return core::complex_result(t, c({x.f, x.im}, {y.f, y.im}));
      });
    return map([&](const Scalar& x, int64_t i) {
      double r = f(x.f, binary ? in(1).get(i).f : 0);
      return Scalar::of_float(t, t == DType::Float64 ? r : static_cast<float>(r));
    });
  }

  Tensor binary(Op op) const {
    DType t = result_type(0).dtype;
    return map([&](const Scalar& x, int64_t i) { return apply(op, {x, in(1).get(i)}, t, i); });
  }

  // A reduction over some axes: for each point of the kept shape (the
  // reduced axes of extent 1), the input positions that fold into it, in
  // row-major order of the reduced axes.
  struct Reduction {
    Shape kept;
    std::vector<int64_t> group;                ///< of each input position
    std::vector<std::vector<int64_t>> members; ///< of each kept point
  };
  static Reduction reduction(const Shape& shape, const std::vector<int64_t>& axes) {
    Reduction r;
    r.kept = shape;
    for (int64_t a : axes)
      r.kept[static_cast<size_t>(a)] = 1;
    std::vector<bool> reduced(shape.size());
    for (int64_t a : axes)
      reduced[static_cast<size_t>(a)] = true;
    std::vector<int64_t> kept_strides = core::strides(r.kept);
    int64_t n = core::checked_numel(shape).value_or(0);
    r.members.resize(static_cast<size_t>(core::checked_numel(r.kept).value_or(0)));
    r.group.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      std::vector<int64_t> index = unflatten(i, shape);
      int64_t g = 0;
      for (size_t d = 0; d < index.size(); ++d)
        if (!reduced[d])
          g += index[d] * kept_strides[d];
      r.group[static_cast<size_t>(i)] = g;
      r.members[static_cast<size_t>(g)].push_back(i);
    }
    return r;
  }

  // Folds f(x at each member of group g) with aggregation a, in order.
  template <class F>
  Scalar fold(core::Aggregation a, DType t, const Reduction& r, int64_t g, F&& f) const {
    Scalar acc = core::aggregation_init(a, t);
    for (int64_t i : r.members[static_cast<size_t>(g)])
      acc = core::combine(a, acc, f(i));
    return acc;
  }

  // softmax and log_softmax: max-subtracted, the sum in index order.
  Tensor softmax(bool log) const {
    const Tensor& x = in(0);
    DType t = x.dtype();
    Reduction r = reduction(x.shape(), {node_->int_attr("axis")});
    Tensor out(t, x.shape());
    for (int64_t g = 0; g < static_cast<int64_t>(r.members.size()); ++g) {
      Scalar m = fold(core::Aggregation::Max, t, r, g, [&](int64_t i) { return x.get(i); });
      auto shifted = [&](int64_t i) { return apply(Op::Sub, {x.get(i), m}, t, i); };
      Scalar s = fold(core::Aggregation::Sum, t, r, g,
                      [&](int64_t i) { return apply(Op::Exp, {shifted(i)}, t, i); });
      for (int64_t i : r.members[static_cast<size_t>(g)])
        out.set(i, log ? apply(Op::Sub, {shifted(i), apply(Op::Log, {s}, t, i)}, t, i)
                       : apply(Op::Div, {apply(Op::Exp, {shifted(i)}, t, i), s}, t, i));
    }
    return out;
  }

  // layer_norm: mean and biased variance over the axes (two passes, sums in
  // index order), y = (x - mean) / den * weight + bias with den =
  // sqrt(var + eps), or sqrt(var) + eps; mean and 1 / den as results 1, 2.
  void layer_norm() {
    const Tensor& x = in(0);
    DType t = x.dtype();
    Reduction r = reduction(x.shape(), node_->ints_attr("axis"));
    Scalar n = constant(t, static_cast<double>(r.members.empty() ? 0 : r.members[0].size()));
    Scalar eps = constant(t, node_->float_attr("epsilon"));
    bool outside = node_->bool_attr("eps_outside_sqrt");
    Tensor y(t, x.shape()), mean(t, r.kept), inv(t, r.kept);
    std::vector<int64_t> axes = node_->ints_attr("axis");
    std::vector<int64_t> affine_strides = core::strides(in(1).shape());
    for (int64_t g = 0; g < mean.numel(); ++g) {
      Scalar sum = fold(core::Aggregation::Sum, t, r, g, [&](int64_t i) { return x.get(i); });
      Scalar m = apply(Op::Div, {sum, n}, t, g);
      auto centred = [&](int64_t i) { return apply(Op::Sub, {x.get(i), m}, t, i); };
      Scalar squares = fold(core::Aggregation::Sum, t, r, g, [&](int64_t i) {
        return apply(Op::Mul, {centred(i), centred(i)}, t, i);
      });
      Scalar var = apply(Op::Div, {squares, n}, t, g);
      Scalar den = outside ? apply(Op::Add, {apply(Op::Sqrt, {var}, t, g), eps}, t, g)
                           : apply(Op::Sqrt, {apply(Op::Add, {var, eps}, t, g)}, t, g);
      mean.set(g, m);
      inv.set(g, apply(Op::Div, {constant(t, 1), den}, t, g));
      for (int64_t i : r.members[static_cast<size_t>(g)]) {
        std::vector<int64_t> index = unflatten(i, x.shape());
        int64_t a = 0;
        for (size_t k = 0; k < axes.size(); ++k)
          a += index[static_cast<size_t>(axes[k])] * affine_strides[k];
        Scalar scaled =
            apply(Op::Mul, {apply(Op::Div, {centred(i), den}, t, i), in(1).get(a)}, t, i);
        y.set(i, apply(Op::Add, {scaled, in(2).get(a)}, t, i));
      }
    }
    set(0, std::move(y));
    if (node_->results.size() == 3) {
      set(1, std::move(mean));
      set(2, std::move(inv));
    }
  }

  // l2_norm: s = sum of x * x along the axis; y = x / sqrt(max(s, eps)), or
  // x / max(sqrt(s), eps).
  Tensor l2_norm() const {
    const Tensor& x = in(0);
    DType t = x.dtype();
    Reduction r = reduction(x.shape(), node_->ints_attr("axis"));
    Scalar eps = constant(t, node_->float_attr("epsilon"));
    bool outside = node_->bool_attr("eps_outside_sqrt");
    Tensor out(t, x.shape());
    for (int64_t g = 0; g < static_cast<int64_t>(r.members.size()); ++g) {
      Scalar s = fold(core::Aggregation::Sum, t, r, g, [&](int64_t i) {
        return apply(Op::Mul, {x.get(i), x.get(i)}, t, i);
      });
      Scalar den = outside ? apply(Op::Max, {apply(Op::Sqrt, {s}, t, g), eps}, t, g)
                           : apply(Op::Sqrt, {apply(Op::Max, {s, eps}, t, g)}, t, g);
      for (int64_t i : r.members[static_cast<size_t>(g)])
        out.set(i, apply(Op::Div, {x.get(i), den}, t, i));
    }
    return out;
  }

  // The orders of arg_max, arg_min and top_k: x beats y when it is larger
  // (smaller for arg_min), NaN beating every number; x ties y when they
  // are equal (-0 and 0) or both NaN.
  static bool beats(const Scalar& x, const Scalar& y, bool larger) {
    if (!core::is_float(x.dtype))
      return larger ? x.int_value() > y.int_value() : x.int_value() < y.int_value();
    if (std::isnan(x.f) || std::isnan(y.f))
      return std::isnan(x.f) && !std::isnan(y.f);
    return larger ? x.f > y.f : x.f < y.f;
  }

  // arg_max / arg_min: the first element along the axis that no other
  // beats (the last with select_last_index), and its value.
  void arg_extreme(bool max) {
    const Tensor& x = in(0);
    Reduction r = reduction(x.shape(), {node_->int_attr("axis")});
    bool last = node_->bool_attr("select_last_index");
    const core::ValueType& index_type = result_type(node_->results.size() - 1);
    Tensor values(x.dtype(), result_type(0).shape), indices(index_type.dtype, index_type.shape);
    for (int64_t g = 0; g < static_cast<int64_t>(r.members.size()); ++g) {
      const std::vector<int64_t>& members = r.members[static_cast<size_t>(g)];
      size_t at = 0;
      for (size_t k = 1; k < members.size(); ++k) {
        Scalar candidate = x.get(members[k]), best = x.get(members[at]);
        if (beats(candidate, best, max) || (last && !beats(best, candidate, max)))
          at = k;
      }
      values.set(g, x.get(members[at]));
      indices.set(g, Scalar::of_int(index_type.dtype, static_cast<int64_t>(at)));
    }
    if (node_->results.size() == 2)
      set(0, std::move(values));
    set(node_->results.size() - 1, std::move(indices));
  }

  // top_k: the k largest along the axis, in descending order, ties by
  // index (for sorted = false too: every order is legal, teval gives this).
  void top_k() {
    const Tensor& x = in(0);
    int64_t axis = node_->int_attr("axis");
    int64_t k = node_->int_attr("k");
    Reduction r = reduction(x.shape(), {axis});
    const core::ValueType& index_type = result_type(1);
    Tensor values(x.dtype(), result_type(0).shape), indices(index_type.dtype, index_type.shape);
    std::vector<int64_t> out_strides = core::strides(values.shape());
    for (int64_t g = 0; g < static_cast<int64_t>(r.members.size()); ++g) {
      std::vector<int64_t> order(r.members[static_cast<size_t>(g)].size());
      for (size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int64_t>(i);
      const std::vector<int64_t>& members = r.members[static_cast<size_t>(g)];
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return beats(x.get(members[static_cast<size_t>(a)]), x.get(members[static_cast<size_t>(b)]),
                     true);
      });
      // The group's first output position: its first member's index with
      // the axis at 0, in the output's strides.
      std::vector<int64_t> first = unflatten(members.empty() ? 0 : members[0], x.shape());
      int64_t base = 0;
      for (size_t d = 0; d < first.size(); ++d)
        base += (static_cast<int64_t>(d) == axis ? 0 : first[d]) * out_strides[d];
      for (int64_t j = 0; j < k; ++j) {
        int64_t at = base + j * out_strides[static_cast<size_t>(axis)];
        values.set(at, x.get(members[static_cast<size_t>(order[static_cast<size_t>(j)])]));
        indices.set(at, Scalar::of_int(index_type.dtype, order[static_cast<size_t>(j)]));
      }
    }
    set(0, std::move(values));
    set(1, std::move(indices));
  }

  // one_hot: on_value where the index equals the position along the new
  // axis, off_value elsewhere (an index outside [0, depth) is off
  // everywhere).
  Tensor one_hot() const {
    const Tensor& idx = in(0);
    int64_t axis = node_->int_attr("axis");
    Scalar on = node_->tensor_attr("on_value").get(0);
    Scalar off = node_->tensor_attr("off_value").get(0);
    Tensor out(on.dtype, result_type(0).shape);
    for (int64_t i = 0; i < out.numel(); ++i) {
      std::vector<int64_t> index = unflatten(i, out.shape());
      int64_t d = index[static_cast<size_t>(axis)];
      index.erase(index.begin() + axis);
      int64_t from = 0;
      std::vector<int64_t> strides = core::strides(idx.shape());
      for (size_t k = 0; k < index.size(); ++k)
        from += index[k] * strides[k];
      out.set(i, idx.get(from).i == d ? on : off);
    }
    return out;
  }

  // quantize: x / scale rounded half to even (floor, then the fraction
  // against 0.5 and the floor's parity, in the input's type), plus the
  // zero point and clamped to the output's range in float64; NaN has no
  // value. dequantize: (q - zero point) in int32, converted to the float
  // type, times the scale.
  Tensor quantize(bool to_integer) const {
    const Tensor& x = in(0);
    const Tensor& scale = in(1);
    const Tensor& zero = in(2);
    DType out_type = result_type(0).dtype;
    DType real = scale.dtype();
    bool per_channel = scale.shape().size() == 1;
    int64_t axis = per_channel ? node_->int_attr("axis") : 0;
    Tensor out(out_type, x.shape());
    auto f64 = [](const Scalar& v) { return core::cast(v, DType::Float64); };
    for (int64_t i = 0; i < x.numel(); ++i) {
      int64_t c = per_channel ? unflatten(i, x.shape())[static_cast<size_t>(axis)] : 0;
      Scalar s = scale.get(c), z = zero.get(c);
      if (!to_integer) {
        Scalar d = apply(Op::Sub, {core::cast(x.get(i), DType::Int32), core::cast(z, DType::Int32)},
                         DType::Int32, i);
        out.set(i, apply(Op::Mul, {core::cast(d, real), s}, real, i));
        continue;
      }
      Scalar v = apply(Op::Div, {x.get(i), s}, real, i);
      Scalar floor = apply(Op::RFloor, {v}, real, i);
      Scalar frac = apply(Op::Sub, {v, floor}, real, i);
      Scalar half_floor =
          apply(Op::RFloor, {apply(Op::Mul, {floor, constant(real, 0.5)}, real, i)}, real, i);
      Scalar odd = apply(Op::Sub, {floor, apply(Op::Mul, {constant(real, 2), half_floor}, real, i)},
                         real, i);
      bool up = frac.f > 0.5 || (frac.f == 0.5 && odd.f != 0);
      Scalar rounded = up ? apply(Op::Add, {floor, constant(real, 1)}, real, i) : floor;
      Scalar wide = apply(Op::Add, {f64(rounded), f64(z)}, DType::Float64, i);
      wide = apply(Op::Max, {wide, constant(DType::Float64, core::lowest(out_type).as_double())},
                   DType::Float64, i);
      wide = apply(Op::Min, {wide, constant(DType::Float64, core::highest(out_type).as_double())},
                   DType::Float64, i);
      try {
        out.set(i, core::cast(wide, out_type));
      } catch (const core::Fault& f) {
        throw fault(f, i);
      }
    }
    return out;
  }

  // resize: per axis, each output position's source coordinate in
  // float32 (the coordinate transformation, clamped to [0, L_in - 1]), then
  // the floor (nearest), or the two neighbours and their weights (linear).
  struct AxisMap {
    bool changed = false; ///< linear interpolates along it
    std::vector<int64_t> i0, i1;
    std::vector<Scalar> w0, w1;
  };
  AxisMap axis_map(int64_t in_extent, int64_t out_extent, const Scalar& scale) const {
    const DType F = DType::Float32;
    const std::string& map = node_->string_attr("coordinate_transformation_mode");
    auto f = [&](double v) { return constant(F, v); };
    AxisMap m;
    m.changed = scale.f != 1;
    for (int64_t x = 0; x < out_extent; ++x) {
      Scalar xo = f(static_cast<double>(x)), c;
      if (map == "asymmetric") {
        c = apply(Op::Div, {xo, scale}, F, x);
      } else if (map == "half_pixel" || (map == "pytorch_half_pixel" && out_extent > 1)) {
        c = apply(Op::Sub,
                  {apply(Op::Div, {apply(Op::Add, {xo, f(0.5)}, F, x), scale}, F, x), f(0.5)}, F,
                  x);
      } else if (map == "align_corners" && out_extent > 1) {
        c = apply(Op::Div,
                  {apply(Op::Mul, {xo, f(double(in_extent - 1))}, F, x), f(double(out_extent - 1))},
                  F, x);
      } else {
        c = f(0);
      }
      c = apply(Op::Min, {apply(Op::Max, {c, f(0)}, F, x), f(double(in_extent - 1))}, F, x);
      Scalar floor = apply(Op::RFloor, {c}, F, x);
      int64_t i0 = static_cast<int64_t>(floor.f);
      m.i0.push_back(i0);
      m.i1.push_back(std::min(i0 + 1, in_extent - 1));
      Scalar w1 = apply(Op::Sub, {c, floor}, F, x);
      m.w1.push_back(w1);
      m.w0.push_back(apply(Op::Sub, {f(1), w1}, F, x));
    }
    return m;
  }

  Tensor resize() const {
    const Tensor& x = in(0);
    const Shape& to = result_type(0).shape;
    const Tensor& scales = node_->tensor_attr("scales");
    std::vector<AxisMap> maps;
    for (size_t d = 0; d < to.size(); ++d)
      maps.push_back(axis_map(x.shape()[d], to[d], scales.get(static_cast<int64_t>(d))));
    if (node_->string_attr("mode") == "nearest") {
      Tensor out(x.dtype(), to);
      std::vector<int64_t> strides = core::strides(x.shape());
      for (int64_t i = 0; i < out.numel(); ++i) {
        std::vector<int64_t> index = unflatten(i, to);
        int64_t from = 0;
        for (size_t d = 0; d < to.size(); ++d)
          from += maps[d].i0[static_cast<size_t>(index[d])] * strides[d];
        out.set(i, x.get(from));
      }
      return out;
    }
    // Linear: in float32 (float64 for a float64 input), one changed axis at
    // a time from the last: v0 * w0 + v1 * w1.
    DType c = x.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
    Tensor t(c, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i)
      t.set(i, core::cast(x.get(i), c));
    for (size_t d = to.size(); d-- > 0;) {
      if (!maps[d].changed)
        continue;
      Shape shape = t.shape();
      shape[d] = to[d];
      Tensor next(c, shape);
      std::vector<int64_t> strides = core::strides(t.shape());
      for (int64_t i = 0; i < next.numel(); ++i) {
        std::vector<int64_t> index = unflatten(i, shape);
        size_t p = static_cast<size_t>(index[d]);
        index[d] = 0;
        int64_t base = 0;
        for (size_t k = 0; k < index.size(); ++k)
          base += index[k] * strides[k];
        Scalar v0 = t.get(base + maps[d].i0[p] * strides[d]);
        Scalar v1 = t.get(base + maps[d].i1[p] * strides[d]);
        next.set(i, apply(Op::Add,
                          {apply(Op::Mul, {v0, core::cast(maps[d].w0[p], c)}, c, i),
                           apply(Op::Mul, {v1, core::cast(maps[d].w1[p], c)}, c, i)},
                          c, i));
      }
      t = std::move(next);
    }
    Tensor out(x.dtype(), to);
    for (int64_t i = 0; i < out.numel(); ++i)
      out.set(i, core::cast(t.get(i), x.dtype()));
    return out;
  }

  // rng_uniform: Philox4x32-10 of a counter hashed from each element's
  // multi-index, as ByteIR's linalg lowering computes it (docs/SEMANTICS.md).
  Tensor rng_uniform() const {
    DType t = result_type(0).dtype;
    Scalar low = in(0).get(0), high = in(1).get(0);
    uint32_t seed = static_cast<uint32_t>(in(2).get(0).i);
    uint32_t offset = static_cast<uint32_t>(in(3).get(0).i);
    Tensor out(t, result_type(0).shape);
    Scalar range = apply(Op::Sub, {high, low}, t, 0);
    for (int64_t i = 0; i < out.numel(); ++i) {
      uint32_t h = seed + offset;
      for (int64_t index : unflatten(i, out.shape()))
        h = (static_cast<uint32_t>(index) + h) * 1103515245u + 12345u;
      double u =
          std::ldexp(static_cast<double>(philox4x32_10({h, 0, 0, 0}, {seed, offset})[0]), -32);
      Scalar ut = core::cast(Scalar::of_float(DType::Float64, u), t);
      out.set(i, apply(Op::Add, {low, apply(Op::Mul, {ut, range}, t, i)}, t, i));
    }
    return out;
  }

  Tensor addn() const {
    DType t = result_type(0).dtype;
    return map([&](const Scalar& first, int64_t i) {
      Scalar acc = first;
      for (size_t k = 1; k < node_->operands.size(); ++k)
        acc = apply(Op::Add, {acc, in(k).get(i)}, t, i);
      return acc;
    });
  }

  // gelu: 0.5·x·(1 + erf(x·0.707106781)), or with tanh
  // 0.5·x·(1 + tanh(0.79788456·(x + 0.044715·x·x·x))), in the element type.
  Tensor gelu() const {
    DType t = result_type(0).dtype;
    bool tanh = node_->string_attr("approximate") == "tanh";
    return map([&](const Scalar& x, int64_t i) {
      Scalar inner;
      if (tanh) {
        Scalar cube = apply(Op::Mul, {apply(Op::Mul, {x, x}, t, i), x}, t, i);
        Scalar sum = apply(Op::Add, {x, apply(Op::Mul, {constant(t, 0.044715), cube}, t, i)}, t, i);
        inner = apply(Op::Tanh, {apply(Op::Mul, {constant(t, 0.79788456), sum}, t, i)}, t, i);
      } else {
        inner = apply(Op::Erf, {apply(Op::Mul, {x, constant(t, 0.707106781)}, t, i)}, t, i);
      }
      return apply(Op::Mul,
                   {apply(Op::Mul, {constant(t, 0.5), x}, t, i),
                    apply(Op::Add, {constant(t, 1.0), inner}, t, i)},
                   t, i);
    });
  }

  Tensor broadcast() const {
    const Tensor& x = in(0);
    const std::vector<int64_t>& dims = node_->ints_attr("dims");
    Tensor out(x.dtype(), result_type(0).shape);
    std::vector<int64_t> strides = core::strides(x.shape());
    for (int64_t i = 0; i < out.numel(); ++i) {
      std::vector<int64_t> index = unflatten(i, out.shape());
      int64_t from = 0;
      for (size_t d = 0; d < dims.size(); ++d)
        if (x.shape()[d] != 1)
          from += index[static_cast<size_t>(dims[d])] * strides[d];
      out.set(i, x.get(from));
    }
    return out;
  }

  // ---- the stablehlo ops beyond the elementwise ones

  // IEEE totalOrder as a key: -NaN, then the negative numbers and -0, then
  // +0 and the positive numbers, then +NaN (NaN payloads are not ordered).
  static std::pair<int, double> total_key(double x) {
    if (std::isnan(x))
      return {std::signbit(x) ? 0 : 3, 0.0};
    return {std::signbit(x) ? 1 : 2, x};
  }

  Tensor compare() const {
    const Tensor& a = in(0);
    const Tensor& b = in(1);
    const std::string& d = node_->string_attr("direction");
    const bool total = node_->string_attr("compare_type") == "TOTALORDER";
    Tensor out(DType::Bool, a.shape());
    for (int64_t i = 0; i < a.numel(); ++i) {
      Scalar x = a.get(i), y = b.get(i);
      bool lt, eq, gt;                 // exactly one holds, or none (unordered)
      if (core::is_complex(x.dtype)) { // lexicographic: (real, imaginary)
        const bool re_eq = x.f == y.f;
        lt = x.f < y.f || (re_eq && x.im < y.im), eq = re_eq && x.im == y.im;
        gt = x.f > y.f || (re_eq && x.im > y.im);
      } else if (!core::is_float(x.dtype)) {
        const __int128 u = x.int_value(), v = y.int_value();
        lt = u<v, eq = u == v, gt = u> v;
      } else if (total) {
        auto kx = total_key(x.f), ky = total_key(y.f);
        lt = kx<ky, eq = kx == ky, gt = kx> ky;
      } else { // IEEE quiet comparisons: a NaN is unordered
        lt = x.f<y.f, eq = x.f == y.f, gt = x.f> y.f;
      }
      bool r = d == "EQ"   ? eq
               : d == "NE" ? !eq
               : d == "LT" ? lt
               : d == "LE" ? lt || eq
               : d == "GT" ? gt
                           : gt || eq;
      out.set(i, Scalar::of_int(DType::Bool, r));
    }
    return out;
  }

  // Element \p i of \p t when it has the result's shape, else its only one
  // (select's predicate, clamp's bounds).
  static Scalar at_or_only(const Tensor& t, int64_t i) {
    return t.shape().empty() ? t.get(0) : t.get(i);
  }

  Tensor select() const {
    Tensor out(result_type(0).dtype, result_type(0).shape);
    for (int64_t i = 0; i < out.numel(); ++i)
      out.set(i, at_or_only(in(0), i).i ? in(1).get(i) : in(2).get(i));
    return out;
  }

  // minimum(maximum(operand, min), max), as those ops compute.
  Tensor clamp() const {
    DType t = result_type(0).dtype;
    Tensor out(t, result_type(0).shape);
    for (int64_t i = 0; i < out.numel(); ++i)
      out.set(i, apply(Op::Min,
                       {apply(Op::Max, {in(1).get(i), at_or_only(in(0), i)}, t, i),
                        at_or_only(in(2), i)},
                       t, i));
    return out;
  }

  // result[index] = operand[from(index)], for the data movement ops.
  Tensor gather_from(const Tensor& x,
                     const std::function<void(std::vector<int64_t>&)>& from) const {
    Tensor out(x.dtype(), result_type(0).shape);
    std::vector<int64_t> strides = core::strides(x.shape());
    for (int64_t i = 0; i < out.numel(); ++i) {
      std::vector<int64_t> index = unflatten(i, out.shape());
      from(index);
      int64_t at = 0;
      for (size_t d = 0; d < index.size(); ++d)
        at += index[d] * strides[d];
      out.set(i, x.get(at));
    }
    return out;
  }

  Tensor transpose() const {
    const std::vector<int64_t>& perm = node_->ints_attr("permutation");
    return gather_from(in(0), [&](std::vector<int64_t>& index) {
      std::vector<int64_t> from(index.size());
      for (size_t d = 0; d < perm.size(); ++d)
        from[static_cast<size_t>(perm[d])] = index[d];
      index = from;
    });
  }

  Tensor slice() const {
    const std::vector<int64_t>& start = node_->ints_attr("start");
    const std::vector<int64_t>& strides = node_->ints_attr("strides");
    return gather_from(in(0), [&](std::vector<int64_t>& index) {
      for (size_t d = 0; d < index.size(); ++d)
        index[d] = start[d] + index[d] * strides[d];
    });
  }

  Tensor reverse() const {
    const std::vector<int64_t>& dims = node_->ints_attr("dimensions");
    const Shape& shape = in(0).shape();
    return gather_from(in(0), [&](std::vector<int64_t>& index) {
      for (int64_t d : dims)
        index[static_cast<size_t>(d)] =
            shape[static_cast<size_t>(d)] - 1 - index[static_cast<size_t>(d)];
    });
  }

  Tensor concatenate() const {
    const size_t axis = static_cast<size_t>(node_->int_attr("dimension"));
    Tensor out(result_type(0).dtype, result_type(0).shape);
    std::vector<std::vector<int64_t>> operand_strides;
    for (size_t k = 0; k < node_->operands.size(); ++k)
      operand_strides.push_back(core::strides(in(k).shape()));
    for (int64_t i = 0; i < out.numel(); ++i) {
      std::vector<int64_t> index = unflatten(i, out.shape());
      size_t k = 0;
      while (index[axis] >= in(k).shape()[axis])
        index[axis] -= in(k++).shape()[axis];
      const std::vector<int64_t>& strides = operand_strides[k];
      int64_t at = 0;
      for (size_t d = 0; d < index.size(); ++d)
        at += index[d] * strides[d];
      out.set(i, in(k).get(at));
    }
    return out;
  }

  Tensor iota() const {
    const core::ValueType& t = result_type(0);
    const size_t axis = static_cast<size_t>(node_->int_attr("dimension"));
    Tensor out(t.dtype, t.shape);
    for (int64_t i = 0; i < out.numel(); ++i) {
      int64_t v = unflatten(i, t.shape)[axis];
      out.set(i, core::constant(t.dtype, v));
    }
    return out;
  }

  // sign: 1, -1, or the value itself (0, -0, NaN), in its type.
  Tensor sign() const {
    DType t = result_type(0).dtype;
    if (core::is_complex(t))
      return map([&](const Scalar& x, int64_t) {
        return core::complex_result(t, core::complex_sign({x.f, x.im}));
      });
    return map([&](const Scalar& x, int64_t) {
      bool f = core::is_float(t);
      double v = x.as_double();
      if (!(v > 0) && !(v < 0))
        return x;
      return f ? Scalar::of_float(t, v > 0 ? 1.0 : -1.0) : Scalar::of_int(t, v > 0 ? 1 : -1);
    });
  }

  // round_nearest_even (ties to even) and round_nearest_afz (ties away
  // from zero): the integer nearest the value, exactly representable in
  // its type; a zero keeps the value's sign, infinities and NaN stay.
  Tensor round(bool even) const {
    DType t = result_type(0).dtype;
    return map([&](const Scalar& x, int64_t) {
      return Scalar::of_float(t, even ? std::nearbyint(x.f) : std::round(x.f));
    });
  }

  // not: logical for i1, bitwise for integers; and, or, xor of i1 values.
  Tensor logic() const {
    DType t = result_type(0).dtype;
    return map([&](const Scalar& x, int64_t i) {
      switch (node_->op) {
      case GraphOp::Not:
        return Scalar::of_int(t, t == DType::Bool ? !x.i : ~x.i);
      case GraphOp::And:
        return Scalar::of_int(t, x.i && in(1).get(i).i);
      case GraphOp::Or:
        return Scalar::of_int(t, x.i || in(1).get(i).i);
      default:
        return Scalar::of_int(t, (x.i != 0) != (in(1).get(i).i != 0));
      }
    });
  }

  void node(const GraphNode& n) {
    if (n.attrs.count("dequantize_op_quantize")) {
      std::vector<Tensor> operands;
      for (size_t i = 0; i < n.operands.size(); ++i)
        operands.push_back(in(i));
      return set(0, detail::dequantize_op_quantize(g_, n, operands));
    }
    switch (n.op) {
    case GraphOp::Constant:
      return set(0, n.tensor_attr("value"));
    case GraphOp::Add: // of i1: or, which is maximum
      return set(0, binary(result_type(0).dtype == DType::Bool ? Op::Max : Op::Add));
    case GraphOp::Subtract:
      return set(0, binary(Op::Sub));
    case GraphOp::Multiply: // of i1: and, which is minimum
      return set(0, binary(result_type(0).dtype == DType::Bool ? Op::Min : Op::Mul));
    case GraphOp::Divide:
      return set(0, binary(Op::Div));
    case GraphOp::Maximum:
      return set(0, binary(Op::Max));
    case GraphOp::Power:
      if (core::is_integer(result_type(0).dtype))
        return set(0, integer_power());
      return set(0, binary(Op::Pow));
    case GraphOp::Remainder: { // lhs - (lhs / rhs) * rhs, the quotient truncated
      DType t = result_type(0).dtype;
      if (core::is_float(t)) // C's fmod: exact, so computed in double and exact in t
        return set(0, map([&](const Scalar& x, int64_t i) {
                     return Scalar::of_float(t, std::fmod(x.f, in(1).get(i).f));
                   }));
      return set(0, map([&](const Scalar& x, int64_t i) {
                   Scalar y = in(1).get(i);
                   Scalar q = apply(Op::Div, {x, y}, t, i);
                   return apply(Op::Sub, {x, apply(Op::Mul, {q, y}, t, i)}, t, i);
                 }));
    }
    case GraphOp::OptimizationBarrier:
      for (size_t i = 0; i < n.results.size(); ++i)
        set(i, in(i));
      return;
    case GraphOp::Minimum:
      return set(0, binary(Op::Min));
    case GraphOp::Negate:
      return set(0, unary(Op::Neg));
    case GraphOp::Abs:
      return set(0, unary(Op::Abs));
    case GraphOp::Exponential:
      return set(0, unary(Op::Exp));
    case GraphOp::Log:
      return set(0, unary(Op::Log));
    case GraphOp::Tanh:
      return set(0, unary(Op::Tanh));
    case GraphOp::Atan2: // atan2(lhs, rhs), as C's atan2(y, x)
      return set(0, library(teval_atan2, true, core::complex_atan2));
    case GraphOp::Cbrt:
      return set(0, library([](double x, double) { return teval_cbrt(x); }, false,
                            [](core::Complex z, core::Complex) { return core::complex_cbrt(z); }));
    case GraphOp::ExponentialMinusOne:
      return set(0, library([](double x, double) { return teval_expm1(x); }, false,
                            [](core::Complex z, core::Complex) { return core::complex_expm1(z); }));
    case GraphOp::LogPlusOne:
      return set(0, library([](double x, double) { return teval_log1p(x); }, false,
                            [](core::Complex z, core::Complex) { return core::complex_log1p(z); }));
    case GraphOp::Real:
    case GraphOp::Imag: {
      DType t = result_type(0).dtype;
      const bool real = n.op == GraphOp::Real;
      return set(0, map([&](const Scalar& x, int64_t) {
                   if (!core::is_complex(x.dtype)) // a float's imaginary part is 0
                     return real ? x : Scalar::of_float(t, 0);
                   return Scalar::of_float(t, real ? x.f : x.im);
                 }));
    }
    case GraphOp::Complex: {
      DType t = result_type(0).dtype;
      return set(0, map([&](const Scalar& x, int64_t i) {
                   return Scalar::of_complex(t, x.f, in(1).get(i).f);
                 }));
    }
    case GraphOp::Fft:
      return set(0, detail::fft(n, in(0), result_type(0)));
    case GraphOp::UniformQuantize: { // of a quantized operand: requantized
      const core::ValueType& x = g_.values[static_cast<size_t>(n.operands[0])];
      return set(0, detail::quantize(x.quant ? detail::dequantize(in(0), *x.quant) : in(0),
                                     *result_type(0).quant));
    }
    case GraphOp::UniformDequantize:
      return set(0,
                 detail::dequantize(in(0), *g_.values[static_cast<size_t>(n.operands[0])].quant));
    case GraphOp::Sqrt:
      return set(0, unary(Op::Sqrt));
    case GraphOp::Rsqrt:
      return set(0, unary(Op::Rsqrt));
    case GraphOp::Erf:
      return set(0, unary(Op::Erf));
    case GraphOp::Convert: {
      DType t = result_type(0).dtype;
      return set(0, map([&](const Scalar& x, int64_t i) {
                   try {
                     return core::cast(x, t);
                   } catch (const core::Fault& f) {
                     throw fault(f, i);
                   }
                 }));
    }
    case GraphOp::Reshape: {
      Tensor out(in(0).dtype(), result_type(0).shape);
      for (int64_t i = 0; i < out.numel(); ++i)
        out.set(i, in(0).get(i));
      return set(0, std::move(out));
    }
    case GraphOp::BroadcastInDim:
      return set(0, broadcast());
    case GraphOp::Compare:
      return set(0, compare());
    case GraphOp::Select:
      return set(0, select());
    case GraphOp::Clamp:
      return set(0, clamp());
    case GraphOp::Transpose:
      return set(0, transpose());
    case GraphOp::Slice:
      return set(0, slice());
    case GraphOp::Concatenate:
      return set(0, concatenate());
    case GraphOp::Iota:
      return set(0, iota());
    case GraphOp::Reverse:
      return set(0, reverse());
    case GraphOp::Sine:
      return set(0, unary(Op::Sin));
    case GraphOp::Cosine:
      return set(0, unary(Op::Cos));
    case GraphOp::Tan:
      return set(0, unary(Op::Tan));
    case GraphOp::Logistic:
      return set(0, unary(Op::Sigmoid));
    case GraphOp::Floor:
      return set(0, unary(Op::RFloor));
    case GraphOp::Ceil:
      return set(0, unary(Op::RCeil));
    case GraphOp::RoundNearestEven:
      return set(0, round(true));
    case GraphOp::RoundNearestAfz:
      return set(0, round(false));
    case GraphOp::Sign:
      return set(0, sign());
    case GraphOp::IsFinite: {
      Tensor out(DType::Bool, result_type(0).shape);
      for (int64_t i = 0; i < out.numel(); ++i)
        out.set(i, Scalar::of_int(DType::Bool, std::isfinite(in(0).get(i).f)));
      return set(0, std::move(out));
    }
    case GraphOp::Not:
    case GraphOp::And:
    case GraphOp::Or:
    case GraphOp::Xor:
    case GraphOp::ShiftLeft:
    case GraphOp::ShiftRightArithmetic:
    case GraphOp::ShiftRightLogical:
    case GraphOp::Popcnt:
    case GraphOp::CountLeadingZeros:
      if (detail::is_bit_op(n.op, in(0).dtype()))
        return set(
            0, detail::bit_op(n, in(0), n.operands.size() > 1 ? &in(1) : nullptr, result_type(0)));
      return set(0, logic());
    case GraphOp::DotGeneral:
    case GraphOp::Dot:
      return set(0, detail::dot_general(n, in(0), in(1), result_type(0)));
    case GraphOp::Gather:
      return set(0, detail::gather(n, in(0), in(1), result_type(0)));
    case GraphOp::Convolution:
      return set(0, detail::convolution(n, in(0), in(1), result_type(0)));
    case GraphOp::Pad:
      return set(0, detail::pad(n, in(0), in(1), result_type(0)));
    case GraphOp::DynamicSlice:
    case GraphOp::DynamicUpdateSlice: {
      std::vector<const Tensor*> operands;
      for (size_t i = 0; i < n.operands.size(); ++i)
        operands.push_back(&in(i));
      return set(0, detail::dynamic_slice(n, operands, result_type(0)));
    }
    case GraphOp::TriangularSolve:
      return set(0, detail::triangular_solve(n, in(0), in(1), result_type(0)));
    case GraphOp::Reduce:
      if (!n.regions.empty())
        return with_regions(n);
      return set(0, detail::reduce(n, in(0), in(1), result_type(0)));
    case GraphOp::ReduceWindow:
      return set(0, detail::reduce_window(n, in(0), in(1), result_type(0)));
    case GraphOp::Softmax:
      return set(0, softmax(false));
    case GraphOp::LogSoftmax:
      return set(0, softmax(true));
    case GraphOp::Gelu:
      return set(0, gelu());
    case GraphOp::LayerNorm:
      return layer_norm();
    case GraphOp::L2Norm:
      return set(0, l2_norm());
    case GraphOp::AddN:
      return set(0, addn());
    case GraphOp::ArgMax:
      return arg_extreme(true);
    case GraphOp::ArgMin:
      return arg_extreme(false);
    case GraphOp::TopK:
      return top_k();
    case GraphOp::OneHot:
      return set(0, one_hot());
    case GraphOp::Quantize:
      return set(0, quantize(true));
    case GraphOp::Dequantize:
      return set(0, quantize(false));
    case GraphOp::Resize:
      return set(0, resize());
    case GraphOp::RngUniform:
      return set(0, rng_uniform());
    case GraphOp::Repeat:
      return set(0, detail::repeat(n, in(0), in(1), result_type(0)));
    case GraphOp::NonZero:
      return set(0, detail::non_zero(n, in(0), result_type(0)));
    case GraphOp::If:
    case GraphOp::Case:
    case GraphOp::While:
    case GraphOp::Sort:
    case GraphOp::Map:
    case GraphOp::Scatter:
    case GraphOp::SelectAndScatter:
      return with_regions(n);
    case GraphOp::BitcastConvert:
      return set(0, detail::bitcast_convert(in(0), result_type(0)));
    case GraphOp::ReducePrecision:
      return set(0, detail::reduce_precision(n, in(0)));
    }
    TEVAL_UNREACHABLE("graph op without a native meaning");
  }

  // power of integers (spec "power"; the reference interpreter's rule):
  // by squaring, wrapping; a negative exponent gives 0, but for a base of
  // 1 or -1, which it raises to the exponent's magnitude.
  Tensor integer_power() const {
    const DType t = result_type(0).dtype;
    const int bits = core::bit_width(t);
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    return map([&](const Scalar& x, int64_t i) {
      __int128 exponent = in(1).get(i).int_value();
      if (exponent < 0) {
        if (x.int_value() != 1 && x.int_value() != -1)
          return Scalar::of_int(t, 0);
        exponent = -exponent;
      }
      uint64_t base = static_cast<uint64_t>(x.i), result = 1;
      for (auto e = static_cast<uint64_t>(exponent); e; e >>= 1) {
        if (e & 1)
          result = result * base & mask;
        base = base * base & mask;
      }
      // Back to the dtype's value: sign-extended for the signed ones.
      int64_t value = static_cast<int64_t>(result);
      if (!core::is_unsigned(t) && bits < 64 && (result >> (bits - 1) & 1))
        value = static_cast<int64_t>(result | ~mask);
      return Scalar::of_int(t, value);
    });
  }

  // The ops that run regions (regions.h), each region run by region().
  void with_regions(const GraphNode& n) {
    std::vector<Tensor> operands;
    for (size_t i = 0; i < n.operands.size(); ++i)
      operands.push_back(in(i));
    const core::ValueType result = n.op == GraphOp::Map ? result_type(0) : core::ValueType{};
    auto run = [&](const core::GraphRegion& r, std::vector<Tensor> args) {
      return region(r, std::move(args));
    };
    std::vector<Tensor> out;
    if (n.op == GraphOp::Sort)
      out = detail::sort(n, operands, run);
    else if (n.op == GraphOp::Scatter)
      out = detail::scatter(n, operands, run);
    else if (n.op == GraphOp::SelectAndScatter)
      out.push_back(detail::select_and_scatter(n, operands, run));
    else if (n.op == GraphOp::Map)
      out.push_back(detail::map(n, operands, result, run));
    else if (n.op == GraphOp::Reduce)
      out = detail::reduce_region(n, operands, run);
    else
      out = detail::control_flow(n, std::move(operands), run);
    node_ = &n;
    for (size_t i = 0; i < out.size(); ++i)
      set(i, std::move(out[i]));
  }

  // The values \p r returns, its parameters bound to \p args.
  std::vector<Tensor> region(const core::GraphRegion& r, std::vector<Tensor> args) {
    core::poll_interrupt();
    for (size_t i = 0; i < r.params.size(); ++i)
      values_[static_cast<size_t>(r.params[i])] = std::move(args[i]);
    for (const GraphNode& inner : r.nodes) {
      core::poll_interrupt();
      node_ = &inner;
      node(inner);
    }
    std::vector<Tensor> out;
    for (int v : r.results)
      out.push_back(values_[static_cast<size_t>(v)]);
    return out;
  }

  const core::Graph& g_;
  std::vector<Tensor> values_;
  const GraphNode* node_ = nullptr;
};

} // namespace

std::vector<core::Tensor> evaluate(const core::Graph& g, const std::vector<core::Tensor>& inputs) {
  return Evaluator(g).run(inputs);
}

} // namespace teval::ops
