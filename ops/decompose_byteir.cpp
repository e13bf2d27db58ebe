// The einstein_v2 decompositions of ByteIR's ops (decompose_class.h; the
// meanings in docs/SEMANTICS.md, "ByteIR ops in MLIR").
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

namespace teval::ops::detail {

using core::DType;
using core::Shape;

// softmax: m = max over the axis, e = exp(x - m), s = sum of e, e / s;
// log_softmax: (x - m) - log(s).
void Decomposer::softmax(bool log) {
  Reduced r = reduced_over({node_->int_attr("axis")});
  std::string m = helper("max"), e = helper("exp"), s = helper("sum");
  std::string x = operand(0, r.all), xk = operand(0, r.reduced);
  statement(m, r.kept_shape, ">=!", xk);
  std::string shifted = "(" + x + " - " + at(m, r.kept) + ")";
  if (log) {
    statement(s, r.kept_shape, "+=!", "(" + xk + " - " + at(m, r.kept) + ").call(`exp`)");
    assign(shifted + " - " + at(s, r.kept) + ".call(`log`)");
    return;
  }
  statement(e, result_type().shape, "=", shifted + ".call(`exp`)");
  statement(s, r.kept_shape, "+=!", at(e, r.reduced));
  assign(at(e, r.all) + " / " + at(s, r.kept));
}

// layer_norm: mean, then the biased variance of the centred values, then
// (x - mean) / den * weight + bias (see native.cpp).
void Decomposer::layer_norm() {
  std::vector<int64_t> axes = node_->ints_attr("axis");
  Reduced r = reduced_over(axes);
  int64_t n = 1;
  std::vector<std::string> affine;
  for (int64_t a : axes) {
    n *= type(node_->operands[0]).shape[static_cast<size_t>(a)];
    affine.push_back(r.all[static_cast<size_t>(a)]);
  }
  std::string count = typed_constant(std::to_string(n));
  std::string eps = typed_constant(epsilon());
  std::string sum = helper("sum"), mean = helper("mean"), sq = helper("sq"), var = helper("var"),
              den = helper("den");
  statement(sum, r.kept_shape, "+=!", operand(0, r.reduced));
  statement(mean, r.kept_shape, "=", at(sum, r.all) + " / " + count);
  std::string centred_k = "(" + operand(0, r.reduced) + " - " + at(mean, r.kept) + ")";
  statement(sq, r.kept_shape, "+=!", centred_k + " * " + centred_k);
  statement(var, r.kept_shape, "=", at(sq, r.all) + " / " + count);
  statement(den, r.kept_shape, "=",
            node_->bool_attr("eps_outside_sqrt")
                ? at(var, r.all) + ".call(`sqrt`) + " + eps
                : "(" + at(var, r.all) + " + " + eps + ").call(`sqrt`)");
  assign("(" + operand(0, r.all) + " - " + at(mean, r.kept) + ") / " + at(den, r.kept) + " * " +
         operand(1, affine) + " + " + operand(2, affine));
  if (node_->results.size() == 3) {
    statement(names_.at(node_->results[1]), r.kept_shape, "=", at(mean, r.all));
    statement(names_.at(node_->results[2]), r.kept_shape, "=",
              typed_constant("1") + " / " + at(den, r.all));
  }
}

// l2_norm: s = sum of x * x along the axis, then x / sqrt(max(s, eps)) or
// x / max(sqrt(s), eps).
void Decomposer::l2_norm() {
  Reduced r = reduced_over(node_->ints_attr("axis"));
  std::string eps = typed_constant(epsilon());
  std::string ss = helper("sumsq"), den = helper("den");
  statement(ss, r.kept_shape, "+=!", operand(0, r.reduced) + " * " + operand(0, r.reduced));
  statement(den, r.kept_shape, "=",
            node_->bool_attr("eps_outside_sqrt")
                ? at(ss, r.all) + ".call(`sqrt`).call(`max`, [" + eps + "])"
                : at(ss, r.all) + ".call(`max`, [" + eps + "]).call(`sqrt`)");
  assign(operand(0, r.all) + " / " + at(den, r.kept));
}

// The kept tensor of a reduction over \p axis read from an output that
// drops the axis: input dimension d is output D<d> before the axis and
// D<d-1> after it.
std::vector<std::string> Decomposer::dropped(size_t rank, size_t axis) {
  std::vector<std::string> index;
  for (size_t d = 0; d < rank; ++d)
    index.push_back(d == axis ? "0" : "D" + std::to_string(d < axis ? d : d - 1));
  return index;
}

// Each element's rank along the axis: how many elements come before it
// in the order of native.cpp (one beats the other: larger, or smaller
// with \p larger false, NaN beating every number; ties by index, the
// later first with \p later_first).
std::string Decomposer::ranks(const Reduced& r, size_t axis, bool larger, bool later_first) {
  DType t = type(node_->operands[0]).dtype;
  std::string k = r.reduced[axis], d = r.all[axis];
  std::string xj = operand(0, r.reduced), xi = operand(0, r.all);
  std::string order = "(" + k + (later_first ? " > " : " < ") + d + ")";
  std::string before =
      "(" + xj + (larger ? " > " : " < ") + xi + ") | ((" + xj + " == " + xi + ") & " + order + ")";
  if (core::is_float(t))
    before += " | ((" + xj + " != " + xj + ") & ((" + xi + " == " + xi + ") | " + order + "))";
  std::string rank = helper("rank");
  statement(rank, type(node_->operands[0]).shape, "+=!", "(" + before + ").cast(`int32`)");
  return rank;
}

// arg_max / arg_min: the element of rank 0 (no other comes before it),
// its index and, by a gather, its value.
void Decomposer::arg_extreme(bool max) {
  size_t axis = static_cast<size_t>(node_->int_attr("axis"));
  Reduced r = reduced_over({static_cast<int64_t>(axis)});
  // Fault 44: the decomposition ignores select_last_index (the first of
  // equal extremes always wins).
  std::string rank = ranks(r, axis, max, !planted(44) && node_->bool_attr("select_last_index"));
  std::string idx = helper("index");
  statement(idx, r.kept_shape, "+=!",
            r.reduced[axis] + ".when([" + at(rank, r.reduced) + " == 0], 0)");
  std::vector<std::string> from =
      node_->bool_attr("keep_dims") ? r.all : dropped(r.all.size(), axis);
  if (node_->results.size() == 2) {
    std::vector<std::string> gather = from;
    gather[axis] = at(idx, from);
    statement(names_.at(node_->results[0]), type(node_->results[0]).shape, "=", operand(0, gather));
  }
  const core::ValueType& indices = type(node_->results.back());
  statement(names_.at(node_->results.back()), indices.shape, "=",
            at(idx, from) + ".cast(" + dtype_word(indices.dtype) + ")");
}

// top_k: each element's rank, the index of each of the first k ranks, and
// a gather.
void Decomposer::top_k() {
  if (node_->attrs.count("total_order") && core::is_float(type(node_->operands[0]).dtype))
    throw core::Error(core::ErrorKind::Unsupported, node_->span,
                      "chlo.top_k of floats (StableHLO's total order tells NaNs and zeros apart "
                      "by their sign bits, which einstein_v2 cannot read) has no einstein_v2 "
                      "decomposition; --engine interp evaluates the function with the ops' "
                      "native references");
  size_t axis = static_cast<size_t>(node_->int_attr("axis"));
  Reduced r = reduced_over({static_cast<int64_t>(axis)});
  std::string rank = ranks(r, axis, true, false);
  std::string k = r.reduced[axis], d = r.all[axis];
  std::string pos = helper("position");
  const core::ValueType& values = type(node_->results[0]);
  statement(pos, values.shape, "+=!", k + ".when([" + at(rank, r.reduced) + " == " + d + "], 0)");
  std::vector<std::string> gather = r.all;
  gather[axis] = at(pos, r.all);
  statement(names_.at(node_->results[0]), values.shape, "=", operand(0, gather));
  const core::ValueType& indices = type(node_->results[1]);
  statement(names_.at(node_->results[1]), indices.shape, "=",
            at(pos, r.all) + ".cast(" + dtype_word(indices.dtype) + ")");
}

// A value of the node as einstein_v2 text: a typed literal, or (not
// finite) a rank-0 constant input.
std::string Decomposer::scalar(const core::Tensor& v, const std::string& name) {
  core::Scalar x = v.get(0);
  if (core::is_float(x.dtype) && !std::isfinite(x.f)) {
    std::string input = "c_" + result() + "_" + name;
    out_.constants.emplace(input, v);
    return input + "[]";
  }
  std::string text = x.dtype == DType::Bool ? std::to_string(x.i) : core::format_scalar(x);
  return "const(" + text + ", dtype=" + dtype_word(x.dtype) + ")";
}

void Decomposer::one_hot() {
  size_t axis = static_cast<size_t>(node_->int_attr("axis"));
  size_t rank = result_type().shape.size();
  std::vector<std::string> index;
  for (size_t dim = 0; dim < rank; ++dim)
    if (dim != axis)
      index.push_back("D" + std::to_string(dim));
  std::string on = scalar(node_->tensor_attr("on_value"), "on");
  std::string off = scalar(node_->tensor_attr("off_value"), "off");
  assign(on + ".when([" + operand(0, index) + " == D" + std::to_string(axis) + "], " + off + ")");
}

// quantize and dequantize, step by step as native.cpp.
void Decomposer::quantize(bool to_integer) {
  const core::ValueType& x = type(node_->operands[0]);
  DType real = type(node_->operands[1]).dtype;
  DType out = result_type().dtype;
  std::vector<std::string> all = axes(x.shape.size()), channel;
  if (type(node_->operands[1]).shape.size() == 1)
    channel.push_back(all[static_cast<size_t>(node_->int_attr("axis"))]);
  std::string s = operand(1, channel), z = operand(2, channel);
  auto c = [&](const std::string& digits) {
    return "const(" + digits + ", dtype=" + dtype_word(real) + ")";
  };
  if (!to_integer) {
    assign("(" + operand(0, all) + ".cast(`int32`) - " + z + ".cast(`int32`)).cast(" +
           dtype_word(real) + ") * " + s);
    return;
  }
  std::string div = helper("quotient"), floor = helper("floor"), frac = helper("fraction"),
              odd = helper("odd"), rounded = helper("rounded");
  statement(div, x.shape, "=", operand(0, all) + " / " + s);
  statement(floor, x.shape, "=", at(div, all) + ".call(`rfloor`)");
  statement(frac, x.shape, "=", at(div, all) + " - " + at(floor, all));
  statement(odd, x.shape, "=",
            at(floor, all) + " - " + c("2") + " * (" + at(floor, all) + " * " + c("0.5") +
                ").call(`rfloor`)");
  statement(rounded, x.shape, "=",
            "(" + at(floor, all) + " + " + c("1") + ").when([(" + at(frac, all) + " > " + c("0.5") +
                "), (" + at(frac, all) + " == " + c("0.5") + ") & (" + at(odd, all) +
                " != " + c("0") + ")], " + at(floor, all) + ", merge_op=`any`)");
  auto wide = [](const std::string& e) { return e + ".cast(`float64`)"; };
  auto bound = [](const core::Scalar& v) {
    return "const(" + std::to_string(v.i) + ", dtype=`float64`)";
  };
  assign("(" + wide(at(rounded, all)) + " + " + wide(z) + ").call(`max`, [" +
         bound(core::lowest(out)) + "]).call(`min`, [" + bound(core::highest(out)) + "]).cast(" +
         dtype_word(out) + ")");
}

// resize, as native.cpp: per axis a table of source coordinates in
// float32, then a gather (nearest) or one interpolation per changed axis
// from the last (linear).
void Decomposer::resize() {
  const Shape& from = type(node_->operands[0]).shape;
  const Shape& to = result_type().shape;
  DType t = result_type().dtype;
  const core::Tensor& scales = node_->tensor_attr("scales");
  const std::string& map = node_->string_attr("coordinate_transformation_mode");
  bool nearest = node_->string_attr("mode") == "nearest";
  auto f32 = [](double v) {
    return core::format_scalar(core::Scalar::of_float(DType::Float32, v));
  };
  std::vector<std::string> i0(to.size()), i1(to.size()), w0(to.size()), w1(to.size());
  std::vector<bool> changed(to.size());
  for (size_t d = 0; d < to.size(); ++d) {
    core::Scalar scale = scales.get(static_cast<int64_t>(d));
    changed[d] = scale.f != 1;
    if (!nearest && !changed[d])
      continue;
    std::string x = "D0.cast(`float32`)", s = core::format_scalar(scale), coordinate;
    if (map == "asymmetric")
      coordinate = x + " / " + s;
    else if (map == "half_pixel" || (map == "pytorch_half_pixel" && to[d] > 1))
      coordinate = "(" + x + " + 0.5) / " + s + " - 0.5";
    else if (map == "align_corners" && to[d] > 1)
      coordinate = x + " * " + f32(double(from[d] - 1)) + " / " + f32(double(to[d] - 1));
    else
      coordinate = "0.0";
    std::string n = std::to_string(d);
    std::string c = helper("coordinate" + n);
    statement(c, {to[d]}, "=",
              "(" + coordinate + ").call(`max`, [0.0]).call(`min`, [" + f32(double(from[d] - 1)) +
                  "])");
    if (nearest) {
      i0[d] = helper("index" + n);
      statement(i0[d], {to[d]}, "=", c + "[D0].call(`floor`)");
      continue;
    }
    std::string floor = helper("floor" + n);
    i0[d] = helper("low" + n);
    i1[d] = helper("high" + n);
    w0[d] = helper("low_weight" + n);
    w1[d] = helper("high_weight" + n);
    statement(floor, {to[d]}, "=", c + "[D0].call(`rfloor`)");
    statement(i0[d], {to[d]}, "=", floor + "[D0].call(`floor`)");
    statement(i1[d], {to[d]}, "=",
              "(" + i0[d] + "[D0] + 1).call(`min`, [" + std::to_string(from[d] - 1) + "])");
    statement(w1[d], {to[d]}, "=", c + "[D0] - " + floor + "[D0]");
    statement(w0[d], {to[d]}, "=", "1.0 - " + w1[d] + "[D0]");
  }
  std::vector<std::string> all = axes(to.size());
  auto pick = [&](const std::vector<std::string>& table, size_t d) {
    return table[d] + "[" + all[d] + "]";
  };
  if (nearest) {
    std::vector<std::string> index;
    for (size_t d = 0; d < to.size(); ++d)
      index.push_back(pick(i0, d));
    assign(operand(0, index));
    return;
  }
  std::string c = dtype_word(t == DType::Float64 ? DType::Float64 : DType::Float32);
  std::string current = names_.at(node_->operands[0]);
  Shape shape = from;
  for (size_t d = to.size(); d-- > 0;) {
    if (!changed[d])
      continue;
    shape[d] = to[d];
    std::vector<std::string> low = all, high = all;
    low[d] = pick(i0, d);
    high[d] = pick(i1, d);
    std::string next = helper("along" + std::to_string(d));
    statement(next, shape, "=",
              at(current, low) + ".cast(" + c + ") * " + pick(w0, d) + ".cast(" + c + ") + " +
                  at(current, high) + ".cast(" + c + ") * " + pick(w1, d) + ".cast(" + c + ")");
    current = next;
  }
  assign(at(current, all) + ".cast(" + dtype_word(t) + ")");
}

// rng_uniform: Philox4x32-10 in int64 arithmetic. A 32-bit word is an
// int64 in [0, 2^32); a 32x32-bit product wraps in int64 to the bits of
// the 64-bit one, whose low word is p % 2^32 (% floors) and high word
// ((p - lo) / 2^32) % 2^32; einstein_v2 has no xor, so a ^ b sums the
// bits where a and b differ over a bit axis B.
void Decomposer::rng_uniform() {
  const Shape& shape = result_type().shape;
  DType t = result_type().dtype;
  std::vector<std::string> all = axes(shape.size());
  auto word = [](uint64_t v) { return "const(" + std::to_string(v) + ", dtype=`int64`)"; };
  const std::string two32 = word(uint64_t{1} << 32);
  std::string seed = operand(2, {}), offset = operand(3, {});
  // The counter's first word: an LCG over the multi-index, in int32.
  std::string hash = "(" + seed + ".cast(`int32`) + " + offset + ".cast(`int32`))";
  for (const std::string& d : all)
    hash = "((" + d + " + " + hash + ") * 1103515245 + 12345)";
  std::string c[4] = {helper("counter0"), helper("zero"), helper("zero"), helper("zero")};
  statement(c[0], shape, "=", hash + ".cast(`int64`) % " + two32);
  statement(c[1], shape, "=", word(0));
  c[2] = c[3] = c[1];
  std::string k0 = helper("key0"), k1 = helper("key1");
  statement(k0, {}, "=", seed + ".cast(`int32`).cast(`int64`) % " + two32);
  statement(k1, {}, "=", offset + ".cast(`int32`).cast(`int64`) % " + two32);
  auto ref = [&](const std::string& name) { return at(name, all); };
  auto xor_of = [&](const std::string& a, const std::string& b, const std::string& name) {
    std::vector<std::string> where;
    for (size_t d = 0; d < shape.size(); ++d)
      where.push_back(all[d] + " in " + std::to_string(shape[d]));
    where.push_back("B in 32");
    emit(at(name, all) + " +=! ((((" + a + " >> B) % 2) != ((" + b +
         " >> B) % 2)).cast(`int64`) << B) where " + join(where));
  };
  for (int round = 0; round < 10; ++round) {
    std::string r = std::to_string(round);
    std::string keys[2];
    for (int k = 0; k < 2; ++k) {
      keys[k] = helper("round" + r + "_key" + std::to_string(k));
      uint64_t bump =
          (k == 0 ? uint64_t{0x9E3779B9} : uint64_t{0xBB67AE85}) * round % (uint64_t{1} << 32);
      statement(keys[k], {}, "=",
                "(" + at(k == 0 ? k0 : k1, {}) + " + " + word(bump) + ") % " + two32);
    }
    std::string p0 = helper("round" + r + "_product0"), p1 = helper("round" + r + "_product1");
    statement(p0, shape, "=", ref(c[0]) + " * " + word(0xD2511F53));
    statement(p1, shape, "=", ref(c[2]) + " * " + word(0xCD9E8D57));
    std::string lo0 = helper("round" + r + "_low0"), hi0 = helper("round" + r + "_high0");
    std::string lo1 = helper("round" + r + "_low1"), hi1 = helper("round" + r + "_high1");
    statement(lo0, shape, "=", ref(p0) + " % " + two32);
    statement(hi0, shape, "=", "((" + ref(p0) + " - " + ref(lo0) + ") / " + two32 + ") % " + two32);
    statement(lo1, shape, "=", ref(p1) + " % " + two32);
    statement(hi1, shape, "=", "((" + ref(p1) + " - " + ref(lo1) + ") / " + two32 + ") % " + two32);
    std::string x0 = helper("round" + r + "_mix0"), x2 = helper("round" + r + "_mix2");
    std::string n0 = helper("round" + r + "_counter0"), n2 = helper("round" + r + "_counter2");
    xor_of(ref(hi1), ref(c[1]), x0);
    xor_of(ref(x0), at(keys[0], {}), n0);
    xor_of(ref(hi0), ref(c[3]), x2);
    xor_of(ref(x2), at(keys[1], {}), n2);
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
  }
  std::string low = operand(0, {}), high = operand(1, {});
  assign(low + " + (" + ref(c[0]) +
         ".cast(`float64`) * const(2.3283064365386963e-10, dtype=`float64`)).cast(" +
         dtype_word(t) + ") * (" + high + " - " + low + ")");
}

std::string Decomposer::epsilon() const {
  return core::format_scalar(core::Scalar::of_float(DType::Float64, node_->float_attr("epsilon")));
}

void Decomposer::gelu() {
  std::string x = same(0);
  std::string inner;
  if (node_->string_attr("approximate") == "tanh")
    inner = "(" + constant_of("0.79788456") + " * (" + x + " + " + constant_of("0.044715") +
            " * (" + x + " * " + x + " * " + x + "))).call(`tanh`)";
  else
    inner = "(" + x + " * " + constant_of("0.707106781") + ").call(`erf`)";
  assign(constant_of("0.5") + " * " + x + " * (" + constant_of("1.0") + " + " + inner + ")");
}

} // namespace teval::ops::detail
