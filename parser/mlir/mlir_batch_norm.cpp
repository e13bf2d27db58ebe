// batch_norm_inference, batch_norm_training and batch_norm_grad (StableHLO
// specification, the sections of the same names): the specification
// defines each as a composition of other StableHLO ops, and teval reads it
// as exactly that composition — broadcast_in_dim, subtract, add, sqrt,
// divide, multiply and reduce nodes — so that every engine, the oracle and
// --dump-values treat it as the ops it stands for. The intermediate values
// are named after the op's first result (`%bn/centered`, ...).
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"
#include "core/format.h"

#include <utility>

namespace teval::parser::mlir_detail {

namespace {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphNode;
using core::GraphOp;
using core::ValueType;

class Expander {
public:
  Expander(const OpSite& site, core::Graph& g, std::string prefix)
      : site_(site), g_(g), prefix_(std::move(prefix)) {}

  ValueType type(int v) const { return g_.values[static_cast<size_t>(v)]; } // add() moves them

  // A node of \p op on \p operands, its one result of type \p t named
  // prefix + \p name.
  int add(GraphOp op, std::vector<int> operands, const ValueType& t, const std::string& name,
          std::map<std::string, core::GraphAttr> attrs = {}) {
    return add_node(g_, site_.span, op, std::move(operands), t, prefix_ + name, std::move(attrs));
  }

  int binary(GraphOp op, int a, int b, const std::string& name) {
    return add(op, {a, b}, type(a), name);
  }

  // A constant of \p t, every element \p v rounded to t's dtype.
  int constant(const ValueType& t, double v, const std::string& name) {
    core::Tensor c(t.dtype, t.shape);
    for (int64_t i = 0; i < c.numel(); ++i)
      c.set(i, core::Scalar::of_float(t.dtype, v));
    return add(GraphOp::Constant, {}, t, name, {{"value", std::move(c)}});
  }

  // \p v (a vector along the feature dimension, or rank 0) broadcast to \p t.
  int broadcast(int v, const ValueType& t, int64_t feature, const std::string& name) {
    std::vector<int64_t> dims;
    if (!type(v).shape.empty())
      dims.push_back(feature);
    return add(GraphOp::BroadcastInDim, {v}, {type(v).dtype, t.shape}, name, {{"dims", dims}});
  }

  // The sum over every dimension but \p feature (spec: compute_sum).
  int sum(int x, int64_t feature, const std::string& name) {
    const ValueType t = type(x);
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < static_cast<int64_t>(t.shape.size()); ++d)
      if (d != feature)
        dims.push_back(d);
    int zero = constant({t.dtype, {}}, 0.0, name + ".init");
    ValueType out{t.dtype, {t.shape[static_cast<size_t>(feature)]}};
    return add(GraphOp::Reduce, {x, zero}, out, name,
               {{"dimensions", dims}, {"body", std::string("add")}});
  }

  // The mean over every dimension but \p feature (spec: compute_mean):
  // the sum divided by the number of elements per feature, a constant of
  // the element type.
  int mean(int x, int64_t feature, const std::string& name) {
    int s = sum(x, feature, name + ".sum");
    const ValueType t = type(x);
    const int64_t count = core::checked_numel(t.shape).value_or(0) /
                          std::max<int64_t>(1, t.shape[static_cast<size_t>(feature)]);
    int divisor = constant(type(s), static_cast<double>(count), name + ".divisor");
    return binary(GraphOp::Divide, s, divisor, name);
  }

  // batch_norm_inference's composition of \p x with \p scale, \p offset,
  // \p mean and \p variance (vectors along \p feature).
  int inference(int x, int scale, int offset, int mean, int variance, double epsilon,
                int64_t feature, const std::string& name) {
    const ValueType t = type(x);
    int scale_b = broadcast(scale, t, feature, "scale_bcast");
    int offset_b = broadcast(offset, t, feature, "offset_bcast");
    int mean_b = broadcast(mean, t, feature, "mean_bcast");
    int variance_b = broadcast(variance, t, feature, "variance_bcast");
    int epsilon_b = constant(t, epsilon, "epsilon_bcast");
    int centered = binary(GraphOp::Subtract, x, mean_b, "centered_operand");
    int stddev = add(GraphOp::Sqrt, {binary(GraphOp::Add, variance_b, epsilon_b, "variance_eps")},
                     t, "stddev");
    int normalized = binary(GraphOp::Divide, centered, stddev, "normalized_operand");
    return binary(GraphOp::Add, binary(GraphOp::Multiply, scale_b, normalized, "scaled"), offset_b,
                  name);
  }

