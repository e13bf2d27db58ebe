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
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace teval::parser::mlir_detail {

namespace {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphOp;
using core::Span;
using core::ValueType;

// The binary ones of the elementwise ops below.
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

// The elementwise ops of no attribute whose meaning on quantized tensors is
// dequantize_op_quantize: the binary ones and these unary ones.
} // namespace

bool moves_elements(GraphOp op) {
  switch (op) {
  case GraphOp::Reshape:
  case GraphOp::Transpose:
  case GraphOp::BroadcastInDim:
  case GraphOp::Slice:
  case GraphOp::Concatenate:
  case GraphOp::Reverse:
  case GraphOp::DynamicSlice:
  case GraphOp::DynamicUpdateSlice:
  case GraphOp::Gather:
  case GraphOp::Pad:
    return true;
  default:
    return false;
  }
}

namespace {

bool elementwise(GraphOp op) {
  switch (op) {
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
    return binary(op);
  }
}

} // namespace

std::shared_ptr<const core::Quantization> quantized_element(const std::string& written, Span span) {
  auto fail = [&](const std::string& why) -> std::shared_ptr<const core::Quantization> {
    throw Error(ErrorKind::Type, span, "quantized type `" + written + "`: " + why);
  };
  std::string text;
  for (char c : written)
    if (!std::isspace(static_cast<unsigned char>(c)))
      text += c;
  const std::string prefix = "!quant.uniform<";
  if (!text.starts_with(prefix) || !text.ends_with(">"))
    return fail("teval reads !quant.uniform<...> types");
  std::string body = text.substr(prefix.size(), text.size() - prefix.size() - 1);
  // The head (types, range, axis) ends at the first comma outside <...>.
  size_t comma = std::string::npos;
  for (size_t i = 0, depth = 0; i < body.size(); ++i) {
    depth += body[i] == '<' ? 1 : 0;
    depth -= body[i] == '>' && depth > 0 ? 1 : 0;
    if (body[i] == ',' && depth == 0) {
      comma = i;
      break;
    }
  }
  if (comma == std::string::npos)
    return fail("expected `storage:expressed, scale:zero_point`");
  std::string head = body.substr(0, comma), params = body.substr(comma + 1);
  auto q = std::make_shared<core::Quantization>();
  q->text = "!quant.uniform<" + body.substr(0, comma) + ", " + params + ">";
  auto integer = [&](const std::string& t, const char* what) {
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || *end || errno)
      fail(std::string(what) + " `" + t + "` is not an integer");
    return static_cast<int64_t>(v);
  };
  // storage[<min:max>]
  size_t colon = head.find(':', head.find('>') == std::string::npos ? 0 : head.find('>'));
  std::string storage = head.substr(0, colon);
  std::optional<std::pair<int64_t, int64_t>> range;
  if (size_t lt = storage.find('<'); lt != std::string::npos) {
    std::string r = storage.substr(lt + 1, storage.size() - lt - 2);
    size_t c = r.find(':', 1);
    if (!storage.ends_with(">") || c == std::string::npos)
      return fail("expected `storage<min:max>`");
    range = {integer(r.substr(0, c), "storage_min"), integer(r.substr(c + 1), "storage_max")};
    storage = storage.substr(0, lt);
  }
  std::optional<DType> st = element_type(storage);
  if (!st || !core::is_integer(*st) || *st == DType::UInt64)
    return fail("its storage type `" + storage + "` is not an integer type teval has");
  q->storage = *st;
  q->storage_min = range ? range->first : core::int_min(*st);
  q->storage_max = range ? range->second : core::int_max(*st);
  if (q->storage_min < core::int_min(*st) || q->storage_max > core::int_max(*st) ||
      q->storage_min >= q->storage_max) // (C1)-(C3)
    return fail("storage_min and storage_max must satisfy " + std::to_string(core::int_min(*st)) +
                " <= storage_min < storage_max <= " + std::to_string(core::int_max(*st)));
  if (colon == std::string::npos)
    return fail("expected `storage:expressed`");
  std::string rest = head.substr(colon + 1);
  size_t axis_colon = rest.find(':');
  std::optional<DType> ex = element_type(rest.substr(0, axis_colon));
  if (!ex || !core::is_float(*ex))
    return fail("its expressed type `" + rest.substr(0, axis_colon) + "` is not a float type");
  q->expressed = *ex;
  if (axis_colon != std::string::npos) {
    q->axis = integer(rest.substr(axis_colon + 1), "quantization_dimension");
    if (*q->axis < 0) // (C11)
      return fail("quantization_dimension must not be negative");
  }
  // scale[:zero_point], or {...} of them.
  bool braced = params.starts_with("{") && params.ends_with("}");
  if (braced)
    params = params.substr(1, params.size() - 2);
  for (size_t at = 0; at <= params.size();) {
    size_t end = std::min(params.find(',', at), params.size());
    std::string one = params.substr(at, end - at);
    size_t c = one.find(':');
    const std::string scale_text = one.substr(0, c);
    char* stop = nullptr;
    double scale = std::strtod(scale_text.c_str(), &stop);
    if (scale_text.empty() || *stop)
      return fail("`" + one + "` is not scale:zero_point");
    scale = core::round_float(q->expressed, scale);
    if (!(scale > 0) || !std::isfinite(scale)) // (C5), (C6)
      return fail("a scale must be positive and finite, not " + one.substr(0, c));
    int64_t zero = c == std::string::npos ? 0 : integer(one.substr(c + 1), "zero_point");
    if (zero < q->storage_min || zero > q->storage_max) // (C7)
      return fail("zero point " + std::to_string(zero) + " is outside the storage range [" +
                  std::to_string(q->storage_min) + ", " + std::to_string(q->storage_max) + "]");
    q->scales.push_back(scale);
    q->zero_points.push_back(zero);
    at = end + 1;
  }
  if (!q->axis && q->scales.size() != 1) // (C10)
    return fail("a per-tensor type has one scale; a per-axis one names its dimension");
  return q;
}

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
  if ((!any && !quantize && !dequantize) || site.op == GraphOp::Constant ||
      site.op == GraphOp::OptimizationBarrier)
    return std::nullopt; // a constant of a quantized type holds stored integers; a barrier
                         // passes its operands on
  const std::string op(core::graph_op_name(site.op));
  if (moves_elements(site.op)) {
    // The stored integers move; every quantized value is per-tensor, of
    // the first one's quantization (the results carry it: moved_quantization).
    const ValueType* first = nullptr;
    for (const ValueType& t : ins)
      if (t.quant && !first)
        first = &t;
    for (const std::vector<ValueType>* list :
         {static_cast<const std::vector<ValueType>*>(&ins), &site.declared_outs})
      for (const ValueType& t : *list) {
        // Per-axis: the same parameters, along the dimension the op moves
        // the operand's to (check_moved_axis, once the attributes are read).
        core::Quantization moved = t.quant ? *t.quant : core::Quantization{};
        if (t.quant && first && first->quant->axis && moved.axis)
          moved.axis = first->quant->axis;
        if (t.quant && first &&
            (t.quant->axis.has_value() != first->quant->axis.has_value() ||
             !(moved == *first->quant)))
          throw Error(ErrorKind::Unsupported, site.span,
                      op + " of " + type_string(t) +
                          ": its quantized values must share one quantization");
        if (t.quant && t.quant->axis && site.op == GraphOp::Gather)
          throw Error(ErrorKind::Unsupported, site.span,
                      op + " of " + type_string(t) +
                          ": per-axis quantized values gathered are not read yet");
      }
    return std::nullopt;
  }
  if (site.op == GraphOp::DotGeneral || site.op == GraphOp::Dot ||
      site.op == GraphOp::Convolution) {
    // The op on the dequantized operands, quantized to the result's type
    // (dequantize_op_quantize; of a float lhs, hybrid_dequantize_then_op):
    // meaning() reads the op on the expressed types, then checks the
    // constraints (check_quantized_contraction).
    node.attrs["dequantize_op_quantize"] = true;
    return std::nullopt;
  }
  if (site.op == GraphOp::Cholesky || site.op == GraphOp::TriangularSolve) {
    // The specification's dequantize_op_quantize: the factorization (the
    // solve) of the dequantized operands, quantized to the result's type;
    // every operand and the result per-tensor quantized, of one expressed
    // type.
    const core::Quantization* first = nullptr;
    for (const std::vector<ValueType>* list :
         {static_cast<const std::vector<ValueType>*>(&ins), &site.declared_outs})
      for (const ValueType& t : *list) {
        first = first ? first : t.quant.get();
        if (!t.quant || t.quant->axis || t.quant->expressed != first->expressed)
          throw Error(ErrorKind::Type, site.span,
                      op +
                          " of quantized tensors takes and gives per-tensor quantized tensors "
                          "of one expressed type; not " +
                          type_string(t));
      }
    node.attrs["dequantize_op_quantize"] = true;
    return std::nullopt;
  }
  if (site.op == GraphOp::Compare || site.op == GraphOp::Select || site.op == GraphOp::Clamp) {
    // The specification's dequantize_compare, dequantize_select_quantize
    // and dequantize_op_quantize(clamp): the op on the dequantized
    // operands (select's predicate as it is), compare's i1 as it is,
    // select's and clamp's result quantized to its type.
    const ValueType* first = nullptr;
    for (const ValueType& t : ins)
      if (t.quant && !first)
        first = &t;
    const bool compare = site.op == GraphOp::Compare;
    const size_t quantized_from = site.op == GraphOp::Select ? 1 : 0;
    for (size_t i = quantized_from; i < ins.size(); ++i)
      if (!ins[i].quant || ins[i].quant->axis || ins[i].quant->expressed != first->quant->expressed)
        throw Error(ErrorKind::Unsupported, site.span,
                    op +
                        " of quantized tensors takes per-tensor quantized operands of one "
                        "expressed type; not " +
                        type_string(ins[i]));
    for (const ValueType& t : site.declared_outs)
      if (compare ? t.quant != nullptr
                  : !t.quant || t.quant->axis || t.quant->expressed != first->quant->expressed)
        throw Error(ErrorKind::Type, site.span,
                    op +
                        (compare ? " of quantized tensors gives i1 values, not "
                                 : " of quantized tensors gives a per-tensor quantized result of "
                                   "their expressed type, not ") +
                        type_string(t));
    node.attrs["dequantize_op_quantize"] = true;
    return std::nullopt;
  }
  if (!elementwise(site.op) && !quantize && !dequantize && site.op != GraphOp::BitcastConvert)
    throw Error(ErrorKind::Unsupported, site.span,
                op + " of quantized tensors is not read: teval reads uniform_quantize, "
                     "uniform_dequantize, bitcast_convert to and from the storage type, the "
                     "elementwise ops, compare, select, clamp, dot_general, convolution, "
                     "cholesky and triangular_solve (dequantize_op_quantize), the ops that move "
                     "elements and the ops whose regions take quantized scalars");
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

