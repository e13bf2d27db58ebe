// Quantized tensors' native meanings (see quantize.h).
#include "ops/quantize.h"

#include "ops/native.h"

#include "core/numeric.h"
#include "core/scalar_ops.h"
#include "core/shape.h"

#include <cmath>

namespace teval::ops::detail {

namespace {

using core::Op;
using core::Scalar;
using core::Tensor;

// The index into q's scales and zero points of element \p at of a tensor
// of \p shape: 0 per-tensor, its index along the axis per-axis.
size_t parameter(const core::Quantization& q, const core::Shape& shape, int64_t at) {
  if (!q.axis)
    return 0;
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(*q.axis) + 1; d < shape.size(); ++d)
    inner *= shape[d];
  return static_cast<size_t>((at / inner) % shape[static_cast<size_t>(*q.axis)]);
}

// a op b rounded to \p t.
Scalar arith(Op op, const Scalar& a, const Scalar& b) {
  const Scalar args[] = {a, b};
  return core::apply(op, args, a.dtype, core::Overflow::Wrap);
}

} // namespace

Tensor dequantize(const Tensor& x, const core::Quantization& q) {
  Tensor out(q.expressed, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const size_t p = parameter(q, x.shape(), i);
    const __int128 shifted = x.get(i).int_value() - q.zero_points[p];
    const Scalar value = Scalar::of_float(q.expressed, core::int_to_float(q.expressed, shifted));
    out.set(i, arith(Op::Mul, value, Scalar::of_float(q.expressed, q.scales[p])));
  }
  return out;
}

Tensor quantize(const Tensor& x, const core::Quantization& q) {
  Tensor out(q.storage, x.shape());
  const double lo = core::int_to_float(q.expressed, q.storage_min);
  const double hi = core::int_to_float(q.expressed, q.storage_max);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const size_t p = parameter(q, x.shape(), i);
    Scalar v = arith(Op::Div, x.get(i), Scalar::of_float(q.expressed, q.scales[p]));
    v = arith(Op::Add, v,
              Scalar::of_float(q.expressed, core::int_to_float(q.expressed, q.zero_points[p])));
    // clamp(min, v, max) as the specification's clamp: NaN stays NaN.
    double c = std::isnan(v.f) ? v.f : std::fmin(std::fmax(v.f, lo), hi);
    c = std::nearbyint(c); // ties to even in the default rounding mode
    // NaN has no integer: the specification's convert leaves it TBD; teval
    // stores 0, as XLA's and the reference interpreter's conversions do.
    const int64_t stored = std::isnan(c) ? 0 : static_cast<int64_t>(c);
    out.set(i, Scalar::of_int(q.storage, stored));
  }
  return out;
}

Tensor dequantize_op_quantize(const core::Graph& g, const core::GraphNode& n,
                              const std::vector<Tensor>& operands) {
  core::Graph one;
  std::vector<Tensor> inputs;
  core::GraphNode op = n;
  op.attrs.erase("dequantize_op_quantize");
  op.operands.clear();
  for (size_t i = 0; i < n.operands.size(); ++i) { // select's predicate is not quantized
    const core::ValueType& t = g.values[static_cast<size_t>(n.operands[i])];
    one.values.push_back({t.quant ? t.quant->expressed : t.dtype, t.shape});
    one.value_names.push_back(g.value_names[static_cast<size_t>(n.operands[i])]);
    one.inputs.push_back(static_cast<int>(i));
    one.input_spans.push_back(n.span);
    op.operands.push_back(static_cast<int>(i));
    inputs.push_back(t.quant ? dequantize(operands[i], *t.quant) : operands[i]);
  }
  const core::ValueType& r = g.values[static_cast<size_t>(n.results[0])];
  one.values.push_back({r.quant ? r.quant->expressed : r.dtype, r.shape});
  one.value_names.push_back(g.value_names[static_cast<size_t>(n.results[0])]);
  op.results = {static_cast<int>(n.operands.size())};
  one.outputs = op.results;
  one.output_spans.push_back(n.span);
  one.nodes.push_back(std::move(op));
  Tensor result = evaluate(one, inputs).at(0);
  return r.quant ? quantize(result, *r.quant) : result; // compare's i1 is not quantized
}

} // namespace teval::ops::detail
