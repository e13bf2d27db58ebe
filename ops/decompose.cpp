// The einstein_v2 decomposition of an op graph (see decompose.h and the
// ByteIR section of docs/SEMANTICS.md).
#include "ops/decompose.h"

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

namespace {

using core::DType;
using core::GraphNode;
using core::GraphOp;
using core::Shape;

using detail::axes;
using detail::join;

std::string dtype_word(DType t) {
  return "`" + std::string(core::name(t)) + "`";
}

class Decomposer {
public:
  explicit Decomposer(const core::Graph& g) : g_(g) {}

  Decomposition run() {
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
      statement(out, type(v).shape, "=",
                names_.at(v) + "[" + join(axes(type(v).shape.size())) + "]");
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
    out_.program = "- einstein_v2(\"\"\"\n" + statements + "\"\"\", input_dict={" + join(dict) +
                   "}" + (extra.empty() ? "" : ", extra_outputs=[" + join(extra) + "]") + ")\n";
    return std::move(out_);
  }

private:
  static std::string entry(const std::string& name, const core::ValueType& t) {
    std::vector<std::string> dims;
    for (int64_t d : t.shape)
      dims.push_back(std::to_string(d));
    return "\"" + name + "\": {\"dtype\": \"" + std::string(core::name(t.dtype)) +
           "\", \"shape\": [" + join(dims) + "]}";
  }

  // A tensor name from an MLIR value name: %0 -> v0, %0#1 -> v0_1.
  std::string fresh(const std::string& mlir) {
    std::string base = "v";
    for (char c : mlir.substr(1))
      base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    std::string name = base;
    for (int i = 2; used_.count(name); ++i)
      name = base + "_" + std::to_string(i);
    used_.insert(name);
    return name;
  }