void check_moved_axis(const OpSite& site, const ValueType& from, const ValueType& to,
                      const core::GraphNode& node) {
  const int64_t axis = *from.quant->axis;
  std::optional<int64_t> moved = axis; // where the op takes the dimension
  switch (site.op) {
  case GraphOp::Transpose: {
    const auto& perm = node.ints_attr("permutation");
    moved = std::find(perm.begin(), perm.end(), axis) - perm.begin();
    break;
  }
  case GraphOp::BroadcastInDim:
    moved = node.ints_attr("dims")[static_cast<size_t>(axis)];
    break;
  case GraphOp::Reshape: { // a dimension kept whole, after as many elements
    int64_t before = 1, after = 1;
    for (int64_t d = 0; d < axis; ++d)
      before *= from.shape[static_cast<size_t>(d)];
    moved.reset();
    for (size_t d = 0; d < to.shape.size() && !moved; ++d) {
      if (after == before && to.shape[d] == from.shape[static_cast<size_t>(axis)])
        moved = static_cast<int64_t>(d);
      after *= to.shape[d];
    }
    break;
  }
  default:
    break;
  }
  const std::string op(core::graph_op_name(site.op));
  if (!moved || to.quant->axis != moved ||
      to.shape[static_cast<size_t>(*moved)] != from.shape[static_cast<size_t>(axis)])
    throw Error(ErrorKind::Type, site.span,
                op + " of " + type_string(from) + " to " + type_string(to) +
                    (moved ? ": the result is quantized along dimension " + std::to_string(*moved) +
                                 ", where " + op + " moves the operand's, with its extent"
                           : ": the reshape splits or merges the quantized dimension"));
}

