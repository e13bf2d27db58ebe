// The native references of ByteIR's ops (native_evaluator.h; the meanings
// in docs/SEMANTICS.md, "ByteIR ops in MLIR").
#include "ops/native_evaluator.h"

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

namespace teval::ops::detail {

using core::DType;
using core::Op;
using core::Scalar;
using core::Shape;
using core::Tensor;

Evaluator::Reduction Evaluator::reduction(const Shape& shape, const std::vector<int64_t>& axes) {
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

// softmax and log_softmax: max-subtracted, the sum in index order.
Tensor Evaluator::softmax(bool log) const {
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
void Evaluator::layer_norm() {
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
      Scalar scaled = apply(Op::Mul, {apply(Op::Div, {centred(i), den}, t, i), in(1).get(a)}, t, i);
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
Tensor Evaluator::l2_norm() const {
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
// are equal (-0 and 0) or both NaN. With \p total, floats are in
// StableHLO's total order instead (chlo.top_k's): -NaN < -inf < ... < -0 <
// 0 < ... < inf < NaN, NaNs of one sign tied.
bool Evaluator::beats(const Scalar& x, const Scalar& y, bool larger, bool total) {
  if (!core::is_float(x.dtype))
    return larger ? x.int_value() > y.int_value() : x.int_value() < y.int_value();
  if (total) {
    auto key = [](double v) {
      const int side = std::signbit(v) ? -1 : 1;
      return std::isnan(v) ? std::make_tuple(2 * side, 0.0, 0) : std::make_tuple(0, v, side);
    };
    return larger ? key(x.f) > key(y.f) : key(x.f) < key(y.f);
  }
  if (std::isnan(x.f) || std::isnan(y.f))
    return std::isnan(x.f) && !std::isnan(y.f);
  return larger ? x.f > y.f : x.f < y.f;
}

// arg_max / arg_min: the first element along the axis that no other
// beats (the last with select_last_index), and its value.
void Evaluator::arg_extreme(bool max) {
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
void Evaluator::top_k() {
  const Tensor& x = in(0);
  int64_t axis = node_->int_attr("axis");
  int64_t k = node_->int_attr("k");
  const bool total = node_->attrs.count("total_order") != 0;
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
                   true, total);
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
Tensor Evaluator::one_hot() const {
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
Tensor Evaluator::quantize(bool to_integer) const {
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
    Scalar odd =
        apply(Op::Sub, {floor, apply(Op::Mul, {constant(real, 2), half_floor}, real, i)}, real, i);
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

Evaluator::AxisMap Evaluator::axis_map(int64_t in_extent, int64_t out_extent,
                                       const Scalar& scale) const {
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
                {apply(Op::Div, {apply(Op::Add, {xo, f(0.5)}, F, x), scale}, F, x), f(0.5)}, F, x);
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

Tensor Evaluator::resize() const {
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
Tensor Evaluator::rng_uniform() const {
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
    double u = std::ldexp(static_cast<double>(philox4x32_10({h, 0, 0, 0}, {seed, offset})[0]), -32);
    Scalar ut = core::cast(Scalar::of_float(DType::Float64, u), t);
    out.set(i, apply(Op::Add, {low, apply(Op::Mul, {ut, range}, t, i)}, t, i));
  }
  return out;
}

Tensor Evaluator::addn() const {
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
Tensor Evaluator::gelu() const {
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

} // namespace teval::ops::detail
