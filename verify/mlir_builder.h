// The builder of random MLIR functions of ByteIR and StableHLO ops, shared
// by the generator's files (internal to verify/): mlir_generator.cpp (the
// function, values and the elementwise and selection ops),
// mlir_generator_shapes.cpp (layout, slicing, contractions, reductions) and
// mlir_generator_byteir.cpp (the ByteIR custom calls). See generators.h.
#pragma once

#include "core/graph.h"
#include "verify/choice.h"
#include "verify/generators.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace teval::verify::mlir_gen {

using core::DType;

struct Val {
  std::string name; // %arg0, %3, %3#1
  DType dtype;
  core::Shape shape;
  bool read = false;
};

inline std::string type_of(DType t, const core::Shape& shape) {
  return core::to_mlir({t, shape});
}

inline std::string type_of(const Val& v) {
  return type_of(v.dtype, v.shape);
}

// The element type as attributes spell it: "f32", "i8".
inline std::string element(DType t) {
  std::string s = type_of(t, {});
  return s.substr(7, s.size() - 8);
}

class MlirBuilder {
public:
  /// With \p natives, ops without an einstein_v2 decomposition are drawn
  /// too (mlir_generator_native.cpp).
  explicit MlirBuilder(Program& p, bool natives = false) : p_(p), natives_(natives) {}

  std::string function() {
    int ops = pick(1, 5);
    for (int i = 0; i < ops; ++i)
      op();
    std::string args, results, types;
    for (size_t i = 0; i < p_.inputs.size(); ++i)
      args += (i ? ", %arg" : "%arg") + std::to_string(i) + ": " +
              type_of(p_.inputs[i].second.dtype, p_.inputs[i].second.shape);
    for (const Val& v : values_)
      if (!v.read && v.name.rfind("%arg", 0) != 0) {
        results += (results.empty() ? "" : ", ") + v.name;
        types += (types.empty() ? "" : ", ") + type_of(v);
      }
    return "func.func @main(" + args + ") -> (" + types + ") {\n" + body_ + "  return " + results +
           " : " + types + "\n}\n";
  }

private:
  DType float_dtype() { return chance(55) ? DType::Float32 : one_of(kFloatDTypes); }

  core::Shape shape(int min_rank = 0) {
    core::Shape s(static_cast<size_t>(chance(20) ? min_rank : pick(std::max(min_rank, 1), 3)));
    for (int64_t& d : s)
      d = chance(8) ? 0 : pick(1, 4);
    return s;
  }

  Val argument(DType t, core::Shape s) {
    std::string name = "arg" + std::to_string(p_.inputs.size());
    p_.inputs.push_back({name, {t, s}});
    values_.push_back({"%" + name, t, std::move(s)});
    return values_.back();
  }

  // A value of \p t (any shape when \p s is null) to read: an earlier one
  // most of the time, else a new argument. (A copy: later values move the
  // list.)
  Val operand(std::optional<DType> t, const core::Shape* s = nullptr, int min_rank = 0) {
    std::vector<size_t> fits;
    for (size_t i = 0; i < values_.size(); ++i)
      if ((!t || values_[i].dtype == *t) && (!s || values_[i].shape == *s) &&
          static_cast<int>(values_[i].shape.size()) >= min_rank)
        fits.push_back(i);
    if (fits.empty() || chance(25))
      return argument(t ? *t : float_dtype(), s ? *s : shape(min_rank));
    Val& v = values_[one_of(fits)];
    v.read = true;
    return v;
  }

  // Any element type but bool, floats mostly.
  DType number_dtype() { return chance(80) ? float_dtype() : one_of(kIntegerDTypes); }

  // `%N = TEXT` (one result) or `%N:K = TEXT`; returns the result names.
  std::vector<std::string> define(const std::string& text, const std::vector<Val>& results) {
    std::string id = "%" + std::to_string(next_++);
    body_ += "  " + id + (results.size() > 1 ? ":" + std::to_string(results.size()) : "") + " = " +
             text + "\n";
    std::vector<std::string> names;
    for (size_t i = 0; i < results.size(); ++i) {
      Val v = results[i];
      v.name = results.size() > 1 ? id + "#" + std::to_string(i) : id;
      v.read = false;
      values_.push_back(v);
      names.push_back(v.name);
    }
    return names;
  }

  // A ByteIR custom call in one of its two spellings.
  static std::string custom_call(const std::string& op, const std::string& operands,
                                 const std::string& attrs, const std::string& types) {
    if (chance(50))
      return "stablehlo.custom_call @byteir." + op + "(" + operands + ")" +
             (attrs.empty() ? "" : " {byteir_attrs = {" + attrs + "}}") + " : " + types;
    return "\"mhlo.custom_call\"(" + operands + ") {" +
           (attrs.empty() ? "" : "byteir_attrs = {" + attrs + "}, ") +
           "call_target_name = \"byteir." + op + "\", has_side_effect = false} : " + types;
  }