void check_quantized_contraction(const OpSite& site, const std::vector<ValueType>& ins,
                                 const ValueType& out, const core::GraphNode& node) {
  const bool conv = site.op == GraphOp::Convolution;
  const std::string op(core::graph_op_name(site.op));
  auto fail = [&](const std::string& why, int dot_c, int conv_c) {
    throw Error(ErrorKind::Type, site.span,
                op + " of " + type_string(ins[0]) + " and " + type_string(ins[1]) + " to " +
                    type_string(out) + ": " + why + " (C" + std::to_string(conv ? conv_c : dot_c) +
                    ")");
  };
  const core::Quantization *lhs = ins[0].quant.get(), *rhs = ins[1].quant.get(),
                           *res = out.quant.get();
  if (!rhs || (lhs != nullptr) != (res != nullptr))
    fail("the lhs is quantized exactly when the rhs and the result are", 14, 28);
  if (!conv && std::any_of(rhs->zero_points.begin(), rhs->zero_points.end(),
                           [](int64_t z) { return z != 0; }))
    fail("the rhs's zero points must be 0", 15, 0);
  if (rhs->axis) {
    const int64_t axis = *rhs->axis;
    auto contracts = [&] {
      const auto& dims = node.ints_attr("rhs_contract");
      return std::count(dims.begin(), dims.end(), axis) != 0;
    };
    if (conv ? axis != node.int_attr("kernel_out") : contracts())
      fail(conv ? "a per-axis rhs is quantized along the kernel's output feature dimension"
                : "a per-axis rhs is not quantized along a contracting dimension",
           16, 29);
  }
  if (conv && res && res->axis && *res->axis != node.int_attr("output_feature"))
    fail("a per-axis result is quantized along the output feature dimension", 0, 30);
  if (lhs) {
    if (lhs->axis)
      fail("the lhs is per-tensor quantized", 14, 28);
    if (lhs->storage != rhs->storage)
      fail("the lhs and the rhs have one storage type", 17, 31);
    if (lhs->expressed != rhs->expressed || rhs->expressed != res->expressed)
      fail("the operands and the result have one expressed type", 18, 32);
    if (!rhs->axis && res->axis)
      fail("a per-tensor rhs gives a per-tensor result", 19, 33);
  } else if (ins[0].dtype != rhs->expressed || out.dtype != rhs->expressed) {
    fail("a float lhs and the result are of the rhs's expressed type", 20, 34);
  }
}

} // namespace teval::parser::mlir_detail
