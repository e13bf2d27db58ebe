// The native reference meaning of an op graph (see native.h and the ByteIR
// section of docs/SEMANTICS.md): the walk over the graph, the elementwise
// ops and regions (the Evaluator of native_evaluator.h; native_byteir.cpp
// and native_layout.cpp hold its other methods).
#include "ops/native.h"
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
#include "ops/rng.h"
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

namespace detail {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphNode;
using core::GraphOp;
using core::Op;
using core::Scalar;
using core::Shape;
using core::Tensor;

std::vector<int64_t> unflatten(int64_t at, const Shape& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? at % shape[d] : 0;
    at = shape[d] ? at / shape[d] : 0;
  }
  return index;
}

std::vector<Tensor> Evaluator::run(const std::vector<Tensor>& inputs, const Split* split,
                                   const SegmentRun* segment) {
  TEVAL_ASSERT(inputs.size() == g_.inputs.size(), "one tensor per graph input");
  for (size_t i = 0; i < inputs.size(); ++i)
    values_[static_cast<size_t>(g_.inputs[i])] = narrowed(i, inputs[i]);
  auto native = [&](const GraphNode& n) {
    core::poll_interrupt();
    node_ = &n;
    node(n);
  };
  if (!split)
    std::for_each(g_.nodes.begin(), g_.nodes.end(), native);
  for (const Split::Step& step : split ? split->steps : std::vector<Split::Step>{}) {
    if (!step.segment) {
      native(g_.nodes[step.index]);
      continue;
    }
    const Segment& s = split->segments[step.index];
    std::vector<Tensor> in;
    for (int v : s.inputs) { // views: the values stay here while the segment runs
      const Tensor& t = values_[static_cast<size_t>(v)];
      in.push_back(Tensor::borrow(t.dtype(), t.shape(), t.bytes().data()));
    }
    std::vector<Tensor> out = (*segment)(step.index, in);
    TEVAL_ASSERT(out.size() == s.outputs.size(), "one tensor per segment output");
    for (size_t i = 0; i < out.size(); ++i)
      values_[static_cast<size_t>(s.outputs[i])] = std::move(out[i]);
  }
  std::vector<Tensor> out;
  for (int v : g_.outputs)
    out.push_back(values_[static_cast<size_t>(v)]);
  return out;
}

