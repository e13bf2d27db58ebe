// An op graph as one einstein_v2 program (see decompose.h): the walk over
// the graph, names, constants and elementwise ops (the Decomposer of
// decompose_class.h; decompose_byteir.cpp and decompose_layout.cpp hold
// its other methods).
#include "ops/decompose.h"
#include "ops/decompose_class.h"

#include "ops/bits.h"
#include "ops/convolution.h"
#include "ops/dot.h"
#include "ops/dynamic_slice.h"
#include "ops/gather.h"
#include "ops/pad.h"
#include "ops/reduce.h"
#include "ops/text.h"
#include "ops/triangular_solve.h"

#include "core/error.h"
#include "core/fault.h"
#include "core/format.h"
#include "core/kernel.h"

#include <cmath>
#include <set>

namespace teval::ops {

namespace detail {

using core::DType;
using core::GraphNode;
using core::GraphOp;
using core::Shape;

std::string dtype_word(DType t) {
  return "`" + std::string(core::name(t)) + "`";
}

Decomposition Decomposer::run() {
  for (size_t i = 0; i < g_.inputs.size(); ++i) {
    names_[g_.inputs[i]] = core::graph_input_name(i);
    kernel_type(g_.inputs[i], g_.input_spans[i]);
  }
  for (const GraphNode& n : g_.nodes) {
    for (int r : n.results)
      names_[r] = fresh(g_.value_names[static_cast<size_t>(r)]);
    for (int v : n.operands)
      kernel_type(v, n.span);
    for (int v : n.results)
      kernel_type(v, n.span);
    node_ = &n;
    node(n);
  }
  std::vector<std::string> extra;
  for (size_t i = 0; i < g_.outputs.size(); ++i) {
    std::string out = core::graph_output_name(i);
    int v = g_.outputs[i];
    statement(out, type(v).shape, "=", names_.at(v) + "[" + join(axes(type(v).shape.size())) + "]");
    if (i + 1 < g_.outputs.size())
      extra.push_back("\"" + out + "\"");
  }
  std::vector<std::string> dict;
  for (size_t i = 0; i < g_.inputs.size(); ++i)
    dict.push_back(entry(core::graph_input_name(i), type(g_.inputs[i])));
  for (const auto& [name, t] : out_.constants)
    dict.push_back(entry(name, {t.dtype(), t.shape()}));
  std::string statements;
  for (size_t i = 0; i < lines_.size(); ++i)
    statements += lines_[i] + (i + 1 < lines_.size() ? ";\n" : "\n");
  out_.program = "- einstein_v2(\"\"\"\n" + statements + "\"\"\", input_dict={" + join(dict) + "}" +
                 (extra.empty() ? "" : ", extra_outputs=[" + join(extra) + "]") + ")\n";
  return std::move(out_);
}

std::string Decomposer::entry(const std::string& name, const core::ValueType& t) {
  std::vector<std::string> dims;
  for (int64_t d : t.shape)
    dims.push_back(std::to_string(d));
  return "\"" + name + "\": {\"dtype\": \"" + std::string(core::name(t.dtype)) +
         "\", \"shape\": [" + join(dims) + "]}";
}

// A tensor name from an MLIR value name: %0 -> v0, %0#1 -> v0_1.
std::string Decomposer::fresh(const std::string& mlir) {
  std::string base = "v";
  for (char c : mlir.substr(1))
    base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  std::string name = base;
  for (int i = 2; used_.count(name); ++i)
    name = base + "_" + std::to_string(i);
  used_.insert(name);
  return name;
}

std::string Decomposer::operand(size_t i, const std::vector<std::string>& index) const {
  return names_.at(node_->operands[i]) + "[" + join(index) + "]";
}

void Decomposer::emit(std::string line) {
  // The Kernel IR's limit, said at the op that passes it rather than in
  // the generated text.
  if (lines_.size() + 1 >= core::kMaxStatements)
    throw core::Error(core::ErrorKind::Limit, node_ ? node_->span : core::Span(),
                      "the function's einstein_v2 decomposition passes teval's limit of " +
                          std::to_string(core::kMaxStatements) +
                          " statements at this op; --engine interp evaluates the function with "
                          "the ops' native references instead");
  lines_.push_back(std::move(line));
}

// `TARGET[D0, ...] OP VALUE where D0 in E0, ...`: every data axis's
// extent is stated, whether the right-hand side indexes a whole
// dimension with it or not (a broadcast does not).
void Decomposer::statement(const std::string& target, const Shape& shape, const std::string& op,
                           const std::string& value) {
  std::vector<std::string> index = axes(shape.size()), where;
  for (size_t d = 0; d < shape.size(); ++d)
    where.push_back(index[d] + " in " + std::to_string(shape[d]));
  emit(target + "[" + join(index) + "] " + op + " " + value +
       (where.empty() ? "" : " where " + join(where)));
}

void Decomposer::constant() {
  const core::Tensor& value = node_->tensor_attr("value");
  bool splat = value.numel() > 0;
  for (int64_t i = 1; splat && i < value.numel(); ++i)
    splat = core::identical(value.get(i), value.get(0));
  bool finite = splat && (!core::is_float(value.dtype()) || std::isfinite(value.get(0).f));
  if (!splat || !finite) {
    std::string name = "c_" + result();
    out_.constants.emplace(name, value);
    assign(name + "[" + join(axes(value.shape().size())) + "]");
    return;
  }
  std::string v = core::format_scalar(value.get(0));
  if (value.dtype() == DType::Bool)
    v = value.get(0).i ? "1" : "0";
  assign("const(" + v + ", dtype=" + dtype_word(value.dtype()) + ")");
}

Decomposer::Reduced Decomposer::reduced_over(const std::vector<int64_t>& over) const {
  const Shape& shape = type(node_->operands[0]).shape;
  Reduced r{axes(shape.size()), axes(shape.size()), axes(shape.size()), shape};
  for (int64_t a : over) {
    size_t d = static_cast<size_t>(a);
    r.reduced[d] = "K" + std::to_string(d);
    r.kept[d] = "0";
    r.kept_shape[d] = 1;
  }
  return r;
}

std::string Decomposer::at(const std::string& t, const std::vector<std::string>& index) {
  return t + "[" + join(index) + "]";
}

// A helper tensor of the node, named after its result.
std::string Decomposer::helper(const std::string& suffix) {
  std::string name = result() + "_" + suffix;
  used_.insert(name);
  return name;
}

// A float constant of the node's element type: a bare literal is
// float32, and would promote a float16 operand (and round a float64
// constant to float32).
std::string Decomposer::constant_of(const std::string& digits) const {
  DType t = result_type().dtype;
  return t == DType::Float32 ? digits : typed_constant(digits);
}

std::string Decomposer::typed_constant(const std::string& digits) const {
  return typed_constant_of(result_type().dtype, digits);
}

std::string Decomposer::typed_constant_of(DType t, const std::string& digits) {
  return "const(" + digits + ", dtype=" + dtype_word(t) + ")";
}

// Values of an element type kernels do not have leave the function to the
// native references.
void Decomposer::kernel_type(int v, core::Span span) const {
  if (type(v).quant)
    throw core::Error(core::ErrorKind::Unsupported, span,
                      "quantized values (" + type(v).quant->text +
                          ") have no einstein_v2 decomposition; --engine interp evaluates the "
                          "function with the ops' native references");
  DType t = type(v).dtype;
  if (!core::kernel_dtype(t))
    throw core::Error(core::ErrorKind::Unsupported, span,
                      "values of " + core::mlir_element(t) +
                          " have no einstein_v2 decomposition (kernels have no " +
                          core::to_string(t) +
                          "); --engine interp evaluates the function with the ops' native "
                          "references");
}

void Decomposer::node(const GraphNode& n) {
  auto binary = [&](const std::string& op) { assign(same(0) + " " + op + " " + same(1)); };
  auto call = [&](const std::string& fn) { assign(same(0) + ".call(`" + fn + "`)"); };
  // add and maximum of i1 are or, multiply and minimum and.
  const bool bool_result = !n.results.empty() && result_type().dtype == DType::Bool;
  switch (n.op) {
  case GraphOp::Constant:
    return constant();
  case GraphOp::Add:
    return bool_result ? logic(GraphOp::Or) : binary("+");
  case GraphOp::Subtract:
    return binary("-");
  case GraphOp::Multiply:
    return bool_result ? logic(GraphOp::And) : binary("*");
  case GraphOp::Divide:
    return binary("/");
  case GraphOp::Maximum:
    if (bool_result)
      return logic(GraphOp::Or);
    return assign(same(0) + ".call(`max`, [" + same(1) + "])");
  case GraphOp::Power:
    if (!core::is_float(result_type().dtype))
      throw core::Error(core::ErrorKind::Unsupported, n.span,
                        "power of integers has no einstein_v2 decomposition (exponentiation by "
                        "squaring is a loop); --engine interp evaluates the function with the "
                        "ops' native references");
    return assign(same(0) + ".call(`pow`, [" + same(1) + "])");
  case GraphOp::Remainder:
    if (core::is_float(result_type().dtype))
      throw core::Error(core::ErrorKind::Unsupported, n.span,
                        "remainder of floats (fmod) has no einstein_v2 decomposition (the "
                        "Kernel IR's % floors); --engine interp evaluates the function with the "
                        "ops' native references");
    return assign(same(0) + " - " + same(0) + " / " + same(1) + " * " + same(1));
  case GraphOp::OptimizationBarrier:
    for (size_t i = 0; i < n.results.size(); ++i)
      statement(names_.at(n.results[i]), type(n.results[i]).shape, "=",
                operand(i, axes(type(n.results[i]).shape.size())));
    return;
  case GraphOp::Minimum:
    if (bool_result)
      return logic(GraphOp::And);
    return assign(same(0) + ".call(`min`, [" + same(1) + "])");
  case GraphOp::Negate:
    return assign("-" + same(0));
  case GraphOp::Abs:
    return call("abs");
  case GraphOp::Exponential:
    return call("exp");
  case GraphOp::Log:
    return call("log");
  case GraphOp::Tanh:
    return call("tanh");
  case GraphOp::Sqrt:
    return call("sqrt");
  case GraphOp::Rsqrt:
    return call("rsqrt");
  case GraphOp::Erf:
    return call("erf");
  case GraphOp::Convert:
    return assign(same(0) + ".cast(" + dtype_word(result_type().dtype) + ")");
  case GraphOp::Reshape:
    return reshape();
  case GraphOp::BroadcastInDim:
    return broadcast();
  case GraphOp::Compare:
    return compare();
  case GraphOp::Select:
    return select();
  case GraphOp::Clamp:
    return clamp();
  case GraphOp::Transpose:
    return transpose();
  case GraphOp::Slice:
    return slice();
  case GraphOp::Concatenate:
    return concatenate();
  case GraphOp::Iota:
    return iota();
  case GraphOp::ReplicaId: // one process: replica 0, partition 0
  case GraphOp::PartitionId:
    return assign("const(0).cast(" + dtype_word(result_type().dtype) + ")");
  case GraphOp::Reverse:
    return reverse();
  case GraphOp::Sine:
    return call("sin");
  case GraphOp::Cosine:
    return call("cos");
  case GraphOp::Tan:
    return call("tan");
  case GraphOp::Logistic:
    return call("sigmoid");
  case GraphOp::Floor:
    return call("rfloor");
  case GraphOp::Ceil:
    return call("rceil");
  case GraphOp::RoundNearestEven:
    return round(true);
  case GraphOp::RoundNearestAfz:
    return round(false);
  case GraphOp::Sign:
    return sign();
  case GraphOp::IsFinite:
    return assign("(" + same(0) + " - " + same(0) +
                  " == " + typed_constant_of(type(n.operands[0]).dtype, "0.0") + ").cast(`bool`)");
  case GraphOp::IsInf:
  case GraphOp::IsPosInf:
  case GraphOp::IsNegInf: { // a number x - x is not 0 of: infinities and NaN
    const std::string zero = typed_constant_of(type(n.operands[0]).dtype, "0.0");
    const std::string sign = n.op == GraphOp::IsPosInf   ? " & (" + same(0) + " > " + zero + ")"
                             : n.op == GraphOp::IsNegInf ? " & (" + same(0) + " < " + zero + ")"
                                                         : "";
    return assign("((" + same(0) + " == " + same(0) + ") & (" + same(0) + " - " + same(0) +
                  " != " + zero + ")" + sign + ").cast(`bool`)");
  }
  case GraphOp::Asin:
    return call("asin");
  case GraphOp::Atan2: // atan2(lhs, rhs), as C's atan2(y, x)
    return assign(same(0) + ".call(`atan2`, [" + same(1) + "])");
  case GraphOp::Cbrt:
    return call("cbrt");
  case GraphOp::ExponentialMinusOne:
    return call("expm1");
  case GraphOp::LogPlusOne:
    return call("log1p");
  case GraphOp::Asinh:
    return call("asinh");
  case GraphOp::Acosh:
    return call("acosh");
  case GraphOp::Atanh:
    return call("atanh");
  case GraphOp::Erfc:
    return call("erfc");
  case GraphOp::Acos:
    return call("acos");
  case GraphOp::Atan:
    return call("atan");
  case GraphOp::Sinh:
    return call("sinh");
  case GraphOp::Cosh:
    return call("cosh");
  case GraphOp::Not:
  case GraphOp::And:
  case GraphOp::Or:
  case GraphOp::Xor:
  case GraphOp::ShiftLeft:
  case GraphOp::ShiftRightArithmetic:
  case GraphOp::ShiftRightLogical:
  case GraphOp::Popcnt:
  case GraphOp::CountLeadingZeros:
    if (detail::is_bit_op(n.op, result_type().dtype)) {
      for (std::string& line : detail::bit_op_statements(
               n, names_.at(n.operands[0]), n.operands.size() > 1 ? names_.at(n.operands[1]) : "",
               result_type(), result(), [&](const std::string& s) { return helper(s); }))
        emit(std::move(line));
      return;
    }
    return logic(n.op);
  case GraphOp::DotGeneral:
  case GraphOp::Dot:
    if (n.attrs.count("accumulation_type") && core::is_float(type(n.operands[0]).dtype)) {
      const std::string operand = core::mlir_element(type(n.operands[0]).dtype);
      if (n.string_attr("lhs_precision_type") != operand ||
          n.string_attr("rhs_precision_type") != operand ||
          n.string_attr("accumulation_type") != core::mlir_element(result_type().dtype))
        throw core::Error(core::ErrorKind::Unsupported, n.span,
                          "dot_general with an algorithm (its operands rounded to its precision "
                          "types, its sums in its accumulation type) has no einstein_v2 "
                          "decomposition; --engine interp evaluates the function with the ops' "
                          "native references");
    }
    return emit(detail::dot_general_statement(n, type(n.operands[0]), names_.at(n.operands[0]),
                                              type(n.operands[1]), names_.at(n.operands[1]),
                                              result_type(), result()));
  case GraphOp::Gather:
    return emit(detail::gather_statement(n, type(n.operands[0]), names_.at(n.operands[0]),
                                         type(n.operands[1]), names_.at(n.operands[1]),
                                         result_type(), result()));
  case GraphOp::Convolution:
    return emit(detail::convolution_statement(n, type(n.operands[0]), names_.at(n.operands[0]),
                                              type(n.operands[1]), names_.at(n.operands[1]),
                                              result_type(), result()));
  case GraphOp::Pad:
    return emit(detail::pad_statement(n, type(n.operands[0]), names_.at(n.operands[0]),
                                      names_.at(n.operands[1]), result_type(), result()));
  case GraphOp::DynamicSlice:
  case GraphOp::DynamicUpdateSlice: {
    std::vector<std::string> names;
    std::vector<core::ValueType> types;
    for (int v : n.operands) {
      names.push_back(names_.at(v));
      types.push_back(type(v));
    }
    return emit(detail::dynamic_slice_statement(n, names, types, result_type(), result()));
  }
  case GraphOp::TriangularSolve:
    for (std::string& line : detail::triangular_solve_statements(
             n, names_.at(n.operands[0]), names_.at(n.operands[1]), result_type(), result(),
             [&](const std::string& s) { return helper(s); }))
      emit(std::move(line));
    return;
  case GraphOp::ReduceWindow:
    if (!n.regions.empty())
      throw core::Error(core::ErrorKind::Unsupported, n.span,
                        "reduce_window of several inputs or of a body other than one op (its "
                        "body is a region) has no einstein_v2 decomposition; --engine interp "
                        "evaluates the function with the ops' native references");
    for (std::string& line : detail::reduce_window_statements(
             n, type(n.operands[0]), names_.at(n.operands[0]), names_.at(n.operands[1]),
             core::constant_value(g_, n.operands[1]), result_type(), result(),
             [&](const std::string& s) { return helper(s); }))
      emit(std::move(line));
    return;
  case GraphOp::Reduce:
    if (!n.regions.empty())
      throw core::Error(core::ErrorKind::Unsupported, n.span,
                        "reduce of several inputs or of a body other than one op (its body is "
                        "a region) has no einstein_v2 decomposition; --engine interp evaluates "
                        "the function with the ops' native references");
    for (std::string& line : detail::reduce_statements(
             n, type(n.operands[0]), names_.at(n.operands[0]), names_.at(n.operands[1]),
             core::constant_value(g_, n.operands[1]), result_type(), result(),
             [&](const std::string& s) { return helper(s); }))
      emit(std::move(line));
    return;
  case GraphOp::Softmax:
    return softmax(false);
  case GraphOp::LogSoftmax:
    return softmax(true);
  case GraphOp::Gelu:
    return gelu();
  case GraphOp::LayerNorm:
    return layer_norm();
  case GraphOp::L2Norm:
    return l2_norm();
  case GraphOp::AddN: {
    std::string sum = same(0);
    for (size_t i = 1; i < n.operands.size(); ++i)
      sum += " + " + same(i);
    return assign(sum);
  }
  case GraphOp::ArgMax:
    return arg_extreme(true);
  case GraphOp::ArgMin:
    return arg_extreme(false);
  case GraphOp::TopK:
    return top_k();
  case GraphOp::OneHot:
    return one_hot();
  case GraphOp::Quantize:
    return quantize(true);
  case GraphOp::Dequantize:
    return quantize(false);
  case GraphOp::Resize:
    return resize();
  case GraphOp::RngUniform:
    return rng_uniform();
  case GraphOp::If:
  case GraphOp::Case:
  case GraphOp::While:
  case GraphOp::Sort:
  case GraphOp::Map:
  case GraphOp::Scatter:
  case GraphOp::SelectAndScatter:
  case GraphOp::Scan:
  case GraphOp::BitcastConvert:
  case GraphOp::ReducePrecision:
  case GraphOp::Cholesky:
  case GraphOp::ErfInv:
  case GraphOp::Lgamma:
  case GraphOp::Digamma:
  case GraphOp::Zeta:
  case GraphOp::Polygamma:
  case GraphOp::BesselI1e:
  case GraphOp::MulHi:
  case GraphOp::NextAfter:
  case GraphOp::Real:
  case GraphOp::Imag:
  case GraphOp::Complex:
  case GraphOp::Fft:
  case GraphOp::RngBitGenerator:
  case GraphOp::UniformQuantize:
  case GraphOp::UniformDequantize:
  case GraphOp::Repeat:
  case GraphOp::NonZero:
    throw core::Error(
        core::ErrorKind::Unsupported, n.span,
        std::string(core::graph_op_name(n.op)) +
            (n.op == GraphOp::If || n.op == GraphOp::Case || n.op == GraphOp::While
                 ? " (control flow)"
             : n.op == GraphOp::Sort             ? " (its comparator is a region)"
             : n.op == GraphOp::Map              ? " (its computation is a region)"
             : n.op == GraphOp::Scatter          ? " (its update computation is a region)"
             : n.op == GraphOp::SelectAndScatter ? " (its select and scatter functions are regions)"
             : n.op == GraphOp::Scan             ? " (its body is a region)"
             : n.op == GraphOp::BitcastConvert || n.op == GraphOp::ReducePrecision
                 ? " (a view of the elements' bits)"
             : n.op == GraphOp::Repeat || n.op == GraphOp::NonZero
                 ? " (its result's shape depends on values)"
             : n.op == GraphOp::NextAfter ? " (a step through the type's bits)"
             : n.op == GraphOp::RngBitGenerator
                 ? " (64-bit unsigned counters the Kernel IR has no carries for)"
             : n.op == GraphOp::Cholesky
                 ? " (a factorization checked as it runs, not decomposed yet)"
             : n.op == GraphOp::ErfInv || n.op == GraphOp::Lgamma || n.op == GraphOp::Digamma ||
                     n.op == GraphOp::Zeta || n.op == GraphOp::Polygamma ||
                     n.op == GraphOp::BesselI1e
                 ? " (a math function the Kernel IR has no operator for)"
             : n.op == GraphOp::MulHi ? " (the high half of a product twice the type's width)"
                                      : "") +
            " has no einstein_v2 decomposition; --engine interp evaluates the "
            "function with the ops' native references");
  }
  TEVAL_UNREACHABLE("graph op without a decomposition");
}

} // namespace detail

Decomposition decompose(const core::Graph& g) {
  return detail::Decomposer(g).run();
}

bool has_decomposition(core::GraphOp op) {
  using core::GraphOp;
  return op != GraphOp::If && op != GraphOp::Case && op != GraphOp::While && op != GraphOp::Sort &&
         op != GraphOp::Map && op != GraphOp::Scatter && op != GraphOp::BitcastConvert &&
         op != GraphOp::ReducePrecision && op != GraphOp::SelectAndScatter && op != GraphOp::Scan &&
         op != GraphOp::Real && op != GraphOp::Imag && op != GraphOp::Complex &&
         op != GraphOp::Fft && op != GraphOp::UniformQuantize && op != GraphOp::UniformDequantize &&
         op != GraphOp::Repeat && op != GraphOp::NonZero && op != GraphOp::NextAfter &&
         op != GraphOp::Cholesky && op != GraphOp::ErfInv && op != GraphOp::Lgamma &&
         op != GraphOp::Digamma && op != GraphOp::Zeta && op != GraphOp::Polygamma &&
         op != GraphOp::BesselI1e && op != GraphOp::MulHi && op != GraphOp::RngBitGenerator;
}

} // namespace teval::ops
