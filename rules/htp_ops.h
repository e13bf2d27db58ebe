// The meaning of HTP ops, for evaluating graphs: an ops file of lines
// `"OpName": <einstein_v2 program>` (or `"OpName"[selector]: ...`, a
// definition for inputs of one dtype or class, or of one count) whose inputs are in0, in1,
// ... in operand order and whose output is out0. A program may use the
// fields $inK[d] / $outK[d] (extent d of input K / of the output),
// $inK.zero, $inK.step, $inK.dtype, $inK.float (float16 for a float16
// tensor, else float32), $inK.rank, $inK.qmin, $inK.qmax and the
// same for $out0; they are replaced by the node's values before the program
// is read. Concat (first input the axis), $Out, constants and shapes are
// built in; teval's standard ops (OpSet::standard) model the HTP and QNN
// ops public packages' rules use, and an ops file's definitions of an op
// replace them.
#pragma once

#include "core/kernel.h"
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
  /// The inputs it is for, by the dtype of the first: "" (any), a dtype
  /// ("quint8", "float16", ...) or a class ("float", "quantized").
  std::string selector;
  /// The number of inputs it is for; -1 for any.
  int inputs = -1;
  std::string program;
  core::Span span;
};

/// The definitions of an ops file.
class OpSet {
public:
  /// Reads \p source over \p base: an op the file defines (under any
  /// selector) has the file's definitions only. Throws Error for a
  /// malformed line or a repeated name and selector.
  static OpSet read(std::shared_ptr<const core::SourceFile> source, const OpSet* base = nullptr);
  /// teval's models of the HTP and QNN ops public packages' rules use.
  static const OpSet& standard();
  /// The text standard() reads (`teval rules ops` prints it).
  static const char* standard_text();
  /// The definition of \p op for \p inputs inputs whose first has dtype
  /// \p first (none for an op without inputs): of those whose selector
  /// holds, the one selecting that dtype, else its class, else any dtype,
  /// and among those one selecting the count; null when none holds.
  const OpDef* find(const std::string& op, std::optional<HtpType> first, size_t inputs) const;
  /// True for an op teval can evaluate: defined here or built in.
  bool knows(const std::string& op) const;
  /// Every definition, by op name.
  const std::map<std::string, std::vector<OpDef>>& definitions() const { return defs_; }

private:
  std::vector<std::shared_ptr<const core::SourceFile>> sources_;
  std::map<std::string, std::vector<OpDef>> defs_;
};

/// An op's definition cannot be applied to these inputs (a shape or dtype
/// it does not accept): the node is ill-typed.
struct IllTyped {
  std::string message;
};

/// The HTP type that stores \p t: \p like when it does, else the float,
/// the quantized type of that storage or Int32; none for another dtype.
std::optional<HtpType> htp_type_of_storage(core::DType t, std::optional<HtpType> like);

/// The output type \p ops gives op \p op on inputs of \p inputs' types. A
/// quantized output takes \p quant's zero offset and step when the
/// definition reads $out0.zero or $out0.step (Quantize, Requantize), else
/// in0's. Throws IllTyped.
TensorType infer_type(const OpSet& ops, const Graph& g, const std::string& op,
                      const std::vector<int>& inputs, std::optional<TensorType> quant);

/// The kernel of \p op's definition for inputs of types \p inputs, the
/// $out0 fields read from \p out, and the definition (the symbolic
/// prover reads the kernel's statements). Throws IllTyped: no definition,
/// or one that rejects these inputs.
core::Kernel op_kernel(const OpSet& ops, const std::string& op,
                       const std::vector<TensorType>& inputs, const TensorType& out,
                       const OpDef** def = nullptr);

/// Evaluates the graph's output with the ground-truth interpreter, given a
/// tensor for every live Input node. Throws IllTyped when a node's declared
/// output differs from what its definition computes, NotEvaluable (see
/// htp_eval.h) for an op without definition, Error for faults.
core::Tensor evaluate(const Graph& g, const OpSet& ops, const std::map<int, core::Tensor>& inputs);

} // namespace teval::rules
