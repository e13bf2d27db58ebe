// A small model of HTP graphs, for applying and verifying op-package rules:
// ops with an opstring, inputs and an output tensor type, in HTP's rank-4
// [batch, height, width, depth] convention, and the text format for them
// (docs/HTP_RULES.md, "Graphs").
#pragma once

#include "core/dtype.h"
#include "core/shape.h"
#include "core/source.h"
#include "core/tensor.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace teval::rules {

/// HTP's element types. Quantized types carry a zero offset and a step
/// size in the tensor type; their values are stored as the integer type
/// storage() names.
enum class HtpType : uint8_t { Float32, Float16, QUInt8, QInt8, QUInt16, QInt16, QInt32, Int32 };

/// "Float32", "QUInt8", ...: the DType enum's tag.
const char* tag(HtpType t);
/// From a DType tag ("QUInt8") or its lower-case spelling ("quint8").
std::optional<HtpType> htp_type_from_name(const std::string& name);
/// The teval dtype holding the values (QUInt8 -> uint8, QUInt16 -> int32).
core::DType storage(HtpType t);
/// Bytes per element on HTP (ELEMENTSIZE_OF).
int element_size(HtpType t);
bool quantized(HtpType t);
/// The least and greatest code a quantized dtype holds (int32's range for
/// QInt32 and Int32).
std::pair<int64_t, int64_t> code_range(HtpType t);

/// The type of an op's output.
struct TensorType {
  HtpType dtype = HtpType::Float32;
  core::Shape shape;
  int32_t zero_offset = 0;
  float step = 1.0f;
  bool operator==(const TensorType&) const = default;
};
/// "float32[1, 2, 2, 8]", with " zero 128 step 0.05" when quantized.
std::string to_string(const TensorType& t);

/// One node: a graph input, a constant, a shape (an HTP OpDef_Shape: a
/// tensor type with no data) or an op.
struct Node {
  enum class Kind : uint8_t { Input, Const, Shape, Op };
  Kind kind = Kind::Op;
  std::string name;
  /// The opstring of an Op; "$Const" for constants, "$Shape" for shapes.
  std::string op;
  std::vector<int> inputs;
  TensorType type;
  /// Number of outputs (WITH_MULTI_OUT); output 0 has `type`.
  int outputs = 1;
  /// The data of a Const.
  std::optional<core::Tensor> value;
};

/// A graph: nodes in creation order (an op's inputs precede it), one output.
struct Graph {
  std::vector<Node> nodes;
  int output = -1;
  /// Graph options read by OPTION_* constraints.
  std::map<std::string, double> options;

  /// Appends \p n, naming it "tN" when it has no name; returns its id.
  int add(Node n);
  /// Ids of the nodes the output depends on, in an order where every node
  /// follows its inputs.
  std::vector<int> live() const;
  /// Every use of \p from (inputs and the output) now uses \p to.
  void replace_uses(int from, int to);
  /// The graph with only live nodes, renumbered in live() order.
  Graph compacted() const;
};

/// Reads the text format. Throws Error with the position of the mistake.
Graph read_graph(const core::SourceFile& file);
/// Writes \p g (live nodes only) in the text format read_graph reads.
std::string to_text(const Graph& g);

} // namespace teval::rules
