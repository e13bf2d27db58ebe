// The meaning of HTP ops, for evaluating graphs: an ops file of lines
// `"OpName": <einstein_v2 program>` whose inputs are in0, in1, ... in
// operand order and whose output is out0. A program may use the fields
// $inK[d] / $outK[d] (extent d of input K / of the output), $inK.zero,
// $inK.step, $inK.dtype and the same for $out0; they are replaced by the
// node's values before the program is read. Concat (first input the axis),
// $Out, constants and shapes are built in.
#pragma once

#include "core/source.h"
#include "core/tensor.h"
#include "rules/htp_graph.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace teval::rules {

/// One definition from an ops file.
struct OpDef {
  std::string name;
  std::string program;
  core::Span span;
};

/// The definitions of an ops file.
class OpSet {
public:
  /// Reads \p source. Throws Error for a malformed line or a repeated name.
  static OpSet read(std::shared_ptr<const core::SourceFile> source);
  /// The definition of \p op, or null.
  const OpDef* find(const std::string& op) const;
  /// True for an op teval can evaluate: defined here or built in.
  bool knows(const std::string& op) const;
  /// Every definition, by op name.
  const std::map<std::string, OpDef>& definitions() const { return defs_; }

private:
  std::shared_ptr<const core::SourceFile> source_;
  std::map<std::string, OpDef> defs_;
};

/// An op's definition cannot be applied to these inputs (a shape or dtype
/// it does not accept): the node is ill-typed.
struct IllTyped {
  std::string message;
};

/// The output type \p ops gives op \p op on inputs of \p inputs' types. A
/// quantized output takes \p quant's zero offset and step when the
/// definition reads $out0.zero or $out0.step (Quantize, Requantize), else
/// in0's. Throws IllTyped.
TensorType infer_type(const OpSet& ops, const Graph& g, const std::string& op,
                      const std::vector<int>& inputs, std::optional<TensorType> quant);

/// Evaluates the graph's output with the ground-truth interpreter, given a
/// tensor for every live Input node. Throws IllTyped when a node's declared
/// output differs from what its definition computes, NotEvaluable (see
/// htp_eval.h) for an op without definition, Error for faults.
core::Tensor evaluate(const Graph& g, const OpSet& ops, const std::map<int, core::Tensor>& inputs);

} // namespace teval::rules
