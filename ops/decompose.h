// The einstein_v2 meaning of an op graph: each node as one or a few
// einstein_v2 statements over tensors named after its values, the whole
// function as one COMPUTE_V1 program (`teval lower FILE.mlir` prints it, and
// it is what IREval and the JIT run). Each op's statements perform the same
// operations in the same order as its native reference (native.h), so the
// two agree bit for bit.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <map>
#include <string>

namespace teval::ops {

struct Decomposition {
  /// A COMPUTE_V1 value: `- einstein_v2("""...""", input_dict={...},
  /// extra_outputs=[...])`, one statement per line; its outputs are
  /// result0, result1, ... in order.
  std::string program;
  /// Constants the statements cannot spell (non-splat or non-finite
  /// values): inputs of the program besides arg0, arg1, ..., by name.
  std::map<std::string, core::Tensor> constants;
};

/// Throws Error(Unsupported) at the first op without a decomposition
/// (has_decomposition()), Error(Limit) past the Kernel IR's statements.
Decomposition decompose(const core::Graph& g);

/// False for the ops only the native references evaluate: control flow
/// (if, case, while), sort, map, scatter and select_and_scatter (their
/// functions are regions), the views of bits (bitcast_convert,
/// reduce_precision, next_after), cholesky, fft, real, imag, complex, the
/// quantization ops and the ops whose shapes depend on values.
bool has_decomposition(core::GraphOp op);

} // namespace teval::ops
