// The native references of StableHLO's layout, selection and comparison
// ops (native_evaluator.h; docs/SEMANTICS.md).
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
#include "core/numeric.h"
#include "core/scalar_ops.h"
#include "core/tmath.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace teval::ops::detail {

using core::DType;
using core::GraphOp;
using core::Op;
using core::Scalar;
using core::Shape;
using core::Tensor;

Tensor Evaluator::broadcast() const {
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

// IEEE totalOrder as a key: -NaN, then the negative numbers and -0, then
// +0 and the positive numbers, then +NaN (NaN payloads are not ordered).
std::pair<int, double> Evaluator::total_key(double x) {
  if (std::isnan(x))
    return {std::signbit(x) ? 0 : 3, 0.0};
  return {std::signbit(x) ? 1 : 2, x};
}

Tensor Evaluator::compare() const {
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
Scalar Evaluator::at_or_only(const Tensor& t, int64_t i) {
  return t.shape().empty() ? t.get(0) : t.get(i);
}

Tensor Evaluator::select() const {
  Tensor out(result_type(0).dtype, result_type(0).shape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.set(i, at_or_only(in(0), i).i ? in(1).get(i) : in(2).get(i));
  return out;
}

// minimum(maximum(operand, min), max), as those ops compute.
Tensor Evaluator::clamp() const {
  DType t = result_type(0).dtype;
  Tensor out(t, result_type(0).shape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.set(
        i, apply(Op::Min,
                 {apply(Op::Max, {in(1).get(i), at_or_only(in(0), i)}, t, i), at_or_only(in(2), i)},
                 t, i));
  return out;
}

// result[index] = operand[from(index)], for the data movement ops.
Tensor Evaluator::gather_from(const Tensor& x,
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

Tensor Evaluator::transpose() const {
  const std::vector<int64_t>& perm = node_->ints_attr("permutation");
  return gather_from(in(0), [&](std::vector<int64_t>& index) {
    std::vector<int64_t> from(index.size());
    for (size_t d = 0; d < perm.size(); ++d)
      from[static_cast<size_t>(perm[d])] = index[d];
    index = from;
  });
}

Tensor Evaluator::slice() const {
  const std::vector<int64_t>& start = node_->ints_attr("start");
  const std::vector<int64_t>& strides = node_->ints_attr("strides");
  return gather_from(in(0), [&](std::vector<int64_t>& index) {
    for (size_t d = 0; d < index.size(); ++d)
      index[d] = start[d] + index[d] * strides[d];
  });
}

Tensor Evaluator::reverse() const {
  const std::vector<int64_t>& dims = node_->ints_attr("dimensions");
  const Shape& shape = in(0).shape();
  return gather_from(in(0), [&](std::vector<int64_t>& index) {
    for (int64_t d : dims)
      index[static_cast<size_t>(d)] =
          shape[static_cast<size_t>(d)] - 1 - index[static_cast<size_t>(d)];
  });
}

Tensor Evaluator::concatenate() const {
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

Tensor Evaluator::iota() const {
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
Tensor Evaluator::sign() const {
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
Tensor Evaluator::round(bool even) const {
  DType t = result_type(0).dtype;
  return map([&](const Scalar& x, int64_t) {
    return Scalar::of_float(t, even ? std::nearbyint(x.f) : std::round(x.f));
  });
}

// chlo.next_after(x, y): the value of x's type next to x in the direction
// of y (C's nextafter): y when they are equal (so -0 toward 0 is 0), NaN
// when either is, the smallest subnormal of y's sign after a zero.
Tensor Evaluator::next_after() const {
  DType t = result_type(0).dtype;
  return map([&](const Scalar& x, int64_t i) {
    const double y = in(1).get(i).f;
    if (t == DType::Float64)
      return Scalar::of_float(t, std::nextafter(x.f, y));
    if (t == DType::Float32)
      return Scalar::of_float(t, std::nextafterf(static_cast<float>(x.f), static_cast<float>(y)));
    if (std::isnan(x.f) || std::isnan(y)) // a NaN operand, as C's nextafter returns it
      return Scalar::of_float(t, x.f + y);
    if (x.f == y)
      return Scalar::of_float(t, y);
    const bool half = t == DType::Float16; // else bfloat16: 16 bits each
    uint16_t bits = half ? core::float16_bits(x.f) : core::bfloat16_bits(x.f);
    if (x.f == 0)
      bits = static_cast<uint16_t>((y < 0 ? 0x8000 : 0) | 1);
    else if ((x.f < y) == (x.f > 0)) // away from zero
      ++bits;
    else
      --bits;
    return Scalar::of_float(t, half ? core::float16_value(bits) : core::bfloat16_value(bits));
  });
}

// not: logical for i1, bitwise for integers; and, or, xor of i1 values.
Tensor Evaluator::logic() const {
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

} // namespace teval::ops::detail