// Input i as the graph's type: an int8 or uint8 tensor holding i2, i4,
// ui2 or ui4 values, or a float32 one holding a minifloat's
// (core::carrier), converted, each value checked to be one of the type.
Tensor Evaluator::narrowed(size_t i, const Tensor& given) const {
  const core::ValueType& type = g_.values[static_cast<size_t>(g_.inputs[i])];
  const DType t = type.dtype;
  if (type.quant) // the stored integers, each in the storage range
    for (int64_t k = 0; k < given.numel(); ++k)
      if (const int64_t v = given.get(k).i;
          v < type.quant->storage_min || v > type.quant->storage_max)
        throw core::Error(core::ErrorKind::Range, g_.input_spans[i],
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

const core::ValueType& Evaluator::result_type(size_t i) const {
  return g_.values[static_cast<size_t>(node_->results[i])];
}

// One scalar operation at element \p at of the node's first result, a
// Fault becoming the node's error at that element.
Scalar Evaluator::apply(Op op, std::initializer_list<Scalar> args, DType t, int64_t at) const {
  try {
    return core::apply(op, args.begin(), t, core::Overflow::Wrap);
  } catch (const core::Fault& f) {
    throw fault(f, at);
  }
}

Error Evaluator::fault(const core::Fault& f, int64_t at) const {
  return Error(ErrorKind::Arithmetic, node_->span,
               f.message + " in " + std::string(core::graph_op_name(node_->op)) + " at element [" +
                   core::format_index(unflatten(at, result_type(0).shape)) + "] of " +
                   g_.value_names[static_cast<size_t>(node_->results[0])]);
}

Tensor Evaluator::map(const std::function<Scalar(const Scalar&, int64_t)>& f) const {
  Tensor out(result_type(0).dtype, result_type(0).shape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.set(i, f(in(0).get(i), i));
  return out;
}

Tensor Evaluator::unary(Op op) const {
  DType t = result_type(0).dtype;
  return map([&](const Scalar& x, int64_t i) { return apply(op, {x}, t, i); });
}

// Kernel IR function \p op of real values, as unary() and binary() apply
// it; of complex values, \p c (core/complex.h), computed in double and
// each part rounded to the type's.
Tensor Evaluator::real_or_complex(Op op, core::Complex (*c)(core::Complex, core::Complex)) const {
  const DType t = result_type(0).dtype;
  const bool two = core::arity(op) == 2;
  if (!core::is_complex(t))
    return two ? binary(op) : unary(op);
  return map([&](const Scalar& x, int64_t i) {
    const Scalar y = two ? in(1).get(i) : Scalar{};
    return core::complex_result(t, c({x.f, x.im}, {y.f, y.im}));
  });
}

Tensor Evaluator::binary(Op op) const {
  DType t = result_type(0).dtype;
  return map([&](const Scalar& x, int64_t i) { return apply(op, {x, in(1).get(i)}, t, i); });
}

void Evaluator::node(const GraphNode& n) {
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
    return set(0, real_or_complex(Op::Atan2, core::complex_atan2));
  case GraphOp::Cbrt:
    return set(0, real_or_complex(Op::Cbrt, [](core::Complex z, core::Complex) {
                 return core::complex_cbrt(z);
               }));
  case GraphOp::ExponentialMinusOne:
    return set(0, real_or_complex(Op::Expm1, [](core::Complex z, core::Complex) {
                 return core::complex_expm1(z);
               }));
  case GraphOp::LogPlusOne:
    return set(0, real_or_complex(Op::Log1p, [](core::Complex z, core::Complex) {
                 return core::complex_log1p(z);
               }));
  case GraphOp::Asin:
    return set(0, unary(Op::Asin));
  case GraphOp::Acos:
    return set(0, unary(Op::Acos));
  case GraphOp::Atan:
    return set(0, unary(Op::Atan));
  case GraphOp::Sinh:
    return set(0, unary(Op::Sinh));
  case GraphOp::Cosh:
    return set(0, unary(Op::Cosh));
  case GraphOp::Asinh:
    return set(0, unary(Op::Asinh));
  case GraphOp::Acosh:
    return set(0, unary(Op::Acosh));
  case GraphOp::Atanh:
    return set(0, unary(Op::Atanh));
  case GraphOp::Erfc:
    return set(0, unary(Op::Erfc));
  case GraphOp::ErfInv: // the float64 function; float32's that rounded, then to the type
  case GraphOp::Lgamma:
  case GraphOp::Digamma:
  case GraphOp::BesselI1e: {
    const DType t = result_type(0).dtype;
    double (*f)(double) = n.op == GraphOp::ErfInv    ? teval_erf_inv
                          : n.op == GraphOp::Lgamma  ? teval_lgamma
                          : n.op == GraphOp::Digamma ? teval_digamma
                                                     : teval_bessel_i1e;
    return set(0, map([&](const Scalar& x, int64_t) {
                 const double r = f(x.f);
                 return Scalar::of_float(t, t == DType::Float64 ? r : static_cast<float>(r));
               }));
  }
  case GraphOp::Zeta: // as the unary functions above, of two operands
  case GraphOp::Polygamma: {
    const DType t = result_type(0).dtype;
    double (*f)(double, double) = n.op == GraphOp::Zeta ? teval_zeta : teval_polygamma;
    return set(0, map([&](const Scalar& x, int64_t i) {
                 const double r = f(x.f, in(1).get(i).f);
                 return Scalar::of_float(t, t == DType::Float64 ? r : static_cast<float>(r));
               }));
  }
  case GraphOp::MulHi: { // the high half of the double-width product
    const DType t = result_type(0).dtype;
    const int width = core::bit_width(t);
    const bool is_signed = core::kind(t) == core::DTypeKind::Signed;
    return set(0, map([&](const Scalar& x, int64_t i) {
                 const int64_t y = in(1).get(i).i;
                 const int64_t high =
                     is_signed ? static_cast<int64_t>((static_cast<__int128>(x.i) * y) >> width)
                               : static_cast<int64_t>(
                                     (static_cast<unsigned __int128>(static_cast<uint64_t>(x.i)) *
                                      static_cast<uint64_t>(y)) >>
                                     width);
                 return Scalar::of_int(t, high);
               }));
  }
  case GraphOp::NextAfter:
    return set(0, next_after());
  case GraphOp::IsInf:
  case GraphOp::IsPosInf:
  case GraphOp::IsNegInf: {
    Tensor out(DType::Bool, result_type(0).shape);
    for (int64_t i = 0; i < out.numel(); ++i) {
      const double x = in(0).get(i).f;
      const bool inf =
          std::isinf(x) && (n.op == GraphOp::IsInf || (x > 0) == (n.op == GraphOp::IsPosInf));
      out.set(i, Scalar::of_int(DType::Bool, inf));
    }
    return set(0, std::move(out));
  }
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
  case GraphOp::ReplicaId: // one process: replica 0, partition 0
  case GraphOp::PartitionId:
    return set(0, core::Tensor(result_type(0).dtype, result_type(0).shape));
  case GraphOp::RngBitGenerator: {
    std::vector<core::Tensor> results = detail::rng_bit_generator(n, in(0), result_type(1));
    set(0, std::move(results[0]));
    return set(1, std::move(results[1]));
  }
  case GraphOp::UniformQuantize: { // of a quantized operand: requantized
    const core::ValueType& x = g_.values[static_cast<size_t>(n.operands[0])];
    return set(0, detail::quantize(x.quant ? detail::dequantize(in(0), *x.quant) : in(0),
                                   *result_type(0).quant));
  }
  case GraphOp::UniformDequantize:
    return set(0, detail::dequantize(in(0), *g_.values[static_cast<size_t>(n.operands[0])].quant));
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
  case GraphOp::Cholesky:
    return set(0, detail::cholesky(n, in(0), n.span));
  case GraphOp::Reduce:
    if (!n.regions.empty())
      return with_regions(n);
    return set(0, detail::reduce(n, in(0), in(1), result_type(0)));
  case GraphOp::ReduceWindow:
    if (!n.regions.empty())
      return with_regions(n);
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
  case GraphOp::Scan:
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
Tensor Evaluator::integer_power() const {
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
void Evaluator::with_regions(const GraphNode& n) {
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
  else if (n.op == GraphOp::Scan) {
    // The results: the outputs, then as many carries as inits.
    const size_t inits = n.operands.size() - static_cast<size_t>(n.int_attr("inputs"));
    std::vector<core::ValueType> outputs;
    for (size_t i = 0; i + inits < n.results.size(); ++i)
      outputs.push_back(result_type(i));
    out = detail::scan(n, operands, outputs, run);
  } else if (n.op == GraphOp::Reduce)
    out = detail::reduce_region(n, operands, run);
  else if (n.op == GraphOp::ReduceWindow)
    out = detail::reduce_window_region(n, operands, result_type(0).shape, run);
  else
    out = detail::control_flow(n, std::move(operands), run);
  node_ = &n;
  for (size_t i = 0; i < out.size(); ++i)
    set(i, std::move(out[i]));
}

// The values \p r returns, its parameters bound to \p args.
std::vector<Tensor> Evaluator::region(const core::GraphRegion& r, std::vector<Tensor> args) {
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

} // namespace detail

std::vector<core::Tensor> evaluate(const core::Graph& g, const std::vector<core::Tensor>& inputs) {
  return detail::Evaluator(g).run(inputs);
}

} // namespace teval::ops
