// The rule of each op of an MLIR function, over the values its graph
// defines so far: OpMeaning, whose parts are mlir_ops.cpp (the plain ops
// and the dispatch), mlir_ops_byteir.cpp (ByteIR's custom calls) and
// mlir_ops_layout.cpp (the layout, selection and comparison ops).
// Internal to parser/mlir.
#pragma once

#include "parser/mlir/mlir_ops.h"

#include "core/error.h"
#include "core/graph.h"
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_values.h"

#include <string>
#include <vector>

namespace teval::parser::mlir_detail {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphNode;
using core::GraphOp;
using core::Shape;
using core::ValueType;

// Each op's rule, over the values the graph defines so far.
class OpMeaning {
public:
  explicit OpMeaning(const core::Graph& g) : g_(g) {}

  // ---- attribute access, each error at the attribute
  /// The value of \p v when a constant node defines it, else null.
  const core::Tensor* constant_value(int v) const { return core::constant_value(g_, v); }

  // ---- each op's meaning: its results' types and decoded attributes

  const ValueType& operand(const OpSite& site, size_t i) {
    return g_.values[static_cast<size_t>(site.operands[i])];
  }

  void arity(const OpSite& site, size_t n) {
    if (site.operands.size() != n)
      throw Error(ErrorKind::Shape, site.span,
                  std::string(core::graph_op_name(site.op)) + " takes " + std::to_string(n) +
                      " operand" + (n == 1 ? "" : "s") + ", not " +
                      std::to_string(site.operands.size()));
  }

  // Two operands of one type (the binary elementwise ops): the first's.
  const ValueType& one_type(const OpSite& site) {
    const ValueType& a = operand(site, 0);
    const ValueType& b = operand(site, 1);
    if (a.dtype != b.dtype || a.shape != b.shape)
      throw Error(ErrorKind::Shape, site.span,
                  std::string(core::graph_op_name(site.op)) +
                      " takes operands of one type; they are " + type_string(a) + " and " +
                      type_string(b));
    return a;
  }

  void float_operand(const OpSite& site, size_t i) {
    if (!core::is_float(operand(site, i).dtype))
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) + " takes a float tensor, not " +
                      type_string(operand(site, i)));
  }

  // A float or (for the ops the spec defines on them) a complex tensor.
  void float_or_complex_operand(const OpSite& site, size_t i) {
    if (!core::is_float(operand(site, i).dtype) && !core::is_complex(operand(site, i).dtype))
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) +
                      " takes a float or complex tensor, not " + type_string(operand(site, i)));
  }

  // Not a complex tensor: the ops the spec does not define on them.
  void not_complex(const OpSite& site, const ValueType& t) {
    if (core::is_complex(t.dtype))
      throw Error(ErrorKind::Type, site.span,
                  std::string(core::graph_op_name(site.op)) + " of " + type_string(t) +
                      " is not defined (the spec defines it on integers and floats)");
  }

  /// Each op's results' types, its decoded attributes into \p node.
  std::vector<ValueType> meaning(const OpSite& site, GraphNode& node);

  // ---- ByteIR's custom calls (mlir_ops_byteir.cpp)
  std::vector<ValueType> byteir_meaning(const OpSite& site, GraphNode& node);

  // ---- the stablehlo ops beyond the elementwise ones (mlir_ops_layout.cpp)
  ValueType bitcast_type(const OpSite& site, const ValueType& x);
  void scalar_or_same(const OpSite& site, size_t i, size_t like, const char* what);
  std::vector<ValueType> compare(const OpSite& site, GraphNode& node);
  std::vector<ValueType> select_or_clamp(const OpSite& site);
  int64_t dimension_attr(const OpSite& site, const std::string& name, size_t rank);
  std::vector<int64_t> list_attr(const OpSite& site, const char* generic, const char* pretty);
  std::vector<ValueType> transpose(const OpSite& site, GraphNode& node);
  std::vector<ValueType> slice(const OpSite& site, GraphNode& node);
  std::vector<ValueType> concatenate(const OpSite& site, GraphNode& node);
  std::vector<ValueType> iota(const OpSite& site, GraphNode& node);
  std::vector<ValueType> reverse(const OpSite& site, GraphNode& node);

private:
  const core::Graph& g_;
};

} // namespace teval::parser::mlir_detail
