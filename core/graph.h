// The op graph: what an MLIR function of mhlo/stablehlo ops and ByteIR
// coarse-grained custom calls elaborates to. Every value has a concrete
// dtype and shape (a `?` dimension took its extent from the input), every
// node a kind and its attributes checked and decoded. Nothing downstream
// knows how the function was spelled; ops/ gives each node kind its two
// meanings (a native reference and an einstein_v2 decomposition).
#pragma once

#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/source.h"
#include "core/tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace teval::core {

/// A node kind (graph_ops.def): the plain ops between calls, then the
/// ByteIR coarse-grained ops.
enum class GraphOp : uint8_t {
#define TEVAL_GRAPH_OP(e, name) e,
#include "core/graph_ops.def"
};

/// The name as written: "add" (mhlo.add, stablehlo.add), "byteir.softmax".
std::string_view graph_op_name(GraphOp op);

/// A quantized element type, StableHLO's `!quant.uniform` (spec, "Types"):
/// integers of `storage` in [storage_min, storage_max], the integer i
/// standing for (i - zero_point) * scale, a value of `expressed`; one
/// scale and zero point for the whole tensor, or (per-axis) one for each
/// index along dimension `axis`.
struct Quantization {
  DType storage = DType::Int8;
  int64_t storage_min = 0;
  int64_t storage_max = 0;
  DType expressed = DType::Float32;
  std::optional<int64_t> axis;
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
  /// `!quant.uniform<i8:f32, 0.1:-30>`, as MLIR prints it.
  std::string text;

  /// The same storage, range, expressed type, axis, scales and zero points.
  bool operator==(const Quantization& o) const {
    return storage == o.storage && storage_min == o.storage_min && storage_max == o.storage_max &&
           expressed == o.expressed && axis == o.axis && scales == o.scales &&
           zero_points == o.zero_points;
  }
};

/// A value: its dtype and shape; a quantized value's dtype is its storage
/// type, its elements the stored integers, `quant` its element type.
struct ValueType {
  DType dtype = DType::Float32;
  Shape shape;
  std::shared_ptr<const Quantization> quant;
  /// StableHLO's !stablehlo.token: no value, held as an i1 tensor of no
  /// element (dtype Bool, shape [0]).
  bool token = false;
};

/// Both quantized alike, or neither.
inline bool same_quantization(const ValueType& a, const ValueType& b) {
  return a.quant ? b.quant && *a.quant == *b.quant : !b.quant;
}

/// "tensor<4x64xf32>", as MLIR spells it.
std::string to_mlir(const ValueType& t);
/// The MLIR spelling of an element type: i1, i32, ui64, f16, bf16, ...
std::string mlir_element(DType t);

/// A decoded attribute: an integer, a float, a bool, a string, a list of
/// integers, or a tensor (a `dense<...>` constant, an `on_value`).
using GraphAttr = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>, Tensor>;

struct GraphNode;

/// A region of a control-flow node (if, case, while): the values its block
/// arguments bind, its nodes in order (reading them, earlier results and
/// any value defined before the node), and the values it returns.
struct GraphRegion {
  std::vector<int> params;
  std::vector<GraphNode> nodes;
  std::vector<int> results;
};

struct GraphNode {
  GraphOp op;
  std::vector<int> operands; ///< value ids
  std::vector<int> results;  ///< value ids
  /// Checked and decoded; every attribute the op's meaning uses is here
  /// (defaults filled in).
  std::map<std::string, GraphAttr> attrs;
  /// if: then, else; case: the branches; while: cond, body.
  std::vector<GraphRegion> regions;
  Span span;

  int64_t int_attr(const std::string& name) const;
  double float_attr(const std::string& name) const;
  bool bool_attr(const std::string& name) const;
  const std::string& string_attr(const std::string& name) const;
  const std::vector<int64_t>& ints_attr(const std::string& name) const;
  const Tensor& tensor_attr(const std::string& name) const;
};

struct Graph {
  std::vector<ValueType> values;
  /// Each value's name in the source (`%arg0`, `%0#1`), for messages.
  std::vector<std::string> value_names;
  /// Every name a value has from the entry function: its names there
  /// (`%x`, `%0`, `%2#1`, a call's results) and, for a value of an inlined
  /// call, the call's result name, `/` and its name in the callee (`%2/%0`;
  /// nested calls `%2/%1/%0`; a call without results is `@callee`).
  std::map<std::string, int> value_paths;
  /// The function's arguments, in order: inputs arg0, arg1, ...
  std::vector<int> inputs;
  /// In order of definition: a node reads only inputs and earlier results.
  std::vector<GraphNode> nodes;
  /// What the function returns, in order: outputs result0, result1, ...
  std::vector<int> outputs;
  /// Where each input and output is declared, for messages.
  std::vector<Span> input_spans, output_spans;
  /// A new value of type \p t named \p name (for messages); its id. Its
  /// paths, if any, are the caller's to add.
  int add_value(const ValueType& t, std::string name) {
    values.push_back(t);
    value_names.push_back(std::move(name));
    return static_cast<int>(values.size()) - 1;
  }
  /// What reading the function noticed and let pass (a frontend's
  /// attribute that is not the op's), for the user to see.
  std::vector<Diagnostic> warnings;
};

/// The name a value is best known by: of value_paths' names for it, the
/// one with the fewest `/` (an entry function's name before a callee's),
/// then the shortest, then the first in order. One per value id.
std::vector<std::string> value_path_names(const Graph& g);

/// The value \p name names (a value_paths name, its `%` optional), or -1.
int find_value(const Graph& g, std::string_view name);

/// The value \p name of \p g made a new, last input (`teval check
/// --given`): the node that computed it writes a value nothing reads
/// instead, and what follows is computed from the input. Returns the
/// value's id. Errors (at \p where): no such value, an argument (the
/// message ends with \p argument_hint), a value computed inside a region.
int give_value(Graph& g, const std::string& name, const std::string& where,
               const std::string& argument_hint);

/// Calls \p f on every node of \p g, those of regions too (a node before
/// the nodes of its regions).
void for_each_node(const Graph& g, const std::function<void(const GraphNode&)>& f);

/// The value of \p v when a constant node of \p g defines it, else null.
const Tensor* constant_value(const Graph& g, int v);

/// The name teval gives input \p i ("arg0") and output \p i ("result0").
std::string graph_input_name(size_t i);
std::string graph_output_name(size_t i);

/// One line per node, for tests and --dump-kernel:
/// `%2:f32[4, 64] = byteir.softmax(%0) {axis = 1}`.
std::string to_string(const Graph& g);

} // namespace teval::core
