// The meaning of ByteIR's custom calls (docs/SEMANTICS.md, "ByteIR ops in
// MLIR"): OpMeaning::byteir_meaning (mlir_meaning.h).
#include "parser/mlir/mlir_meaning.h"

#include "core/format.h"
#include "core/kernel.h"
#include "core/scalar_ops.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace teval::parser::mlir_detail {

std::vector<ValueType> OpMeaning::byteir_meaning(const OpSite& site, GraphNode& node) {
  switch (site.op) {
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
                        type_string(operand(site, i)) + "; over axes " + core::format_index(axes) +
                        " of " + type_string(x) + " it must be " + type_string(affine));
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
                  "the indices of " + std::string(core::graph_op_name(site.op)) + " are declared " +
                      type_string(site.declared_outs.back()) +
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
                    "byteir.resize of axis " + std::to_string(d) + ", which is empty, to extent " +
                        std::to_string(out_extent) + ": there is no value to resize");
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
                : core::apply(core::Op::Div,
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
  default:
    break;
  }
  TEVAL_UNREACHABLE("not a ByteIR custom call");
}

} // namespace teval::parser::mlir_detail
