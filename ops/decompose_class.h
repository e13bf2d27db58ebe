// The decomposer of an op graph into one einstein_v2 program
// (decompose.h): one class whose methods live in decompose.cpp (the walk,
// names, constants, elementwise ops), decompose_byteir.cpp (ByteIR's ops)
// and decompose_layout.cpp (StableHLO's layout, selection and comparison
// ops). Internal to ops/.
#pragma once

#include "ops/decompose.h"
#include "ops/text.h"

#include "core/graph.h"
#include "core/tensor.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace teval::ops::detail {

/// A dtype as the program spells it in a message: `float32`.
std::string dtype_word(core::DType t);

/// Writes the einstein_v2 statements of a graph's nodes, in order; each
/// method's meaning is documented where it is defined.
class Decomposer {
public:
  explicit Decomposer(const core::Graph& g) : g_(g) {}

  Decomposition run();

private:
  static std::string entry(const std::string& name, const core::ValueType& t);

  std::string fresh(const std::string& mlir);

  const core::ValueType& type(int v) const { return g_.values[static_cast<size_t>(v)]; }

  const core::ValueType& result_type() const { return type(node_->results[0]); }

  const std::string& result() const { return names_.at(node_->results[0]); }

  std::string operand(size_t i, const std::vector<std::string>& index) const;

  void emit(std::string line);

  void statement(const std::string& target, const core::Shape& shape, const std::string& op,
                 const std::string& value);

  // The node's (first) result = VALUE.
  void assign(const std::string& value) { statement(result(), result_type().shape, "=", value); }

  std::string same(size_t i) const { return operand(i, axes(result_type().shape.size())); }

  void constant();

  void reshape();

  void broadcast();

  // Indexing for a reduction over \p axes of the node's first operand:
  // the operand indexed with K<a> on the reduced axes, the kept tensors
  // (reduced axes of extent 1, so the data axes keep their names) indexed
  // with 0 there, and the kept shape.
  struct Reduced {
    std::vector<std::string> all, reduced, kept;
    core::Shape kept_shape;
  };

  Reduced reduced_over(const std::vector<int64_t>& over) const;

  static std::string at(const std::string& t, const std::vector<std::string>& index);

  std::string helper(const std::string& suffix);

  void softmax(bool log);

  void layer_norm();

  void l2_norm();

  static std::vector<std::string> dropped(size_t rank, size_t axis);

  std::string ranks(const Reduced& r, size_t axis, bool larger, bool later_first);

  void arg_extreme(bool max);

  void top_k();

  std::string scalar(const core::Tensor& v, const std::string& name);

  void one_hot();

  void quantize(bool to_integer);

  void resize();

  void rng_uniform();

  std::string epsilon() const;

  std::string constant_of(const std::string& digits) const;

  std::string typed_constant(const std::string& digits) const;

  static std::string typed_constant_of(core::DType t, const std::string& digits);

  void gelu();

  void kernel_type(int v, core::Span span) const;

  // ---- the stablehlo ops beyond the elementwise ones (native.cpp's
  // meanings, index by index)

  void compare();

  std::string same_or_only(size_t i) const;

  void select() { assign(same(1) + ".when([" + same_or_only(0) + "], " + same(2) + ")"); }

  void clamp();

  void transpose();

  void slice();

  void reverse();

  void concatenate();

  void iota();

  void sign();

  void round(bool even);

  void logic(core::GraphOp op);

  void node(const core::GraphNode& n);

  const core::Graph& g_;

  const core::GraphNode* node_ = nullptr;

  std::map<int, std::string> names_;

  std::set<std::string> used_;

  std::vector<std::string> lines_;

  Decomposition out_;
};

} // namespace teval::ops::detail
