// What each op of an MLIR function means to teval (see mlir_ops.h and the
// ByteIR section of docs/SEMANTICS.md): the plain ops, and the dispatch to
// the other parts of OpMeaning (mlir_meaning.h).
#include "parser/mlir/mlir_meaning.h"

#include "core/format.h"
#include "core/kernel.h"

#include <algorithm>

namespace teval::parser::mlir_detail {

std::vector<ValueType> OpMeaning::meaning(const OpSite& site, GraphNode& node) {
  switch (site.op) {
  case GraphOp::Constant: {
    if (site.name == "after_all" || site.name == "create_token") { // spec "after_all"
      only(site, {});
      for (size_t i = 0; i < site.operands.size(); ++i)
        if (!operand(site, i).token)
          throw Error(ErrorKind::Type, site.span,
                      site.name + " takes tokens; operand " + std::to_string(i) + " is " +
                          type_string(operand(site, i)));
      node.attrs["value"] = core::Tensor(DType::Bool, {0});
      return {ValueType{DType::Bool, {0}, nullptr, true}};
    }
    arity(site, 0);
    if (site.declared_outs.size() != 1)
      throw Error(ErrorKind::Shape, site.span, "a constant has one result");
    const ast::Expr* value =
        site.positional.empty() ? find(site, "value", true) : site.positional[0];
    Typed t = typed(*value);
    ValueType type = t.type ? tensor_type(*t.type) : site.declared_outs[0];
    core::Tensor v = dense_value(*t.value, type);
    if (type.quant) // stored integers, in the storage range
      for (int64_t i = 0; i < v.numel(); ++i)
        if (v.get(i).i < type.quant->storage_min || v.get(i).i > type.quant->storage_max)
          throw Error(ErrorKind::Range, t.value->span,
                      "element " + std::to_string(i) + " of the constant, " +
                          std::to_string(v.get(i).i) + ", is outside the storage range [" +
                          std::to_string(type.quant->storage_min) + ", " +
                          std::to_string(type.quant->storage_max) + "] of " + type.quant->text);
    node.attrs["value"] = std::move(v);
    return {type};
  }
  case GraphOp::Add:
  case GraphOp::Subtract:
  case GraphOp::Multiply:
  case GraphOp::Divide:
  case GraphOp::Maximum:
  case GraphOp::Minimum:
  case GraphOp::Power:
  case GraphOp::Remainder:
  case GraphOp::Atan2:
  case GraphOp::NextAfter:
  case GraphOp::Zeta:
  case GraphOp::Polygamma: {
    arity(site, 2);
    only(site, {});
    const ValueType& a = one_type(site);
    if (site.op == GraphOp::Zeta || site.op == GraphOp::Polygamma)
      float_operand(site, 0);
    if (site.op == GraphOp::Atan2)
      float_or_complex_operand(site, 0);
    if (site.op == GraphOp::NextAfter && a.dtype != DType::Float16 && a.dtype != DType::BFloat16 &&
        a.dtype != DType::Float32 && a.dtype != DType::Float64)
      throw Error(ErrorKind::Type, site.span,
                  "chlo.next_after takes f16, bf16, f32 or f64 values, not " + type_string(a));
    if (site.op == GraphOp::Remainder)
      not_complex(site, a);
    // The spec's add and multiply of booleans are or and and, as are
    // maximum and minimum.
    if (a.dtype == DType::Bool && site.op != GraphOp::Maximum && site.op != GraphOp::Minimum &&
        site.op != GraphOp::Add && site.op != GraphOp::Multiply)
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) + " of i1 values is not defined");
    return {a};
  }
  case GraphOp::OptimizationBarrier: {
    only(site, {});
    std::vector<ValueType> all;
    for (size_t i = 0; i < site.operands.size(); ++i)
      all.push_back(operand(site, i));
    return all;
  }
  case GraphOp::Negate:
  case GraphOp::Abs: {
    arity(site, 1);
    only(site, {});
    if (operand(site, 0).dtype == DType::Bool)
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) + " of i1 values is not defined");
    ValueType t = operand(site, 0);
    if (site.op == GraphOp::Abs && core::is_complex(t.dtype))
      t.dtype = core::complex_part(t.dtype); // the modulus
    return {t};
  }
  case GraphOp::Real:
  case GraphOp::Imag: {
    arity(site, 1);
    only(site, {});
    float_or_complex_operand(site, 0);
    ValueType t = operand(site, 0);
    if (core::is_complex(t.dtype))
      t.dtype = core::complex_part(t.dtype);
    return {t};
  }
  case GraphOp::Complex: {
    arity(site, 2);
    only(site, {});
    ValueType t = one_type(site);
    if (t.dtype != DType::Float32 && t.dtype != DType::Float64)
      throw Error(ErrorKind::Type, site.span,
                  "complex takes f32 or f64 parts, not " + type_string(t));
    t.dtype = t.dtype == DType::Float32 ? DType::Complex64 : DType::Complex128;
    return {t};
  }
  case GraphOp::Sign:
    arity(site, 1);
    only(site, {});
    if (operand(site, 0).dtype == DType::Bool)
      throw Error(ErrorKind::Type, site.span, "sign of i1 values is not defined");
    return {operand(site, 0)};
  case GraphOp::IsFinite:
  case GraphOp::IsInf:
  case GraphOp::IsPosInf:
  case GraphOp::IsNegInf:
    arity(site, 1);
    only(site, {});
    float_operand(site, 0);
    return {ValueType{DType::Bool, operand(site, 0).shape}};
  case GraphOp::Not:
    arity(site, 1);
    only(site, {});
    if (core::is_float(operand(site, 0).dtype) || core::is_complex(operand(site, 0).dtype))
      throw Error(ErrorKind::Type, site.span,
                  "not takes i1 or integer values, not " + type_string(operand(site, 0)));
    return {operand(site, 0)};
  case GraphOp::And:
  case GraphOp::Or:
  case GraphOp::Xor: {
    arity(site, 2);
    only(site, {});
    const ValueType& a = one_type(site);
    if (core::is_float(a.dtype) || core::is_complex(a.dtype))
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) + " takes i1 or integer values, not " +
                      type_string(a));
    return {a};
  }
  case GraphOp::ShiftLeft:
  case GraphOp::ShiftRightArithmetic:
  case GraphOp::ShiftRightLogical:
  case GraphOp::MulHi:
  case GraphOp::Popcnt:
  case GraphOp::CountLeadingZeros: {
    const bool shift = site.op != GraphOp::Popcnt && site.op != GraphOp::CountLeadingZeros;
    arity(site, shift ? 2 : 1);
    only(site, {});
    const ValueType& a = shift ? one_type(site) : operand(site, 0);
    if (!core::is_integer(a.dtype) || a.dtype == DType::Bool)
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) + " takes integer values, not " +
                      type_string(a));
    return {a};
  }
  case GraphOp::Sine:
  case GraphOp::Cosine:
  case GraphOp::Tan:
  case GraphOp::Logistic:
  case GraphOp::Floor:
  case GraphOp::Ceil:
  case GraphOp::RoundNearestEven:
  case GraphOp::RoundNearestAfz:
  case GraphOp::Exponential:
  case GraphOp::Log:
  case GraphOp::Tanh:
  case GraphOp::Sqrt:
  case GraphOp::Rsqrt:
  case GraphOp::Cbrt:
  case GraphOp::ExponentialMinusOne:
  case GraphOp::LogPlusOne:
  case GraphOp::Erf:
  case GraphOp::Softmax:
  case GraphOp::LogSoftmax:
  case GraphOp::Gelu:
  case GraphOp::Asin:
  case GraphOp::Acos:
  case GraphOp::Atan:
  case GraphOp::Sinh:
  case GraphOp::Cosh:
  case GraphOp::Asinh:
  case GraphOp::Acosh:
  case GraphOp::Atanh:
  case GraphOp::Erfc:
  case GraphOp::ErfInv:
  case GraphOp::Lgamma:
  case GraphOp::Digamma:
  case GraphOp::BesselI1e: {
    arity(site, 1);
    // The spec defines these on floats only; the others on complex values
    // too (of CHLO's, the trigonometric and hyperbolic functions and their
    // inverses).
    const bool floats_only =
        site.op == GraphOp::Floor || site.op == GraphOp::Ceil ||
        site.op == GraphOp::RoundNearestEven || site.op == GraphOp::RoundNearestAfz ||
        site.op == GraphOp::Erf || site.op == GraphOp::Softmax || site.op == GraphOp::LogSoftmax ||
        site.op == GraphOp::Gelu || site.op == GraphOp::Erfc || site.op == GraphOp::ErfInv ||
        site.op == GraphOp::Lgamma || site.op == GraphOp::Digamma || site.op == GraphOp::BesselI1e;
    if (floats_only)
      float_operand(site, 0);
    else
      float_or_complex_operand(site, 0);
    if (site.op == GraphOp::Softmax || site.op == GraphOp::LogSoftmax) {
      only(site, {"axis"});
      node.attrs["axis"] = axis_attr(site, "axis", operand(site, 0).shape.size());
    } else if (site.op == GraphOp::Gelu) {
      only(site, {"approximate"});
      const std::string approximate = string_attr(site, "approximate", true).value_or("");
      if (approximate != "none" && approximate != "erf" && approximate != "tanh")
        throw Error(ErrorKind::Type, find(site, "approximate", true)->span,
                    "approximate is \"" + approximate +
                        "\"; byteir.gelu's are \"none\" (the same as \"erf\"), \"erf\" and "
                        "\"tanh\"");
      node.attrs["approximate"] = approximate == "tanh" ? approximate : std::string("erf");
    } else {
      only(site, {});
    }
    return {operand(site, 0)};
  }
  case GraphOp::AddN:
  case GraphOp::LayerNorm:
  case GraphOp::L2Norm:
  case GraphOp::ArgMax:
  case GraphOp::ArgMin:
  case GraphOp::TopK:
  case GraphOp::OneHot:
  case GraphOp::Quantize:
  case GraphOp::Dequantize:
  case GraphOp::Resize:
  case GraphOp::Repeat:
  case GraphOp::NonZero:
  case GraphOp::RngUniform:
    return byteir_meaning(site, node);
  case GraphOp::Convert: {
    arity(site, 1);
    only(site, {});
    ValueType t = operand(site, 0);
    t.dtype = site.declared_outs.at(0).dtype;
    return {t};
  }
  case GraphOp::Reshape: {
    arity(site, 1);
    only(site, {});
    ValueType t = site.declared_outs.at(0);
    int64_t known = 1;
    int dynamic = 0;
    for (int64_t d : t.shape)
      d == kDynamic ? ++dynamic : known *= d;
    int64_t n = core::checked_numel(operand(site, 0).shape).value_or(0);
    if (dynamic > 1)
      throw Error(ErrorKind::Shape, site.span,
                  "a reshape to more than one `?` dimension; teval needs their extents");
    for (int64_t& d : t.shape)
      if (d == kDynamic)
        d = known ? n / known : 0;
    if (core::checked_numel(t.shape).value_or(-1) != n)
      throw Error(ErrorKind::Shape, site.span,
                  "reshape of " + type_string(operand(site, 0)) + " (" + std::to_string(n) +
                      " elements) to " + type_string(site.declared_outs[0]));
    return {t};
  }
  case GraphOp::BroadcastInDim: {
    arity(site, 1);
    bool stable = site.attrs.count("dims");
    only(site, {stable ? "dims" : "broadcast_dimensions"});
    std::vector<int64_t> dims = ints_attr(site, stable ? "dims" : "broadcast_dimensions");
    ValueType t = site.declared_outs.at(0);
    const ValueType& in = operand(site, 0);
    if (dims.size() != in.shape.size())
      throw Error(ErrorKind::Shape, site.span,
                  "broadcast_in_dim maps " + std::to_string(dims.size()) +
                      " dimensions, but the operand has rank " + std::to_string(in.shape.size()));
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < 0 || dims[i] >= static_cast<int64_t>(t.shape.size()) ||
          (i && dims[i] <= dims[i - 1]))
        throw Error(ErrorKind::Shape, site.span,
                    "broadcast_in_dim's dimensions must rise within the result's rank " +
                        std::to_string(t.shape.size()));
      int64_t& extent = t.shape[static_cast<size_t>(dims[i])];
      if (extent == kDynamic && in.shape[i] != 1) // as shape refinement infers it
        extent = in.shape[i];
      if (in.shape[i] != 1 && in.shape[i] != extent)
        throw Error(ErrorKind::Shape, site.span,
                    "operand dimension " + std::to_string(i) + " (" + std::to_string(in.shape[i]) +
                        ") broadcasts to neither 1 nor " + std::to_string(extent));
    }
    for (size_t d = 0; d < t.shape.size(); ++d)
      if (t.shape[d] == kDynamic)
        throw Error(ErrorKind::Shape, site.span,
                    "broadcast_in_dim's result dimension " + std::to_string(d) +
                        " is `?`, and no operand dimension of extent other than 1 gives it");
    t.dtype = in.dtype;
    node.attrs["dims"] = dims;
    return {t};
  }
  case GraphOp::Compare:
    return compare(site, node);
  case GraphOp::Select:
  case GraphOp::Clamp:
    return select_or_clamp(site);
  case GraphOp::Transpose:
    return transpose(site, node);
  case GraphOp::Slice:
    return slice(site, node);
  case GraphOp::Concatenate:
    return concatenate(site, node);
  case GraphOp::Iota:
    return iota(site, node);
  case GraphOp::Reverse:
    return reverse(site, node);
  case GraphOp::DotGeneral:
  case GraphOp::Dot:
    arity(site, 2);
    return {dot_meaning(site, operand(site, 0), operand(site, 1), node)};
  case GraphOp::If:
  case GraphOp::Case:
  case GraphOp::While:
  case GraphOp::Sort:
  case GraphOp::Map:
  case GraphOp::Scatter:
  case GraphOp::SelectAndScatter:
  case GraphOp::Scan:
    break; // read with their regions (parser/mlir/mlir.cpp)
  case GraphOp::BitcastConvert: {
    arity(site, 1);
    only(site, {});
    ValueType r = bitcast_type(site, operand(site, 0));
    if (core::is_complex(operand(site, 0).dtype) != core::is_complex(r.dtype)) // (C2)
      throw Error(ErrorKind::Type, site.span,
                  "bitcast_convert between " + core::mlir_element(operand(site, 0).dtype) +
                      " and " + core::mlir_element(r.dtype) +
                      ": a complex type converts only to a complex type");
    for (DType t : {operand(site, 0).dtype, r.dtype})
      if (core::bit_width(t) % 8 != 0) // one element a byte in memory: not their bits
        throw Error(ErrorKind::Unsupported, site.span,
                    "bitcast_convert of " + core::mlir_element(t) +
                        " values is not read: teval reads it between element types of whole "
                        "bytes");
    return {r};
  }
  case GraphOp::ReducePrecision: {
    arity(site, 1);
    only(site, {"exponent_bits", "mantissa_bits", "format"});
    const ValueType& x = operand(site, 0);
    if (!core::is_float(x.dtype))
      throw Error(ErrorKind::Type, site.span,
                  "reduce_precision takes floats, not " + type_string(x));
    int64_t exponent = 0, mantissa = 0;
    if (const ast::Expr* f = find(site, "format", false)) {
      // The pretty `format = e5m10`.
      const ast::Name* name = ast::as_name(*f);
      unsigned e = 0, m = 0;
      int used = 0;
      if (!name || std::sscanf(name->id.c_str(), "e%um%u%n", &e, &m, &used) != 2 ||
          used != static_cast<int>(name->id.size()))
        throw Error(ErrorKind::Type, f->span,
                    "reduce_precision's format is written eNmM (e5m10), not `" + text(*f) + "`");
      exponent = e;
      mantissa = m;
    } else {
      exponent = int_attr(site, "exponent_bits");
      mantissa = int_attr(site, "mantissa_bits");
    }
    if (exponent < 1 || exponent > 64 || mantissa < 0 || mantissa > 64)
      throw Error(ErrorKind::Range, site.attrs_span,
                  "reduce_precision needs 1 <= exponent_bits (C2) and 0 <= mantissa_bits (C3), "
                  "each at most 64; they are " +
                      std::to_string(exponent) + " and " + std::to_string(mantissa));
    node.attrs["exponent_bits"] = exponent;
    node.attrs["mantissa_bits"] = mantissa;
    return {x};
  }
  case GraphOp::Gather:
    arity(site, 2);
    only(site, {"dimension_numbers", "slice_sizes", "indices_are_sorted"});
    bool_attr(site, "indices_are_sorted", false); // a promise: no meaning of its own
    return {gather_meaning(site, operand(site, 0), operand(site, 1), ints_attr(site, "slice_sizes"),
                           node)};
  case GraphOp::Convolution:
    arity(site, 2);
    return {convolution_meaning(site, operand(site, 0), operand(site, 1), node)};
  case GraphOp::Pad:
    arity(site, 2);
    return {pad_meaning(site, operand(site, 0), operand(site, 1), node)};
  case GraphOp::Fft:
    arity(site, 1);
    return {fft_meaning(site, operand(site, 0), node)};
  case GraphOp::RngBitGenerator:
    arity(site, 1);
    return rng_bit_generator_meaning(site, operand(site, 0), node);
  case GraphOp::ReplicaId:
  case GraphOp::PartitionId: {
    // teval runs one process: replica 0 of 1, partition 0 of 1.
    arity(site, 0);
    only(site, {});
    const ValueType t = site.declared_outs.at(0);
    if (t.dtype != DType::UInt32 || !t.shape.empty() || t.quant)
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) + " gives a tensor<ui32>, not " +
                      type_string(t));
    return {t};
  }
  case GraphOp::UniformQuantize:
  case GraphOp::UniformDequantize: // quantized_meaning's
    TEVAL_UNREACHABLE("uniform_quantize and uniform_dequantize are quantized_meaning's");
  case GraphOp::TriangularSolve:
    arity(site, 2);
    return {triangular_solve_meaning(site, operand(site, 0), operand(site, 1), node)};
  case GraphOp::Cholesky:
    arity(site, 1);
    return {cholesky_meaning(site, operand(site, 0), node)};
  case GraphOp::Reduce:
  case GraphOp::ReduceWindow:
  case GraphOp::DynamicSlice:
  case GraphOp::DynamicUpdateSlice: {
    std::vector<ValueType> operands;
    for (size_t i = 0; i < site.operands.size(); ++i)
      operands.push_back(operand(site, i));
    if (site.op == GraphOp::DynamicSlice)
      return {dynamic_slice_meaning(site, operands, node)};
    if (site.op == GraphOp::DynamicUpdateSlice)
      return {dynamic_update_slice_meaning(site, operands, node)};
    if (site.op == GraphOp::ReduceWindow)
      return {reduce_window_meaning(site, operands, node)};
    return {reduce_meaning(site, operands, node)};
  }
  }
  TEVAL_UNREACHABLE("graph op without a meaning");
}

