// The MLIR generator's ByteIR custom calls: norms, arg_max/arg_min and
// top_k, quantization and resize (see mlir_builder.h).
#include "verify/mlir_builder.h"

namespace teval::verify::mlir_gen {

// layer_norm (trailing or chosen axes, 1 or 3 results) and l2_norm.
void MlirBuilder::norm() {
  Val x = operand(float_dtype(), nullptr, 1);
  size_t first = static_cast<size_t>(pick(0, static_cast<int>(x.shape.size()) - 1));
  std::string eps =
      std::string("epsilon = ") + (chance(50) ? "1.0e-05" : "0.5") + " : f64" +
      (chance(50) ? std::string(", eps_outside_sqrt = ") + (chance(50) ? "true" : "false") : "");
  if (chance(30)) {
    define(custom_call("l2_norm", x.name, "axis = [" + std::to_string(first) + "], " + eps,
                       "(" + type_of(x) + ") -> " + type_of(x)),
           {x});
    return;
  }
  std::string list;
  core::Shape affine, kept = x.shape;
  for (size_t d = first; d < x.shape.size(); ++d)
    if (d == first || chance(70)) {
      list += (list.empty() ? "" : ", ") + std::to_string(d);
      affine.push_back(x.shape[d]);
      kept[d] = 1;
    }
  std::string gamma = operand(x.dtype, &affine).name, beta = operand(x.dtype, &affine).name;
  std::string attrs = "axis = [" + list + "], " + eps;
  std::string in =
      "(" + type_of(x) + ", " + type_of(x.dtype, affine) + ", " + type_of(x.dtype, affine) + ")";
  std::string operands = x.name + ", " + gamma + ", " + beta;
  if (chance(30)) {
    Val stat{"", x.dtype, kept};
    define(
        custom_call("layer_norm", operands, attrs,
                    in + " -> (" + type_of(x) + ", " + type_of(stat) + ", " + type_of(stat) + ")"),
        {x, stat, stat});
    return;
  }
  define(custom_call("layer_norm", operands, attrs, in + " -> " + type_of(x)), {x});
}

// arg_max, arg_min (keep_dims, select_last_index, one or two results)
// and top_k (k, sorted).
void MlirBuilder::arg_or_top_k() {
  Val x = operand(number_dtype(), nullptr, 1);
  size_t at = static_cast<size_t>(pick(0, static_cast<int>(x.shape.size()) - 1));
  if (x.shape[at] == 0) // an index needs an element: a new argument instead
    x = argument(x.dtype, [&] {
      core::Shape s = x.shape;
      s[at] = pick(1, 4);
      return s;
    }());
  if (core::is_float(x.dtype) && chance(50)) {
    // Ties, as ReLU outputs and quantized values have: through int8 and
    // back, so equal extremes are common and their order matters.
    Val narrow = x;
    narrow.dtype = DType::Int8;
    std::string n =
        define(dialect() + "convert " + x.name + " : (" + type_of(x) + ") -> " + type_of(narrow),
               {narrow})[0];
    values_.back().read = true;
    std::string back = define(
        dialect() + "convert " + n + " : (" + type_of(narrow) + ") -> " + type_of(x), {x})[0];
    values_.back().read = true;
    x.name = back;
  }
  DType index = chance(50) ? DType::Int64 : DType::Int32;
  Val out = x, idx = x;
  idx.dtype = index;
  std::string attrs, op;
  bool both = true;
  if (chance(30)) {
    op = "top_k";
    int64_t k = pick(1, static_cast<int>(x.shape[at]));
    out.shape[at] = idx.shape[at] = k;
    attrs = "axis = [" + std::to_string(at) + "], k = " + std::to_string(k) +
            " : i64, sorted = " + (chance(50) ? "true" : "false");
  } else {
    op = chance(50) ? "arg_max" : "arg_min";
    bool keep = chance(50);
    for (Val* v : {&out, &idx})
      keep ? void(v->shape[at] = 1)
           : void(v->shape.erase(v->shape.begin() + static_cast<std::ptrdiff_t>(at)));
    attrs = "axis = " + std::to_string(at) + " : i64, keep_dims = " + (keep ? "true" : "false") +
            ", select_last_index = " + (chance(50) ? "true" : "false");
    both = chance(50);
  }
  std::string in = "(" + type_of(x) + ") -> ";
  if (both)
    define(custom_call(op, x.name, attrs, in + "(" + type_of(out) + ", " + type_of(idx) + ")"),
           {out, idx});
  else
    define(custom_call(op, x.name, attrs, in + type_of(idx)), {idx});
}

// quantize a float value, or dequantize an integer one, per tensor or
// per axis; scales and zero points are constants (scales on ties).
void MlirBuilder::quantization() {
  bool quantize = chance(50);
  DType integer = one_of(std::vector<DType>{DType::Int8, DType::UInt8, DType::Int16});
  Val x = quantize ? operand(float_dtype()) : operand(integer);
  DType real = quantize ? x.dtype : float_dtype();
  bool per_axis = !x.shape.empty() && chance(50);
  size_t at = per_axis ? static_cast<size_t>(pick(0, static_cast<int>(x.shape.size()) - 1)) : 0;
  core::Shape channels = per_axis ? core::Shape{x.shape[at]} : core::Shape{};
  Val scale{"", real, channels}, zero{"", integer, channels};
  std::string s = define(dialect() + "constant dense<" + (chance(50) ? "5.000000e-01" : "0.1") +
                             "> : " + type_of(scale),
                         {scale})[0];
  std::string z =
      define(dialect() + "constant dense<" + std::to_string(pick(0, 3)) + "> : " + type_of(zero),
             {zero})[0];
  values_[values_.size() - 1].read = values_[values_.size() - 2].read = true;
  Val to = x;
  to.dtype = quantize ? integer : real;
  std::string attrs = per_axis ? "axis = " + std::to_string(at) + " : i64" : "";
  define(custom_call(quantize ? "quantize" : "dequantize", x.name + ", " + s + ", " + z, attrs,
                     "(" + type_of(x) + ", " + type_of(scale) + ", " + type_of(zero) + ") -> " +
                         type_of(to)),
         {to});
}

// resize by sizes or scales, nearest or linear, each coordinate mapping.
void MlirBuilder::resize() {
  Val x = operand(number_dtype(), nullptr, 1);
  bool linear = core::is_float(x.dtype) && chance(50);
  const char* maps[] = {"asymmetric", "half_pixel", "pytorch_half_pixel", "align_corners"};
  bool sizes = chance(50);
  Val to = x;
  std::string target;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (sizes) {
      to.shape[d] = x.shape[d] == 0 ? 0 : pick(1, 6);
      target += (d ? ", " : "") + std::to_string(to.shape[d]);
    } else {
      const char* scales[] = {"5.000000e-01", "1.000000e+00", "1.500000e+00", "2.000000e+00"};
      int which = pick(0, 3);
      to.shape[d] = x.shape[d] * (which + 1) / 2;
      target += (d ? ", " : "") + std::string(scales[which]);
    }
  }
  Val t{"", sizes ? DType::Int64 : DType::Float32, {static_cast<int64_t>(x.shape.size())}};
  std::string shape = define("stablehlo.constant dense<[" + target + "]> : " + type_of(t), {t})[0];
  values_.back().read = true;
  std::string attrs = std::string("coordinate_transformation_mode = \"") + maps[pick(0, 3)] +
                      "\", mode = \"" + (linear ? "linear" : "nearest") + "\", target_mode = \"" +
                      (sizes ? "size" : "scale") + "\"";
  define(custom_call("resize", x.name + ", " + shape, attrs,
                     "(" + type_of(x) + ", " + type_of(t) + ") -> " + type_of(to)),
         {to});
}

} // namespace teval::verify::mlir_gen
