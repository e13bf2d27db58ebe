// Quantized tensors (StableHLO specification, "Types" and "Quantization
// computations"): uniform_quantize, uniform_dequantize, bitcast_convert to
// and from the storage type, and the elementwise ops the specification
// defines as dequantize_op_quantize on per-tensor quantized tensors. Every
// other op of a quantized value is an error, never a computation on the
// stored integers.
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"

#include <algorithm>

namespace teval::parser::mlir_detail {

namespace {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphOp;
using core::ValueType;

// The elementwise ops of no attribute whose meaning on quantized tensors is
// dequantize_op_quantize.
bool elementwise(GraphOp op) {
  switch (op) {
  case GraphOp::Add:
  case GraphOp::Subtract:
  case GraphOp::Multiply:
  case GraphOp::Divide:
  case GraphOp::Maximum:
  case GraphOp::Minimum:
  case GraphOp::Power:
  case GraphOp::Atan2:
  case GraphOp::Remainder:
  case GraphOp::Abs:
  case GraphOp::Negate:
  case GraphOp::Exponential:
  case GraphOp::ExponentialMinusOne:
  case GraphOp::Log:
  case GraphOp::LogPlusOne:
  case GraphOp::Logistic:
  case GraphOp::Sqrt:
  case GraphOp::Rsqrt:
  case GraphOp::Cbrt:
  case GraphOp::Sine:
  case GraphOp::Cosine:
  case GraphOp::Tan:
  case GraphOp::Tanh:
  case GraphOp::Sign:
  case GraphOp::Floor:
  case GraphOp::Ceil:
  case GraphOp::RoundNearestEven:
  case GraphOp::RoundNearestAfz:
    return true;
  default:
    return false;
  }
}

bool binary(GraphOp op) {
  switch (op) {
  case GraphOp::Add:
  case GraphOp::Subtract:
  case GraphOp::Multiply:
  case GraphOp::Divide:
  case GraphOp::Maximum:
  case GraphOp::Minimum:
  case GraphOp::Power:
  case GraphOp::Atan2:
  case GraphOp::Remainder:
    return true;
  default:
    return false;
  }
}

} // namespace

std::optional<std::vector<ValueType>> quantized_meaning(const OpSite& site, const core::Graph& g,
                                                        core::GraphNode& node) {
  std::vector<ValueType> ins;
  for (int v : site.operands)
    ins.push_back(g.values[static_cast<size_t>(v)]);
  auto quantized = [](const ValueType& t) { return t.quant != nullptr; };
  const bool any = std::any_of(ins.begin(), ins.end(), quantized) ||
                   std::any_of(site.declared_outs.begin(), site.declared_outs.end(), quantized);
  const bool quantize = site.op == GraphOp::UniformQuantize;
  const bool dequantize = site.op == GraphOp::UniformDequantize;
  if ((!any && !quantize && !dequantize) || site.op == GraphOp::Constant)
    return std::nullopt; // a constant of a quantized type holds stored integers
  const std::string op(core::graph_op_name(site.op));
  if (!elementwise(site.op) && !quantize && !dequantize && site.op != GraphOp::BitcastConvert)
    throw Error(ErrorKind::Unsupported, site.span,
                op + " of quantized tensors is not read: teval reads uniform_quantize, "
                     "uniform_dequantize, bitcast_convert to and from the storage type, and the "
                     "elementwise ops (dequantize_op_quantize)");
  const size_t arity = binary(site.op) ? 2 : 1;
  if (site.operands.size() != arity || site.declared_outs.size() != 1)
    throw Error(ErrorKind::Shape, site.span,
                op + " takes " + (arity == 2 ? "two operands" : "one operand") +
                    " and gives one result");
  only(site, {});
  const ValueType& out = site.declared_outs[0];
  for (const ValueType& in : ins)
    if (in.shape != out.shape)
      throw Error(ErrorKind::Shape, site.span,
                  op + " of " + type_string(in) + " gives a value of its shape, not " +
                      type_string(out));
  if (quantize) { // (C1) a float or quantized operand, a quantized result
    if (!out.quant || (!ins[0].quant && ins[0].dtype != out.quant->expressed))
      throw Error(ErrorKind::Type, site.span,
                  "uniform_quantize takes a tensor of the expressed type or a quantized one, and "
                  "gives a quantized one; not " +
                      type_string(ins[0]) + " to " + type_string(out));
    return std::vector<ValueType>{out};
  }
  if (dequantize) {
    if (!ins[0].quant || out.quant || out.dtype != ins[0].quant->expressed)
      throw Error(ErrorKind::Type, site.span,
                  "uniform_dequantize takes a quantized tensor and gives one of its expressed "
                  "type; not " +
                      type_string(ins[0]) + " to " + type_string(out));
    return std::vector<ValueType>{out};
  }
  if (site.op == GraphOp::BitcastConvert) { // between a quantized type and its storage
    const ValueType& q = ins[0].quant ? ins[0] : out;
    const ValueType& plain = ins[0].quant ? out : ins[0];
    if (plain.quant || plain.dtype != q.quant->storage)
      throw Error(ErrorKind::Type, site.span,
                  "bitcast_convert of quantized values goes to or from their storage type, not " +
                      type_string(ins[0]) + " to " + type_string(out));
    return std::vector<ValueType>{out};
  }
  // (C2) all quantized, per-tensor (the specification's dequantize_op_quantize).
  for (const ValueType* t : {static_cast<const ValueType*>(&ins[0]), &out})
    if (!t->quant || t->quant->axis)
      throw Error(ErrorKind::Type, site.span,
                  op +
                      " of quantized tensors takes and gives per-tensor quantized tensors "
                      "only; not " +
                      type_string(*t));
  for (const ValueType& in : ins)
    if (!in.quant || in.quant->axis || in.quant->storage != out.quant->storage ||
        in.quant->expressed != out.quant->expressed)
      throw Error(ErrorKind::Type, site.span,
                  op +
                      " takes per-tensor quantized tensors of one storage and expressed type; "
                      "they are " +
                      type_string(in) + " and " + type_string(out));
  node.attrs["dequantize_op_quantize"] = true;
  return std::vector<ValueType>{out};
}

} // namespace teval::parser::mlir_detail
