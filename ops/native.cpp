// The native reference meaning of an op graph (see native.h and the ByteIR
// section of docs/SEMANTICS.md).
#include "ops/native.h"

#include "core/error.h"
#include "core/format.h"
#include "core/interrupt.h"
#include "core/kernel.h"
#include "core/scalar_ops.h"

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
      values_[static_cast<size_t>(g_.inputs[i])] = inputs[i];
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

  Tensor binary(Op op) const {
    DType t = result_type(0).dtype;
    return map([&](const Scalar& x, int64_t i) { return apply(op, {x, in(1).get(i)}, t, i); });
  }

  // Reductions along one axis: the input seen as [outer, extent, inner].
  struct Rows {
    int64_t outer = 1, extent = 1, inner = 1;
    int64_t at(int64_t o, int64_t k, int64_t i) const { return (o * extent + k) * inner + i; }
  };
  static Rows rows(const Shape& shape, int64_t axis) {
    Rows r;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
      (d < axis ? r.outer : d == axis ? r.extent : r.inner) *= shape[static_cast<size_t>(d)];
    return r;
  }

  // softmax and log_softmax: max-subtracted, the sum in index order.
  Tensor softmax(bool log) const {
    const Tensor& x = in(0);
    DType t = x.dtype();
    Rows r = rows(x.shape(), node_->int_attr("axis"));
    Tensor out(t, x.shape());
    for (int64_t o = 0; o < r.outer; ++o)
      for (int64_t i = 0; i < r.inner; ++i) {
        Scalar m = core::aggregation_init(core::Aggregation::Max, t);
        for (int64_t k = 0; k < r.extent; ++k)
          m = core::combine(core::Aggregation::Max, m, x.get(r.at(o, k, i)));
        Scalar s = core::aggregation_init(core::Aggregation::Sum, t);
        for (int64_t k = 0; k < r.extent; ++k) {
          int64_t at = r.at(o, k, i);
          Scalar e = apply(Op::Exp, {apply(Op::Sub, {x.get(at), m}, t, at)}, t, at);
          s = core::combine(core::Aggregation::Sum, s, e);
          if (!log)
            out.set(at, e);
        }
        for (int64_t k = 0; k < r.extent; ++k) {
          int64_t at = r.at(o, k, i);
          out.set(at,
                  log ? apply(Op::Sub,
                              {apply(Op::Sub, {x.get(at), m}, t, at), apply(Op::Log, {s}, t, at)},
                              t, at)
                      : apply(Op::Div, {out.get(at), s}, t, at));
        }
      }
    return out;
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

  void node(const GraphNode& n) {
    switch (n.op) {
    case GraphOp::Constant:
      return set(0, n.tensor_attr("value"));
    case GraphOp::Add:
      return set(0, binary(Op::Add));
    case GraphOp::Subtract:
      return set(0, binary(Op::Sub));
    case GraphOp::Multiply:
      return set(0, binary(Op::Mul));
    case GraphOp::Divide:
      return set(0, binary(Op::Div));
    case GraphOp::Maximum:
      return set(0, binary(Op::Max));
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
    case GraphOp::Softmax:
      return set(0, softmax(false));
    case GraphOp::LogSoftmax:
      return set(0, softmax(true));
    case GraphOp::Gelu:
      return set(0, gelu());
    }
    TEVAL_UNREACHABLE("graph op without a native meaning");
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