  std::vector<int> expand(const std::string& op) {
    const std::vector<int>& in = site_.operands;
    const size_t arity = op == "batch_norm_inference" ? 5 : op == "batch_norm_training" ? 3 : 5;
    if (in.size() != arity)
      throw Error(ErrorKind::Shape, site_.span,
                  op + " takes " + std::to_string(arity) + " operands, not " +
                      std::to_string(in.size()));
    only(site_, {"epsilon", "feature_index"});
    const ValueType x = type(in[0]);
    // (C1), (C2): a float operand, and every operand of its element type.
    if (!core::is_float(x.dtype))
      throw Error(ErrorKind::Type, site_.span,
                  op + " takes floating-point tensors, not " + type_string(x));
    const int64_t feature = int_attr(site_, "feature_index");
    if (feature < 0 || feature >= static_cast<int64_t>(x.shape.size()))
      throw Error(ErrorKind::Shape, find(site_, "feature_index", true)->span,
                  "feature_index " + std::to_string(feature) + " is not a dimension of " +
                      type_string(x) + " (C1)");
    const int64_t features = x.shape[static_cast<size_t>(feature)];
    // grad_output (batch_norm_grad's fifth operand) has the operand's type.
    for (size_t i = 1; i < in.size(); ++i) {
      const ValueType t = type(in[i]);
      const bool tensor = op == "batch_norm_grad" && i == 4;
      const ValueType want = tensor ? ValueType{x.dtype, x.shape} : ValueType{x.dtype, {features}};
      if (t.quant || t.dtype != want.dtype || t.shape != want.shape)
        throw Error(ErrorKind::Shape, site_.span,
                    op + "'s operand " + std::to_string(i) + " is " + type_string(t) +
                        "; it must be " + type_string(want) + " (C2-C6)");
    }
    if (x.quant)
      throw Error(ErrorKind::Unsupported, site_.span, op + " of quantized tensors is not read yet");
    // The epsilon is an f32 attribute, a constant of the element type.
    const double epsilon = scalar_attr(site_, "epsilon", DType::Float32).f;
    if (op == "batch_norm_inference")
      return {inference(in[0], in[1], in[2], in[3], in[4], epsilon, feature, "output")};
    if (op == "batch_norm_training") {
      int m = mean(in[0], feature, "batch_mean");
      int centered = binary(GraphOp::Subtract, in[0], broadcast(m, x, feature, "batch_mean_bcast"),
                            "batch_centered");
      int v = mean(binary(GraphOp::Multiply, centered, centered, "batch_squares"), feature,
                   "batch_var");
      return {inference(in[0], in[1], in[2], m, v, epsilon, feature, "output"), m, v};
    }
    return grad(epsilon, feature);
  }

  // batch_norm_grad: the specification's composition, its temporaries
  // named as there (i1 ... i6).
  std::vector<int> grad(double epsilon, int64_t feature) {
    const std::vector<int>& in = site_.operands;
    const int x = in[0], grad_output = in[4];
    const ValueType t = type(x);
    int scale_b = broadcast(in[1], t, feature, "scale_bcast");
    int mean_b = broadcast(in[2], t, feature, "mean_bcast");
    int variance_b = broadcast(in[3], t, feature, "variance_bcast");
    int epsilon_b = constant(t, epsilon, "epsilon_bcast");
    int centered = binary(GraphOp::Subtract, x, mean_b, "centered_operand");
    int variance_eps = binary(GraphOp::Add, variance_b, epsilon_b, "variance_eps");
    int stddev = add(GraphOp::Sqrt, {variance_eps}, t, "stddev");
    int normalized = binary(GraphOp::Divide, centered, stddev, "normalized_operand");
    const int64_t count = core::checked_numel(t.shape).value_or(0) /
                          std::max<int64_t>(1, t.shape[static_cast<size_t>(feature)]);
    int per_feature = constant(t, static_cast<double>(count), "elements_per_feature");
    int i1 = binary(GraphOp::Multiply, grad_output, per_feature, "i1");
    int i2 = broadcast(sum(grad_output, feature, "grad_output_sum"), t, feature, "i2");
    int i3 = broadcast(sum(binary(GraphOp::Multiply, grad_output, centered, "grad_output_centered"),
                           feature, "grad_output_centered_sum"),
                       t, feature, "i3");
    int i4 = binary(GraphOp::Multiply, i3, centered, "i4");
    int i5 = binary(GraphOp::Divide, i4, variance_eps, "i5");
    int i6 = binary(GraphOp::Subtract, binary(GraphOp::Subtract, i1, i2, "i1_i2"), i5, "i6");
    int grad_operand =
        binary(GraphOp::Multiply,
               binary(GraphOp::Divide, binary(GraphOp::Divide, scale_b, stddev, "scale_stddev"),
                      per_feature, "scale_stddev_count"),
               i6, "grad_operand");
    int grad_scale =
        sum(binary(GraphOp::Multiply, grad_output, normalized, "grad_output_normalized"), feature,
            "grad_scale");
    int grad_offset = sum(grad_output, feature, "grad_offset");
    return {grad_operand, grad_scale, grad_offset};
  }

private:
  const OpSite& site_;
  core::Graph& g_;
  std::string prefix_;
};

} // namespace

bool is_batch_norm(const std::string& name) {
  return name == "batch_norm_inference" || name == "batch_norm_training" ||
         name == "batch_norm_grad";
}

std::vector<int> batch_norm(const OpSite& site, core::Graph& g, const std::string& prefix) {
  return Expander(site, g, prefix).expand(site.name);
}

} // namespace teval::parser::mlir_detail