  static std::string dialect() { return chance(50) ? "stablehlo." : "mhlo."; }

  // A constant holding \p shape, the operand of a dynamic form (its name).
  std::string shape_constant(const core::Shape& shape) {
    std::string values;
    for (size_t d = 0; d < shape.size(); ++d)
      values += (d ? ", " : "") + std::to_string(shape[d]);
    Val v{"", DType::Int64, {static_cast<int64_t>(shape.size())}};
    return define(dialect() + "constant dense<[" + values + "]> : " + type_of(v), {v})[0];
  }
  static std::string shape_type(const core::Shape& shape) {
    return "tensor<" + std::to_string(shape.size()) + "xi64>";
  }

  void op();

  // A list of integers as the pretty (`[1, 0]`) or generic
  // (`array<i64: 1, 0>`) form writes it.
  static std::string ints(const std::vector<int64_t>& v, bool pretty) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i)
      out += (i ? ", " : "") + std::to_string(v[i]);
    return pretty ? "[" + out + "]" : "array<i64" + std::string(v.empty() ? "" : ": ") + out + ">";
  }

  // transpose, slice, reverse, concatenate, pad: any element type, rank >= 1.
  void layout();

  // gather (or dynamic_gather) of \p x: a random subset of its dimensions
  // indexed by start index vectors (at any index_vector_dim, or implicit),
  // some collapsed, one sometimes a batching dimension, slice sizes up to
  // the extents, offset dimensions anywhere in the result; start indices
  // of any integer type, out of range too (clamped).
  void gather(const Val& x);

  // dynamic_slice (sizes up to the operand's extents) or
  // dynamic_update_slice (an update no larger than the operand), the start
  // indices rank-0 integers of one type drawn anywhere: clamped when out of
  // range.
  void dynamic_slice(const Val& x);

  // pad of \p x by a constant or an argument: edge paddings in [-2, 2]
  // (none removing more than the dimension has), interior in [0, 2].
  void pad(const Val& x);

  // compare (without TOTALORDER, which only the interpreter runs), select,
  // clamp and iota.
  void selection();

  // The other elementwise ops: float functions and roundings, sign,
  // is_finite, not, the logical and, or, xor of i1 values and the bitwise
  // ones of integers, the shifts, popcnt and count_leading_zeros.
  void elementwise();

  static std::string axis(const Val& x) {
    return "axis = " + std::to_string(pick(0, static_cast<int>(x.shape.size()) - 1));
  }

  // layer_norm (trailing or chosen axes, 1 or 3 results) and l2_norm.
  void norm();

  // arg_max, arg_min (keep_dims, select_last_index, one or two results)
  // and top_k (k, sorted).
  void arg_or_top_k();

  // quantize a float value, or dequantize an integer one, per tensor or
  // per axis; scales and zero points are constants (scales on ties).
  void quantization();

  // triangular_solve of floats: a batch of square matrices (extents 0 to
  // 4), every side, triangle, diagonal and transposition.
  void triangular_solve();

  // convolution of 0 to 2 spatial dimensions, the batch, feature and
  // spatial dimensions of each operand in random places, with strides,
  // padding (negative too), both dilations, reversal and feature or batch
  // groups, in the generic (#stablehlo.conv, #mhlo.conv, sometimes raw) or
  // the pretty form, sometimes with a result type of its own.
  void convolution();

  // dot_general (the generic form's #stablehlo.dot or #mhlo.dot, or the
  // pretty `batching_dims = [..] x [..]`) over operands whose batching,
  // contracting and free dimensions are in random places, sometimes with a
  // result type of its own; or dot of ranks 1 and 2; triangular_solve; or
  // convolution.
  void contraction();

  // reduce of one input over some of its dimensions (listed in any order)
  // with a body of add, multiply, maximum, minimum (any type but i1 for
  // add and multiply) or the logical and, or (i1), in the pretty `applies`
  // form or with the body as a region; the initial value a constant (the
  // body's identity, -0, infinities) or an argument.
  void reduction();

  // resize by sizes or scales, nearest or linear, each coordinate mapping.
  void resize();

  // An op without an einstein_v2 decomposition: sort, while, if, reduce
  // with a body of several ops, map, scatter, remainder of floats,
  // next_after, erf_inv, dot_general with an algorithm, compare TOTALORDER, power of integers,
  // reduce_precision, bitcast_convert, a detour through ui64. Regions read values of the function.
  void native();

  static inline const core::Shape kScalar{};
  Program& p_;
  bool natives_ = false;
  std::vector<Val> values_;
  std::string body_;
  int next_ = 0;
};

} // namespace teval::verify::mlir_gen
