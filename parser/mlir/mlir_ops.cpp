// What each op of an MLIR function means to teval (see mlir_ops.h and the
// ByteIR section of docs/SEMANTICS.md).
#include "parser/mlir/mlir_ops.h"

#include "core/error.h"
#include "core/format.h"
#include "core/kernel.h"
#include "core/scalar_ops.h"
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_values.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace teval::parser::mlir_detail {

namespace {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphNode;
using core::GraphOp;
using core::Shape;
using core::ValueType;

// Each op's rule, over the values the graph defines so far.
class OpMeaning {
public:
  explicit OpMeaning(const core::Graph& g) : g_(g) {}

  // ---- attribute access, each error at the attribute
  /// The value of \p v when a constant node defines it, else null.
  const core::Tensor* constant_value(int v) const { return core::constant_value(g_, v); }

  // ---- each op's meaning: its results' types and decoded attributes

  const ValueType& operand(const OpSite& site, size_t i) {
    return g_.values[static_cast<size_t>(site.operands[i])];
  }

  void arity(const OpSite& site, size_t n) {
    if (site.operands.size() != n)
      throw Error(ErrorKind::Shape, site.span,
                  std::string(core::graph_op_name(site.op)) + " takes " + std::to_string(n) +
                      " operand" + (n == 1 ? "" : "s") + ", not " +
                      std::to_string(site.operands.size()));
  }

  // Two operands of one type (the binary elementwise ops): the first's.
  const ValueType& one_type(const OpSite& site) {
    const ValueType& a = operand(site, 0);
    const ValueType& b = operand(site, 1);
    if (a.dtype != b.dtype || a.shape != b.shape)
      throw Error(ErrorKind::Shape, site.span,
                  std::string(core::graph_op_name(site.op)) +
                      " takes operands of one type; they are " + type_string(a) + " and " +
                      type_string(b));
    return a;
  }

  void float_operand(const OpSite& site, size_t i) {
    if (!core::is_float(operand(site, i).dtype))
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) + " takes a float tensor, not " +
                      type_string(operand(site, i)));
  }

  // A float or (for the ops the spec defines on them) a complex tensor.
  void float_or_complex_operand(const OpSite& site, size_t i) {
    if (!core::is_float(operand(site, i).dtype) && !core::is_complex(operand(site, i).dtype))
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) +
                      " takes a float or complex tensor, not " + type_string(operand(site, i)));
  }

  // Not a complex tensor: the ops the spec does not define on them.
  void not_complex(const OpSite& site, const ValueType& t) {
    if (core::is_complex(t.dtype))
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) + " of " + type_string(t) +
                      " is not defined (the spec defines it on integers and floats)");
  }

  std::vector<ValueType> meaning(const OpSite& site, GraphNode& node) {
    switch (site.op) {
    case GraphOp::Constant: {
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
    case GraphOp::NextAfter: {
      arity(site, 2);
      only(site, {});
      const ValueType& a = one_type(site);
      if (site.op == GraphOp::Atan2)
        float_or_complex_operand(site, 0);
      if (site.op == GraphOp::NextAfter && a.dtype != DType::Float16 &&
          a.dtype != DType::BFloat16 && a.dtype != DType::Float32 && a.dtype != DType::Float64)
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
                    std::string(core::graph_op_name(site.op)) +
                        " takes i1 or integer values, not " + type_string(a));
      return {a};
    }
    case GraphOp::ShiftLeft:
    case GraphOp::ShiftRightArithmetic:
    case GraphOp::ShiftRightLogical:
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
    case GraphOp::Erfc: {
      arity(site, 1);
      // The spec defines these on floats only; the others on complex values
      // too (of CHLO's, tan, sinh and cosh; its inverse functions of complex
      // values are not read).
      const bool floats_only = site.op == GraphOp::Floor || site.op == GraphOp::Ceil ||
                               site.op == GraphOp::RoundNearestEven ||
                               site.op == GraphOp::RoundNearestAfz || site.op == GraphOp::Erf ||
                               site.op == GraphOp::Softmax || site.op == GraphOp::LogSoftmax ||
                               site.op == GraphOp::Gelu ||
                               (site.name.starts_with("chlo.") && site.op != GraphOp::Tan &&
                                site.op != GraphOp::Sinh && site.op != GraphOp::Cosh);
      if (floats_only)
        float_operand(site, 0);
      else
        float_or_complex_operand(site, 0);
      if (site.op == GraphOp::Softmax || site.op == GraphOp::LogSoftmax) {
        only(site, {"axis"});
        node.attrs["axis"] = axis_attr(site, "axis", operand(site, 0).shape.size());
      } else if (site.op == GraphOp::Gelu) {
        only(site, {"approximate"});
        std::string approximate = *string_attr(site, "approximate", true);
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
    case GraphOp::AddN: {
      only(site, {});
      if (site.operands.empty())
        throw Error(ErrorKind::Shape, site.span, "byteir.addn takes at least one operand");
      for (size_t i = 1; i < site.operands.size(); ++i)
        if (operand(site, i).dtype != operand(site, 0).dtype ||
            operand(site, i).shape != operand(site, 0).shape)
          throw Error(ErrorKind::Shape, site.span,
                      "byteir.addn takes operands of one type; they are " +
                          type_string(operand(site, 0)) + " and " + type_string(operand(site, i)));
      if (operand(site, 0).dtype == DType::Bool)
        throw Error(ErrorKind::Type, site.span, "byteir.addn of i1 values is not defined");
      return {operand(site, 0)};
    }
    case GraphOp::LayerNorm:
    case GraphOp::L2Norm: {
      bool layer = site.op == GraphOp::LayerNorm;
      arity(site, layer ? 3 : 1);
      float_operand(site, 0);
      only(site, {"axis", "epsilon", "eps_outside_sqrt"});
      const ValueType& x = operand(site, 0);
      std::vector<int64_t> axes = axes_attr(site, "axis", x.shape.size());
      if (!layer && axes.size() != 1)
        throw Error(ErrorKind::Range, find(site, "axis", true)->span,
                    "byteir.l2_norm normalizes along one axis; `axis` lists " +
                        std::to_string(axes.size()));
      node.attrs["axis"] = axes;
      node.attrs["epsilon"] = float_attr(site, "epsilon");
      node.attrs["eps_outside_sqrt"] = bool_attr(site, "eps_outside_sqrt", false);
      if (!layer)
        return {x};
      // weight and bias: the extents of the normalized axes.
      ValueType affine{x.dtype, {}};
      for (int64_t a : axes)
        affine.shape.push_back(x.shape[static_cast<size_t>(a)]);
      for (size_t i : {size_t{1}, size_t{2}})
        if (operand(site, i).dtype != affine.dtype || operand(site, i).shape != affine.shape)
          throw Error(ErrorKind::Shape, site.call->args[i]->span,
                      std::string(i == 1 ? "weight" : "bias") + " of byteir.layer_norm is " +
                          type_string(operand(site, i)) + "; over axes " +
                          core::format_index(axes) + " of " + type_string(x) + " it must be " +
                          type_string(affine));
      if (site.declared_outs.size() != 1 && site.declared_outs.size() != 3)
        throw Error(ErrorKind::Shape, site.span,
                    "byteir.layer_norm gives 1 result (output) or 3 (output, mean, "
                    "inv_std_dev), not " +
                        std::to_string(site.declared_outs.size()));
      if (site.declared_outs.size() == 1)
        return {x};
      ValueType kept = x;
      for (int64_t a : axes)
        kept.shape[static_cast<size_t>(a)] = 1;
      return {x, kept, kept};
    }
    case GraphOp::ArgMax:
    case GraphOp::ArgMin:
    case GraphOp::TopK: {
      arity(site, 1);
      const ValueType& x = operand(site, 0);
      bool top = site.op == GraphOp::TopK;
      int64_t axis = 0;
      ValueType values = x;
      if (top && site.name == "chlo.top_k") { // along the last dimension, sorted
        only(site, {"k"});
        if (x.shape.empty())
          throw Error(ErrorKind::Shape, site.span,
                      "chlo.top_k selects along the last dimension; its operand is 0-d");
        axis = static_cast<int64_t>(x.shape.size()) - 1;
      } else if (top) {
        only(site, {"k", "axis", "sorted"});
        std::vector<int64_t> axes = axes_attr(site, "axis", x.shape.size());
        if (axes.size() != 1)
          throw Error(ErrorKind::Range, find(site, "axis", true)->span,
                      "byteir.top_k selects along one axis; `axis` lists " +
                          std::to_string(axes.size()));
        axis = axes[0];
      }
      if (top) {
        int64_t k = int_attr(site, "k");
        int64_t extent = x.shape[static_cast<size_t>(axis)];
        if (k < 1 || k > extent)
          throw Error(ErrorKind::Range, find(site, "k", true)->span,
                      "`k` is " + std::to_string(k) + "; it must be in [1, " +
                          std::to_string(extent) + "], the extent of axis " + std::to_string(axis));
        node.attrs["k"] = k;
        node.attrs["axis"] = axis;
        node.attrs["sorted"] = site.name == "chlo.top_k" || bool_attr(site, "sorted", true);
        if (site.name == "chlo.top_k")
          node.attrs["total_order"] = true;
        values.shape[static_cast<size_t>(axis)] = k;
      } else {
        only(site, {"axis", "keep_dims", "select_last_index"});
        axis = axis_attr(site, "axis", x.shape.size());
        if (x.shape[static_cast<size_t>(axis)] == 0)
          throw Error(ErrorKind::Shape, find(site, "axis", true)->span,
                      std::string(core::graph_op_name(site.op)) +
                          " along an axis of extent 0: there is no index to give");
        bool keep = bool_attr(site, "keep_dims", false);
        node.attrs["axis"] = axis;
        node.attrs["keep_dims"] = keep;
        node.attrs["select_last_index"] = bool_attr(site, "select_last_index", false);
        if (keep)
          values.shape[static_cast<size_t>(axis)] = 1;
        else
          values.shape.erase(values.shape.begin() + axis);
      }
      // The indices: the integer type the results declare, wide enough.
      size_t count = site.declared_outs.size();
      if (count != 2 && (top || count != 1))
        throw Error(ErrorKind::Shape, site.span,
                    std::string(core::graph_op_name(site.op)) +
                        (top ? " gives 2 results (values, indices), not "
                             : " gives 1 result (indices) or 2 (values, indices), not ") +
                        std::to_string(count));
      ValueType indices = values;
      indices.dtype = site.declared_outs.back().dtype;
      int64_t extent = x.shape[static_cast<size_t>(axis)];
      if (core::is_float(indices.dtype) || indices.dtype == DType::Bool ||
          core::Scalar::of_int(indices.dtype, extent - 1).i != extent - 1)
        throw Error(ErrorKind::Type, site.span,
                    "the indices of " + std::string(core::graph_op_name(site.op)) +
                        " are declared " + type_string(site.declared_outs.back()) +
                        "; they must be integers that hold " + std::to_string(extent - 1));
      if (count == 1)
        return {indices};
      return {values, indices};
    }
    case GraphOp::OneHot: {
      arity(site, 1);
      only(site, {"depth", "axis", "on_value", "off_value"});
      const ValueType& in = operand(site, 0);
      if (core::is_float(in.dtype) || in.dtype == DType::Bool)
        throw Error(ErrorKind::Type, site.span,
                    "byteir.one_hot takes integer indices, not " + type_string(in));
      int64_t depth = int_attr(site, "depth");
      if (depth < 0 || depth > INT32_MAX)
        throw Error(ErrorKind::Range, find(site, "depth", true)->span,
                    "`depth` is " + std::to_string(depth) + "; it must be in [0, 2^31)");
      int64_t axis = int_attr(site, "axis");
      if (axis < 0 || axis > static_cast<int64_t>(in.shape.size()))
        throw Error(ErrorKind::Range, find(site, "axis", true)->span,
                    "`axis` is " + std::to_string(axis) +
                        "; the new dimension goes at a place in [0, " +
                        std::to_string(in.shape.size()) + "] (frontends normalize negative axes)");
      DType t = site.declared_outs.at(0).dtype;
      core::Scalar on = scalar_attr(site, "on_value", t);
      core::Scalar off = scalar_attr(site, "off_value", t);
      if (on.dtype != off.dtype)
        throw Error(ErrorKind::Type, find(site, "off_value", true)->span,
                    "on_value is " + core::to_string(on.dtype) + " but off_value " +
                        core::to_string(off.dtype) + "; they give the output's element type");
      ValueType out{on.dtype, in.shape};
      out.shape.insert(out.shape.begin() + axis, depth);
      node.attrs["depth"] = depth;
      node.attrs["axis"] = axis;
      for (auto [name, v] : {std::pair{"on_value", on}, std::pair{"off_value", off}}) {
        core::Tensor scalar(v.dtype, {});
        scalar.set(0, v);
        node.attrs[name] = scalar;
      }
      return {out};
    }
    case GraphOp::Quantize:
    case GraphOp::Dequantize: {
      arity(site, 3);
      bool quantize = site.op == GraphOp::Quantize;
      const ValueType& x = operand(site, 0);
      const ValueType& scale = operand(site, 1);
      const ValueType& zero = operand(site, 2);
      std::string op_name(core::graph_op_name(site.op));
      auto integer = [](DType t) {
        return t == DType::Int8 || t == DType::UInt8 || t == DType::Int16 || t == DType::Int32;
      };
      if (!integer(zero.dtype) || (quantize && zero.dtype == DType::Int32))
        throw Error(ErrorKind::Type, site.call->args[2]->span,
                    "the zero point of " + op_name + " is " + type_string(zero) +
                        "; it must be i8, ui8 or i16" + (quantize ? "" : " (or i32)") +
                        " (teval has no ui16)");
      DType real = quantize ? x.dtype : site.declared_outs.at(0).dtype;
      if (!core::is_float(real) || scale.dtype != real)
        throw Error(ErrorKind::Type, site.call->args[1]->span,
                    op_name + "'s scale is " + type_string(scale) + "; it must be of the " +
                        (quantize ? "input's" : "result's") + " float type" +
                        (core::is_float(real) ? ", " + core::to_string(real) : std::string()));
      if (quantize ? !core::is_float(x.dtype) : x.dtype != zero.dtype)
        throw Error(
            ErrorKind::Type, site.span,
            op_name + " takes " +
                (quantize ? "a float tensor"
                          : "a tensor of the zero point's type, " + type_string({zero.dtype, {}})) +
                ", not " + type_string(x));
      if (scale.shape != zero.shape || scale.shape.size() > 1)
        throw Error(ErrorKind::Shape, site.span,
                    op_name +
                        "'s scale and zero point must have one shape of rank 0 (per tensor) "
                        "or 1 (per channel); they are " +
                        type_string(scale) + " and " + type_string(zero));
      if (scale.shape.size() == 1) {
        only(site, {"axis"});
        int64_t axis = axis_attr(site, "axis", x.shape.size());
        if (scale.shape[0] != x.shape[static_cast<size_t>(axis)])
          throw Error(ErrorKind::Shape, site.span,
                      op_name + " per channel along axis " + std::to_string(axis) + " of " +
                          type_string(x) + " needs " +
                          std::to_string(x.shape[static_cast<size_t>(axis)]) + " scales, not " +
                          std::to_string(scale.shape[0]));
        node.attrs["axis"] = axis;
      } else {
        only(site, {"axis"});
      }
      return {ValueType{quantize ? zero.dtype : real, x.shape}};
    }
    case GraphOp::Resize: {
      arity(site, 2);
      only(site, {"target_mode", "mode", "coordinate_transformation_mode"});
      const ValueType& x = operand(site, 0);
      std::string target = *string_attr(site, "target_mode", true);
      std::string mode = *string_attr(site, "mode", true);
      std::string map = *string_attr(site, "coordinate_transformation_mode", true);
      auto one_of = [&](const std::string& name, const std::string& v,
                        std::initializer_list<std::string_view> allowed) {
        if (std::find(allowed.begin(), allowed.end(), v) != allowed.end())
          return;
        std::string list;
        for (std::string_view a : allowed)
          list += (list.empty() ? "\"" : ", \"") + std::string(a) + "\"";
        throw Error(ErrorKind::Type, find(site, name, true)->span,
                    name + " is \"" + v + "\"; byteir.resize's are " + list);
      };
      one_of("target_mode", target, {"scale", "size"});
      one_of("mode", mode, {"nearest", "linear"});
      one_of("coordinate_transformation_mode", map,
             {"asymmetric", "half_pixel", "pytorch_half_pixel", "align_corners"});
      if (mode == "linear" && !core::is_float(x.dtype))
        throw Error(ErrorKind::Type, site.span,
                    "linear byteir.resize takes a float tensor, not " + type_string(x));
      ValueType out = site.declared_outs.at(0);
      if (std::count(out.shape.begin(), out.shape.end(), kDynamic) ||
          out.shape.size() != x.shape.size())
        throw Error(ErrorKind::Shape, site.span,
                    "byteir.resize needs a static result of the input's rank " +
                        std::to_string(x.shape.size()) + ", not " + type_string(out));
      out.dtype = x.dtype;
      // The target: a constant, so that the output's shape and the scales
      // are known when the function is read.
      const core::Tensor* given = constant_value(site.operands[1]);
      ValueType t = operand(site, 1);
      bool sizes = target == "size";
      if (!given || t.shape != Shape{static_cast<int64_t>(x.shape.size())} ||
          (sizes ? t.dtype != DType::Int64 : t.dtype != DType::Float32))
        throw Error(ErrorKind::Shape, site.call->args[1]->span,
                    "the target of byteir.resize must be a constant " +
                        type_string({sizes ? DType::Int64 : DType::Float32,
                                     {static_cast<int64_t>(x.shape.size())}}) +
                        " (the " + (sizes ? "sizes" : "scales") + " of every axis), not " +
                        (given ? type_string(t) : "a computed value"));
      core::Tensor scales(DType::Float32, {static_cast<int64_t>(x.shape.size())});
      for (size_t d = 0; d < x.shape.size(); ++d) {
        int64_t in_extent = x.shape[d], out_extent = out.shape[d];
        if (in_extent == 0 && out_extent != 0)
          throw Error(ErrorKind::Shape, site.span,
                      "byteir.resize of axis " + std::to_string(d) +
                          ", which is empty, to extent " + std::to_string(out_extent) +
                          ": there is no value to resize");
        core::Scalar s;
        if (sizes) {
          if (given->get(static_cast<int64_t>(d)).i != out_extent)
            throw Error(ErrorKind::Shape, site.call->args[1]->span,
                        "size " + std::to_string(given->get(static_cast<int64_t>(d)).i) +
                            " of axis " + std::to_string(d) + " is not the result's extent " +
                            std::to_string(out_extent));
          // As ONNX computes it: float(out) / float(in); an empty axis stays
          // empty, at scale 1.
          s = in_extent == 0
                  ? core::Scalar::of_float(DType::Float32, 1)
                  : core::apply(
                        core::Op::Div,
                        std::array{core::Scalar::of_float(DType::Float32, double(out_extent)),
                                   core::Scalar::of_float(DType::Float32, double(in_extent))}
                            .data(),
                        DType::Float32, core::Overflow::Wrap);
        } else {
          s = given->get(static_cast<int64_t>(d));
          double expected = std::floor(double(in_extent) * s.f);
          if (!(s.f > 0) || !std::isfinite(s.f) || expected != double(out_extent))
            throw Error(ErrorKind::Shape, site.call->args[1]->span,
                        "scale " + core::format_scalar(s) + " of axis " + std::to_string(d) +
                            " makes floor(" + std::to_string(in_extent) +
                            " * scale), not the result's extent " + std::to_string(out_extent));
        }
        scales.set(static_cast<int64_t>(d), s);
      }
      node.attrs["scales"] = scales;
      node.attrs["mode"] = mode;
      node.attrs["coordinate_transformation_mode"] = map;
      return {out};
    }
    case GraphOp::Repeat:
    case GraphOp::NonZero:
      return value_shaped_meaning(site, g_);
    case GraphOp::RngUniform: {
      only(site, {});
      if (site.operands.size() != 4 && site.operands.size() != 5)
        throw Error(ErrorKind::Shape, site.span,
                    "byteir.rng_uniform takes low, high, seed, offset and optionally the shape, "
                    "not " +
                        std::to_string(site.operands.size()) + " operands");
      ValueType out = site.declared_outs.at(0);
      for (size_t i = 0; i < 4; ++i) {
        DType want = i < 2 ? out.dtype : DType::Int64;
        if (operand(site, i).dtype != want || !operand(site, i).shape.empty() ||
            (i < 2 && !core::is_float(want)))
          throw Error(
              ErrorKind::Type, site.call->args[i]->span,
              std::string(i == 0   ? "low"
                          : i == 1 ? "high"
                          : i == 2 ? "seed"
                                   : "offset") +
                  " of byteir.rng_uniform is " + type_string(operand(site, i)) + "; it must be " +
                  (i < 2 ? "a 0-d tensor of the result's float type" : std::string("tensor<i64>")));
      }
      if (std::count(out.shape.begin(), out.shape.end(), kDynamic)) {
        const core::Tensor* shape =
            site.operands.size() == 5 ? constant_value(site.operands[4]) : nullptr;
        if (!shape || shape->dtype() != DType::Int64 ||
            shape->shape() != Shape{static_cast<int64_t>(out.shape.size())})
          throw Error(ErrorKind::Shape, site.span,
                      "byteir.rng_uniform of type " + type_string(out) +
                          " needs its shape as a constant tensor<" +
                          std::to_string(out.shape.size()) + "xi64> operand");
        for (size_t d = 0; d < out.shape.size(); ++d)
          if (out.shape[d] == kDynamic) {
            out.shape[d] = shape->get(static_cast<int64_t>(d)).i;
            if (out.shape[d] < 0 || out.shape[d] > INT32_MAX)
              throw Error(ErrorKind::Range, site.call->args[4]->span,
                          "extent " + std::to_string(out.shape[d]) +
                              " of the shape is not one teval has");
          }
      }
      return {out};
    }
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
                      "operand dimension " + std::to_string(i) + " (" +
                          std::to_string(in.shape[i]) + ") broadcasts to neither 1 nor " +
                          std::to_string(extent));
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
        if (core::carrier(t) != t)
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
      return {gather_meaning(site, operand(site, 0), operand(site, 1),
                             ints_attr(site, "slice_sizes"), node)};
    case GraphOp::Convolution:
      arity(site, 2);
      return {convolution_meaning(site, operand(site, 0), operand(site, 1), node)};
    case GraphOp::Pad:
      arity(site, 2);
      return {pad_meaning(site, operand(site, 0), operand(site, 1), node)};
    case GraphOp::Fft:
      arity(site, 1);
      return {fft_meaning(site, operand(site, 0), node)};
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

  // ---- the stablehlo ops beyond the elementwise ones (docs/BYTEIR.md)

  // bitcast_convert's result type (spec (C1)): the declared one, its
  // shape the operand's, with a trailing dimension of as many narrower
  // elements as one operand element holds, or without the operand's
  // trailing dimension of narrower elements making one.
  ValueType bitcast_type(const OpSite& site, const ValueType& x) {
    if (site.declared_outs.size() != 1)
      throw Error(ErrorKind::Shape, site.span, "bitcast_convert has one result");
    const ValueType& out = site.declared_outs[0];
    // In bits; an i1 is one (spec "bitcast_convert").
    auto bits = [](DType t) {
      return t == DType::Bool ? int64_t{1} : 8 * static_cast<int64_t>(core::size_bytes(t));
    };
    const int64_t from = bits(x.dtype), to = bits(out.dtype);
    core::Shape shape = x.shape;
    if (to < from) {
      shape.push_back(from / to);
    } else if (to > from) {
      if (shape.empty() || shape.back() * from != to)
        throw Error(ErrorKind::Shape, site.span,
                    "bitcast_convert of " + type_string(x) + " to " + core::to_string(out.dtype) +
                        " needs a trailing dimension of " + std::to_string(to / from) +
                        " elements (C1)");
      shape.pop_back();
    }
    return ValueType{out.dtype, shape};
  }

  // Rank-0 or the same shape as operand \p like: select's pred, clamp's
  // bounds.
  void scalar_or_same(const OpSite& site, size_t i, size_t like, const char* what) {
    const Shape& s = operand(site, i).shape;
    if (!s.empty() && s != operand(site, like).shape)
      throw Error(ErrorKind::Shape, site.span,
                  std::string(core::graph_op_name(site.op)) + "'s " + what + " is " +
                      type_string(operand(site, i)) + ": a rank-0 tensor or one of shape " +
                      core::to_string(operand(site, like).shape) + " is needed");
  }

  std::vector<ValueType> compare(const OpSite& site, GraphNode& node) {
    arity(site, 2);
    only(site, {"comparison_direction", "compare_type"});
    const ValueType& a = one_type(site);
    std::optional<std::string> direction = enum_word(site, "comparison_direction", 0);
    if (!direction)
      throw Error(ErrorKind::Type, site.attrs_span, "compare needs its comparison_direction");
    static const std::array<const char*, 6> kDirections = {"EQ", "NE", "GE", "GT", "LE", "LT"};
    if (std::find(kDirections.begin(), kDirections.end(), *direction) == kDirections.end())
      throw Error(ErrorKind::Type, site.attrs_span,
                  "comparison_direction " + *direction + "; it is one of EQ, NE, GE, GT, LE, LT");
    // The spec's (C3): the type follows the element type; floats may ask
    // for TOTALORDER.
    std::string fixed = core::is_float(a.dtype) || core::is_complex(a.dtype) ? "FLOAT"
                        : core::kind(a.dtype) == core::DTypeKind::Signed     ? "SIGNED"
                                                                             : "UNSIGNED";
    std::string type = enum_word(site, "compare_type", 1).value_or(fixed);
    if (type != fixed && !(core::is_float(a.dtype) && type == "TOTALORDER"))
      throw Error(ErrorKind::Type, site.attrs_span,
                  "compare_type " + type + " does not fit " + type_string(a) + ": it is " + fixed +
                      (core::is_float(a.dtype) ? " or TOTALORDER" : ""));
    node.attrs["direction"] = *direction;
    node.attrs["compare_type"] = type;
    return {ValueType{DType::Bool, a.shape}};
  }

  // select(pred, on_true, on_false) and clamp(min, operand, max): the
  // result is operand 1's type.
  std::vector<ValueType> select_or_clamp(const OpSite& site) {
    arity(site, 3);
    only(site, {});
    const ValueType& v = operand(site, 1);
    if (site.op == GraphOp::Select) {
      if (operand(site, 0).dtype != DType::Bool)
        throw Error(ErrorKind::Type, site.span,
                    "select's predicate is " + type_string(operand(site, 0)) + ", not of i1");
      scalar_or_same(site, 0, 1, "predicate");
      if (operand(site, 2).dtype != v.dtype || operand(site, 2).shape != v.shape)
        throw Error(ErrorKind::Shape, site.span,
                    "select's branches are " + type_string(v) + " and " +
                        type_string(operand(site, 2)) + ": they must be of one type");
      return {v};
    }
    for (size_t bound : {size_t{0}, size_t{2}}) {
      if (operand(site, bound).dtype != v.dtype)
        throw Error(ErrorKind::Type, site.span,
                    "clamp's bounds must be of the operand's element type: " +
                        type_string(operand(site, bound)) + " against " + type_string(v));
      scalar_or_same(site, bound, 1, bound == 0 ? "minimum" : "maximum");
    }
    return {v};
  }

  // A dimension of a tensor of rank \p rank (concatenate's, iota's).
  int64_t dimension_attr(const OpSite& site, const std::string& name, size_t rank) {
    int64_t d = int_attr(site, name);
    if (d < 0 || d >= static_cast<int64_t>(rank))
      throw Error(ErrorKind::Shape, find(site, name, true)->span,
                  std::string(core::graph_op_name(site.op)) + "'s `" + name + "` is " +
                      std::to_string(d) + ", outside [0, " + std::to_string(rank) +
                      "): the dimensions of its rank-" + std::to_string(rank) + " tensors");
    return d;
  }

  // A list attribute under its generic or its pretty name.
  std::vector<int64_t> list_attr(const OpSite& site, const char* generic, const char* pretty) {
    bool has_pretty = site.attrs.count(pretty);
    only(site, {has_pretty ? pretty : generic});
    return ints_attr(site, has_pretty ? pretty : generic);
  }

  std::vector<ValueType> transpose(const OpSite& site, GraphNode& node) {
    arity(site, 1);
    std::vector<int64_t> perm = list_attr(site, "permutation", "dims");
    const ValueType& in = operand(site, 0);
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t d = 0; d < sorted.size(); ++d)
      if (sorted[d] != static_cast<int64_t>(d) || sorted.size() != in.shape.size())
        throw Error(ErrorKind::Shape, site.attrs_span,
                    "transpose's permutation must hold each dimension of the operand's rank " +
                        std::to_string(in.shape.size()) + " once");
    ValueType t{in.dtype, {}};
    for (int64_t p : perm)
      t.shape.push_back(in.shape[static_cast<size_t>(p)]);
    node.attrs["permutation"] = perm;
    return {t};
  }

  std::vector<ValueType> slice(const OpSite& site, GraphNode& node) {
    arity(site, 1);
    only(site, {"start_indices", "limit_indices", "strides"});
    const ValueType& in = operand(site, 0);
    std::vector<int64_t> start = ints_attr(site, "start_indices");
    std::vector<int64_t> limit = ints_attr(site, "limit_indices");
    std::vector<int64_t> strides = find(site, "strides", false)
                                       ? ints_attr(site, "strides")
                                       : std::vector<int64_t>(in.shape.size(), 1);
    const size_t rank = in.shape.size();
    if (start.size() != rank || limit.size() != rank || strides.size() != rank)
      throw Error(ErrorKind::Shape, site.attrs_span,
                  "slice needs a start, a limit and a stride for each of the operand's " +
                      std::to_string(rank) + " dimensions");
    ValueType t{in.dtype, {}};
    for (size_t d = 0; d < rank; ++d) {
      if (start[d] < 0 || start[d] > limit[d] || limit[d] > in.shape[d] || strides[d] <= 0)
        throw Error(ErrorKind::Shape, site.attrs_span,
                    "slice of dimension " + std::to_string(d) + " (extent " +
                        std::to_string(in.shape[d]) + ") from " + std::to_string(start[d]) +
                        " to " + std::to_string(limit[d]) + " by " + std::to_string(strides[d]) +
                        ": 0 <= start <= limit <= extent and a positive stride are needed");
      t.shape.push_back((limit[d] - start[d] + strides[d] - 1) / strides[d]);
    }
    node.attrs["start"] = start;
    node.attrs["strides"] = strides;
    return {t};
  }

  std::vector<ValueType> concatenate(const OpSite& site, GraphNode& node) {
    if (site.operands.empty())
      throw Error(ErrorKind::Shape, site.span, "concatenate takes one operand or more");
    bool pretty = site.attrs.count("dim");
    only(site, {pretty ? "dim" : "dimension"});
    const ValueType& first = operand(site, 0);
    int64_t axis = dimension_attr(site, pretty ? "dim" : "dimension", first.shape.size());
    ValueType t = first;
    t.shape[static_cast<size_t>(axis)] = 0;
    for (size_t i = 0; i < site.operands.size(); ++i) {
      const ValueType& x = operand(site, i);
      bool fits = x.dtype == first.dtype && x.shape.size() == first.shape.size();
      for (size_t d = 0; fits && d < x.shape.size(); ++d)
        fits = d == static_cast<size_t>(axis) || x.shape[d] == first.shape[d];
      if (!fits)
        throw Error(ErrorKind::Shape, site.span,
                    "concatenate along dimension " + std::to_string(axis) + " of " +
                        type_string(first) + " and " + type_string(x) +
                        ": the other dimensions and the element type must agree");
      t.shape[static_cast<size_t>(axis)] += x.shape[static_cast<size_t>(axis)];
    }
    node.attrs["dimension"] = axis;
    return {t};
  }

  std::vector<ValueType> iota(const OpSite& site, GraphNode& node) {
    arity(site, 0);
    bool pretty = site.attrs.count("dim");
    only(site, {pretty ? "dim" : "iota_dimension"});
    ValueType t = site.declared_outs.at(0);
    if (std::count(t.shape.begin(), t.shape.end(), kDynamic))
      throw Error(ErrorKind::Shape, site.span, "iota needs a static result type");
    if (t.dtype == DType::Bool)
      throw Error(ErrorKind::Type, site.span, "iota of i1 values is not defined");
    node.attrs["dimension"] =
        dimension_attr(site, pretty ? "dim" : "iota_dimension", t.shape.size());
    return {t};
  }

  std::vector<ValueType> reverse(const OpSite& site, GraphNode& node) {
    arity(site, 1);
    std::vector<int64_t> dims = list_attr(site, "dimensions", "dims");
    const ValueType& in = operand(site, 0);
    std::vector<int64_t> seen;
    for (int64_t d : dims) {
      if (d < 0 || d >= static_cast<int64_t>(in.shape.size()) ||
          std::count(seen.begin(), seen.end(), d))
        throw Error(ErrorKind::Shape, site.attrs_span,
                    "reverse's dimensions must be distinct dimensions of the operand's rank " +
                        std::to_string(in.shape.size()));
      seen.push_back(d);
    }
    node.attrs["dimensions"] = dims;
    return {in};
  }

private:
  const core::Graph& g_;
};

} // namespace

std::vector<ValueType> meaning(const OpSite& site, const core::Graph& g, GraphNode& node) {
  if (std::optional<std::vector<ValueType>> q = quantized_meaning(site, g, node))
    return *q;
  if (std::optional<std::vector<ValueType>> alias = alias_meaning(site, g, node))
    return *alias;
  std::vector<ValueType> results = OpMeaning(g).meaning(site, node);
  if (moves_elements(site.op)) // moved stored integers keep their quantization
    for (int v : site.operands)
      if (const ValueType& t = g.values[static_cast<size_t>(v)]; t.quant) {
        for (ValueType& r : results)
          if (r.dtype == t.dtype)
            r.quant = t.quant;
        break;
      }
  return results;
}

} // namespace teval::parser::mlir_detail