std::vector<ValueType> meaning(const OpSite& site, const core::Graph& g, GraphNode& node) {
  if (std::optional<std::vector<ValueType>> q = quantized_meaning(site, g, node))
    return *q;
  if (node.attrs.count("dequantize_op_quantize")) {
    // An op of quantized tensors that is not elementwise (quantized_meaning):
    // its attributes as of the expressed types, its result the declared
    // type.
    core::Graph expressed;
    expressed.values = g.values;
    auto plain = [](ValueType t) { return t.quant ? ValueType{t.quant->expressed, t.shape} : t; };
    for (int v : site.operands)
      expressed.values[static_cast<size_t>(v)] = plain(g.values[static_cast<size_t>(v)]);
    OpSite as_expressed = site;
    for (ValueType& t : as_expressed.declared_ins)
      t = plain(t);
    for (ValueType& t : as_expressed.declared_outs)
      t = plain(t);
    std::vector<ValueType> results = OpMeaning(expressed).meaning(as_expressed, node);
    if (site.op == GraphOp::DotGeneral || site.op == GraphOp::Dot ||
        site.op == GraphOp::Convolution) {
      std::vector<ValueType> ins;
      for (int v : site.operands)
        ins.push_back(g.values[static_cast<size_t>(v)]);
      check_quantized_contraction(site, ins, site.declared_outs.at(0), node);
    }
    if (results.size() != 1 || results[0].shape != site.declared_outs.at(0).shape)
      throw Error(ErrorKind::Shape, site.span,
                  std::string(core::graph_op_name(site.op)) + " gives " +
                      type_string(results.at(0)) + ", not " +
                      type_string(site.declared_outs.at(0)));
    return {site.declared_outs[0]};
  }
  if (std::optional<std::vector<ValueType>> alias = alias_meaning(site, g, node))
    return *alias;
  std::vector<ValueType> results = OpMeaning(g).meaning(site, node);
  if (moves_elements(site.op)) // moved stored integers keep their quantization
    for (int v : site.operands)
      if (const ValueType& t = g.values[static_cast<size_t>(v)]; t.quant) {
        for (size_t i = 0; i < results.size(); ++i) {
          if (results[i].dtype != t.dtype)
            continue;
          results[i].quant = t.quant;
          if (t.quant->axis && i < site.declared_outs.size() && site.declared_outs[i].quant) {
            check_moved_axis(site, t, site.declared_outs[i], node);
            results[i].quant = site.declared_outs[i].quant;
          }
        }
        break;
      }
  return results;
}

} // namespace teval::parser::mlir_detail