  const core::ValueType& type(int v) const { return g_.values[static_cast<size_t>(v)]; }
  const core::ValueType& result_type() const { return type(node_->results[0]); }
  const std::string& result() const { return names_.at(node_->results[0]); }
  std::string operand(size_t i, const std::vector<std::string>& index) const {
    return names_.at(node_->operands[i]) + "[" + join(index) + "]";
  }
  void emit(std::string line) {
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
  void statement(const std::string& target, const Shape& shape, const std::string& op,
                 const std::string& value) {
    std::vector<std::string> index = axes(shape.size()), where;
    for (size_t d = 0; d < shape.size(); ++d)
      where.push_back(index[d] + " in " + std::to_string(shape[d]));
    emit(target + "[" + join(index) + "] " + op + " " + value +
         (where.empty() ? "" : " where " + join(where)));
  }
  // The node's (first) result = VALUE.
  void assign(const std::string& value) { statement(result(), result_type().shape, "=", value); }

  std::string same(size_t i) const { return operand(i, axes(result_type().shape.size())); }

  void constant() {
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

  void reshape() {
    const Shape& from = type(node_->operands[0]).shape;
    const Shape& to = result_type().shape;
    std::vector<std::string> out_axes = axes(to.size());
    std::vector<int64_t> to_strides = core::strides(to);
    std::string flat;
    for (size_t d = 0; d < to.size(); ++d) {
      if (to[d] == 1)
        continue;
      std::string term =
          out_axes[d] + (to_strides[d] == 1 ? "" : " * " + std::to_string(to_strides[d]));
      flat += (flat.empty() ? "" : " + ") + term;
    }
    if (flat.empty())
      flat = "0";
    std::vector<int64_t> from_strides = core::strides(from);
    std::vector<std::string> index;
    for (size_t d = 0; d < from.size(); ++d) {
      std::string i =
          from_strides[d] == 1 ? flat : "(" + flat + ") / " + std::to_string(from_strides[d]);
      if (d > 0)
        i = "(" + i + ") % " + std::to_string(from[d]);
      index.push_back(from[d] == 1 ? "0" : i);
    }
    assign(operand(0, index));
  }

  void broadcast() {
    const Shape& from = type(node_->operands[0]).shape;
    const std::vector<int64_t>& dims = node_->ints_attr("dims");
    std::vector<std::string> out_axes = axes(result_type().shape.size());
    std::vector<std::string> index;
    for (size_t d = 0; d < dims.size(); ++d)
      index.push_back(from[d] == 1 ? "0" : out_axes[static_cast<size_t>(dims[d])]);
    assign(operand(0, index));
  }

  // Indexing for a reduction over \p axes of the node's first operand:
  // the operand indexed with K<a> on the reduced axes, the kept tensors
  // (reduced axes of extent 1, so the data axes keep their names) indexed
  // with 0 there, and the kept shape.
  struct Reduced {
    std::vector<std::string> all, reduced, kept;
    Shape kept_shape;
  };
  Reduced reduced_over(const std::vector<int64_t>& over) const {
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
  static std::string at(const std::string& t, const std::vector<std::string>& index) {
    return t + "[" + join(index) + "]";
  }
  // A helper tensor of the node, named after its result.
  std::string helper(const std::string& suffix) {
    std::string name = result() + "_" + suffix;
    used_.insert(name);
    return name;
  }

  // softmax: m = max over the axis, e = exp(x - m), s = sum of e, e / s;
  // log_softmax: (x - m) - log(s).
  void softmax(bool log) {
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
  void layer_norm() {
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
  void l2_norm() {
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
  static std::vector<std::string> dropped(size_t rank, size_t axis) {
    std::vector<std::string> index;
    for (size_t d = 0; d < rank; ++d)
      index.push_back(d == axis ? "0" : "D" + std::to_string(d < axis ? d : d - 1));
    return index;
  }

  // Each element's rank along the axis: how many elements come before it
  // in the order of native.cpp (one beats the other: larger, or smaller
  // with \p larger false, NaN beating every number; ties by index, the
  // later first with \p later_first).
  std::string ranks(const Reduced& r, size_t axis, bool larger, bool later_first) {
    DType t = type(node_->operands[0]).dtype;
    std::string k = r.reduced[axis], d = r.all[axis];
    std::string xj = operand(0, r.reduced), xi = operand(0, r.all);
    std::string order = "(" + k + (later_first ? " > " : " < ") + d + ")";
    std::string before = "(" + xj + (larger ? " > " : " < ") + xi + ") | ((" + xj + " == " + xi +
                         ") & " + order + ")";
    if (core::is_float(t))
      before += " | ((" + xj + " != " + xj + ") & ((" + xi + " == " + xi + ") | " + order + "))";
    std::string rank = helper("rank");
    statement(rank, type(node_->operands[0]).shape, "+=!", "(" + before + ").cast(`int32`)");
    return rank;
  }

  // arg_max / arg_min: the element of rank 0 (no other comes before it),
  // its index and, by a gather, its value.
  void arg_extreme(bool max) {
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
      statement(names_.at(node_->results[0]), type(node_->results[0]).shape, "=",
                operand(0, gather));
    }
    const core::ValueType& indices = type(node_->results.back());
    statement(names_.at(node_->results.back()), indices.shape, "=",
              at(idx, from) + ".cast(" + dtype_word(indices.dtype) + ")");
  }

  // top_k: each element's rank, the index of each of the first k ranks, and
  // a gather.
  void top_k() {
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
  std::string scalar(const core::Tensor& v, const std::string& name) {
    core::Scalar x = v.get(0);
    if (core::is_float(x.dtype) && !std::isfinite(x.f)) {
      std::string input = "c_" + result() + "_" + name;
      out_.constants.emplace(input, v);
      return input + "[]";
    }
    std::string text = x.dtype == DType::Bool ? std::to_string(x.i) : core::format_scalar(x);
    return "const(" + text + ", dtype=" + dtype_word(x.dtype) + ")";
  }

  void one_hot() {
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
  void quantize(bool to_integer) {
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
              "(" + at(floor, all) + " + " + c("1") + ").when([(" + at(frac, all) + " > " +
                  c("0.5") + "), (" + at(frac, all) + " == " + c("0.5") + ") & (" + at(odd, all) +
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
  void resize() {
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
  void rng_uniform() {
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
      statement(hi0, shape, "=",
                "((" + ref(p0) + " - " + ref(lo0) + ") / " + two32 + ") % " + two32);
      statement(lo1, shape, "=", ref(p1) + " % " + two32);
      statement(hi1, shape, "=",
                "((" + ref(p1) + " - " + ref(lo1) + ") / " + two32 + ") % " + two32);
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

  std::string epsilon() const {
    return core::format_scalar(
        core::Scalar::of_float(DType::Float64, node_->float_attr("epsilon")));
  }

  // A float constant of the node's element type: a bare literal is
  // float32, and would promote a float16 operand (and round a float64
  // constant to float32).
  std::string constant_of(const std::string& digits) const {
    DType t = result_type().dtype;
    return t == DType::Float32 ? digits : typed_constant(digits);
  }
  std::string typed_constant(const std::string& digits) const {
    return typed_constant_of(result_type().dtype, digits);
  }
  static std::string typed_constant_of(DType t, const std::string& digits) {
    return "const(" + digits + ", dtype=" + dtype_word(t) + ")";
  }

  void gelu() {
    std::string x = same(0);
    std::string inner;
    if (node_->string_attr("approximate") == "tanh")
      inner = "(" + constant_of("0.79788456") + " * (" + x + " + " + constant_of("0.044715") +
              " * (" + x + " * " + x + " * " + x + "))).call(`tanh`)";
    else
      inner = "(" + x + " * " + constant_of("0.707106781") + ").call(`erf`)";
    assign(constant_of("0.5") + " * " + x + " * (" + constant_of("1.0") + " + " + inner + ")");
  }

  // Values of an element type kernels do not have leave the function to the
  // native references.
  void kernel_type(int v, core::Span span) const {
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

  // ---- the stablehlo ops beyond the elementwise ones (native.cpp's
  // meanings, index by index)

  void compare() {
    if (node_->string_attr("compare_type") == "TOTALORDER")
      throw core::Error(core::ErrorKind::Unsupported, node_->span,
                        "compare with compare_type TOTALORDER has no einstein_v2 decomposition "
                        "(it orders -0 below +0 and NaNs by sign); --engine interp evaluates it");
    static const std::map<std::string, std::string> kOps = {
        {"EQ", "=="}, {"NE", "!="}, {"GE", ">="}, {"GT", ">"}, {"LE", "<="}, {"LT", "<"}};
    // An i1 operand compares as the integer it is.
    bool flags = type(node_->operands[0]).dtype == DType::Bool;
    auto side = [&](size_t i) { return flags ? same(i) + ".cast(`int8`)" : same(i); };
    assign("(" + side(0) + " " + kOps.at(node_->string_attr("direction")) + " " + side(1) +
           ").cast(`bool`)");
  }

  // Operand \p i at the result's index, or its only element.
  std::string same_or_only(size_t i) const {
    return type(node_->operands[i]).shape.empty() ? operand(i, {}) : same(i);
  }

  void select() { assign(same(1) + ".when([" + same_or_only(0) + "], " + same(2) + ")"); }

  // Of i1 Antares' max and min promote to int8 (0 or 1), cast back.
  void clamp() {
    std::string v =
        same(1) + ".call(`max`, [" + same_or_only(0) + "]).call(`min`, [" + same_or_only(2) + "])";
    assign(result_type().dtype == DType::Bool ? "(" + v + ").cast(`bool`)" : v);
  }

  void transpose() {
    const std::vector<int64_t>& perm = node_->ints_attr("permutation");
    std::vector<std::string> out = axes(perm.size()), index(perm.size());
    for (size_t d = 0; d < perm.size(); ++d)
      index[static_cast<size_t>(perm[d])] = out[d];
    assign(operand(0, index));
  }

  void slice() {
    const std::vector<int64_t>& start = node_->ints_attr("start");
    const std::vector<int64_t>& strides = node_->ints_attr("strides");
    std::vector<std::string> index = axes(start.size());
    for (size_t d = 0; d < index.size(); ++d) {
      if (strides[d] != 1)
        index[d] += " * " + std::to_string(strides[d]);
      if (start[d] != 0)
        index[d] += " + " + std::to_string(start[d]);
    }
    assign(operand(0, index));
  }

  void reverse() {
    const Shape& shape = type(node_->operands[0]).shape;
    std::vector<std::string> index = axes(shape.size());
    for (int64_t d : node_->ints_attr("dimensions")) {
      size_t k = static_cast<size_t>(d);
      index[k] = std::to_string(shape[k] - 1) + " - " + index[k];
    }
    assign(operand(0, index));
  }

  // Each operand where its part of the axis lies, the later ones under
  // lazy .when branches: a read past an operand is never evaluated.
  void concatenate() {
    const size_t axis = static_cast<size_t>(node_->int_attr("dimension"));
    std::vector<std::string> index = axes(result_type().shape.size());
    const std::string along = index[axis];
    std::string value;
    int64_t offset = 0;
    std::vector<std::string> parts;
    for (size_t k = 0; k < node_->operands.size(); ++k) {
      index[axis] = offset ? along + " - " + std::to_string(offset) : along;
      parts.push_back(operand(k, index));
      offset += type(node_->operands[k]).shape[axis];
    }
    value = parts.back();
    offset -= type(node_->operands.back()).shape[axis];
    for (size_t k = parts.size() - 1; k-- > 0;) {
      value = parts[k] + ".when([" + along + " < " + std::to_string(offset) + "], " + value + ")";
      offset -= type(node_->operands[k]).shape[axis];
    }
    assign(value);
  }

  void iota() {
    std::vector<std::string> index = axes(result_type().shape.size());
    assign(index[static_cast<size_t>(node_->int_attr("dimension"))] + ".cast(" +
           dtype_word(result_type().dtype) + ")");
  }

  // sign as native.cpp: 1 above zero, -1 below, else the value.
  void sign() {
    std::string x = same(0);
    DType t = result_type().dtype;
    std::string one = typed_constant_of(t, "1"), zero = typed_constant_of(t, "0");
    if (core::kind(t) == core::DTypeKind::Unsigned) // never below zero
      return assign(one + ".when([" + x + " > " + zero + "], " + x + ")");
    std::string minus = typed_constant_of(t, "-1");
    assign(one + ".when([" + x + " > " + zero + "], " + minus + ".when([" + x + " < " + zero +
           "], " + x + "))");
  }

  // The nearest integer, step by step in the element type, on the
  // magnitude (where every step is exact; x - floor(x) of a negative x is
  // not): a = |x|, r = floor(a), d = a - r, r + 1 above a half, r below it,
  // and at a half the even one (r - 2 floor(r / 2) is 1 for an odd r) or
  // the one away from zero; then x's sign, a zero result taking it from
  // x * 0, and a value that is not finite (x - x is not 0) stays.
  void round(bool even) {
    std::string x = same(0);
    auto c = [&](const char* digits) { return typed_constant(digits); };
    std::vector<std::string> index = axes(result_type().shape.size());
    std::string a = helper("abs"), m = helper("m");
    statement(a, result_type().shape, "=", x + ".call(`abs`)");
    std::string av = at(a, index);
    std::string r = av + ".call(`rfloor`)";
    std::string d = "(" + av + " - " + r + ")";
    std::string up = "(" + r + " + " + c("1.0") + ")";
    std::string tie = even ? up + ".when([" + r + " - " + c("2.0") + " * (" + r + " / " + c("2.0") +
                                 ").call(`rfloor`) == " + c("1.0") + "], " + r + ")"
                           : up;
    statement(m, result_type().shape, "=",
              up + ".when([" + d + " > " + c("0.5") + "], " + r + ".when([" + d + " < " + c("0.5") +
                  "], " + tie + "))");
    std::string mv = at(m, index);
    std::string s = "(" + mv + ".when([" + x + " >= " + c("0.0") + "], -" + mv + "))";
    assign(s + ".when([" + s + " != " + c("0.0") + "], " + x + " * " + c("0.0") + ").when([" + x +
           " - " + x + " == " + c("0.0") + "], " + x + ")");
  }

  // not, and, or, xor of i1 values (\p op: the node's, or or and for an
  // add, maximum, multiply or minimum of i1, whose Antares forms would
  // promote to int8).
  void logic(GraphOp op) {
    auto i8 = [&](size_t i) { return same(i) + ".cast(`int8`)"; };
    switch (op) {
    case GraphOp::Not:
      if (result_type().dtype == DType::Bool)
        return assign("(" + i8(0) + " == const(0, dtype=`int8`)).cast(`bool`)");
      return assign("-" + same(0) + " - " + typed_constant("1"));
    case GraphOp::And:
      return assign("(" + i8(0) + " * " + i8(1) + ").cast(`bool`)");
    case GraphOp::Or:
      return assign("(" + i8(0) + " + " + i8(1) + " > const(0, dtype=`int8`)).cast(`bool`)");
    default:
      return assign("(" + i8(0) + " != " + i8(1) + ").cast(`bool`)");
    }
  }

  void node(const GraphNode& n) {
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
      return assign("(" + same(0) + " - " + same(0) + " == " +
                    typed_constant_of(type(n.operands[0]).dtype, "0.0") + ").cast(`bool`)");
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
    case GraphOp::BitcastConvert:
    case GraphOp::ReducePrecision:
    case GraphOp::Atan2:
    case GraphOp::Cbrt:
    case GraphOp::ExponentialMinusOne:
    case GraphOp::LogPlusOne:
    case GraphOp::Real:
    case GraphOp::Imag:
    case GraphOp::Complex:
    case GraphOp::Fft:
    case GraphOp::UniformQuantize:
    case GraphOp::UniformDequantize:
    case GraphOp::Repeat:
    case GraphOp::NonZero:
      throw core::Error(core::ErrorKind::Unsupported, n.span,
                        std::string(core::graph_op_name(n.op)) +
                            (n.op == GraphOp::If || n.op == GraphOp::Case || n.op == GraphOp::While
                                 ? " (control flow)"
                             : n.op == GraphOp::Sort    ? " (its comparator is a region)"
                             : n.op == GraphOp::Map     ? " (its computation is a region)"
                             : n.op == GraphOp::Scatter ? " (its update computation is a region)"
                             : n.op == GraphOp::SelectAndScatter
                                 ? " (its select and scatter functions are regions)"
                             : n.op == GraphOp::BitcastConvert || n.op == GraphOp::ReducePrecision
                                 ? " (a view of the elements' bits)"
                             : n.op == GraphOp::Repeat || n.op == GraphOp::NonZero
                                 ? " (its result's shape depends on values)"
                                 : " (a math function the Kernel IR has no operator for)") +
                            " has no einstein_v2 decomposition; --engine interp evaluates the "
                            "function with the ops' native references");
    }
    TEVAL_UNREACHABLE("graph op without a decomposition");
  }

  const core::Graph& g_;
  const GraphNode* node_ = nullptr;
  std::map<int, std::string> names_;
  std::set<std::string> used_;
  std::vector<std::string> lines_;
  Decomposition out_;
};

} // namespace

Decomposition decompose(const core::Graph& g) {
  return Decomposer(g).run();
}

bool has_decomposition(core::GraphOp op) {
  using core::GraphOp;
  return op != GraphOp::If && op != GraphOp::Case && op != GraphOp::While && op != GraphOp::Sort &&
         op != GraphOp::Map && op != GraphOp::Scatter && op != GraphOp::BitcastConvert &&
         op != GraphOp::ReducePrecision && op != GraphOp::Atan2 && op != GraphOp::Cbrt &&
         op != GraphOp::ExponentialMinusOne && op != GraphOp::LogPlusOne &&
         op != GraphOp::SelectAndScatter && op != GraphOp::Real && op != GraphOp::Imag &&
         op != GraphOp::Complex && op != GraphOp::Fft && op != GraphOp::UniformQuantize &&
         op != GraphOp::UniformDequantize && op != GraphOp::Repeat && op != GraphOp::NonZero;
}

} // namespace teval::ops
