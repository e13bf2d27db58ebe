// The elaborator of an MLIR function into the op graph (mlir.h): one
// class whose methods live in mlir.cpp (functions, calls, the operations of
// one op), mlir_sites.cpp (reading an operation's name, operands, type and
// attributes) and mlir_regions.cpp (the ops with regions). Internal to
// parser/mlir.
#pragma once

#include "core/graph.h"
#include "parser/ast.h"
#include "parser/mlir/mlir.h"
#include "parser/mlir/mlir_ops.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace teval::parser::mlir_detail {

/// The plain ops (mhlo and stablehlo, by their name after the dialect) and
/// the ByteIR custom-call targets, with their graph ops; a list of names
/// for messages.
const std::vector<std::pair<std::string_view, core::GraphOp>>& plain_ops();
const std::vector<std::pair<std::string_view, core::GraphOp>>& byteir_ops();
std::string name_list(const std::vector<std::pair<std::string_view, core::GraphOp>>& ops);

/// Reads one function (and the functions it calls) of a module into a
/// core::Graph, in order; every error at the offending token.
class Elaborator {
public:
  Elaborator(const ast::Program& program, const ast::Function& fn,
             const std::map<std::string, InputType>& inputs)
      : program_(program), fn_(fn), inputs_(inputs) {}

  core::Graph run();

private:
  // The operations of \p fn (the entry, or a callee whose parameters are
  // bound), its return given to \p on_return.
  void body(const ast::Function& fn,
            const std::function<void(const ast::Return&, core::Span)>& on_return);

  // `func.call @f(%a) : (T) -> U` (generic: `"func.call"(%a) <{callee =
  // @f}>`): @f's operations inlined, its parameters bound to the operands
  // and its returned values named by the call's results. A composite
  // (spec "composite") is a call of its `decomposition`: its name,
  // composite_attributes and version do not change what it computes.
  void call_function(const ast::Call& call, const ast::Call& typed, const ast::Expr* target);

  // An op the specification defines as a composition of other ops
  // (batch_norm_*): their nodes, named after its first result
  // (parser/mlir/mlir_batch_norm.cpp).
  void composition(const ast::Expr& value, const ast::Expr* target);

  // \p names (a call's or a composition's results) name the values \p results.
  void bind(const std::vector<const ast::Expr*>& names, const std::vector<int>& results);

  // A new value \p name of type \p t (an error when the name is taken).
  int define(const std::string& name, const core::ValueType& t, core::Span span);

  // The value \p e names (`%0`, `%0#1`), or an error.
  int use(const ast::Expr& e);

  // tuple and get_tuple_element (spec "tuple", "get_tuple_element"): a
  // tuple of values and tuples, known while the function is read;
  // get_tuple_element names its element `index`.
  void tuple_op(const ast::Call& call, const ast::Call& typed, const ast::Expr* target);

  // The function's argument \p i: input `argI`, of its declared type or
  // the given input's.
  void argument(size_t i);

  // The type of a new input \p name \p declared (at \p span, \p what in
  // messages): the declared type, or the given input's where it fits.
  core::ValueType input_type(const core::ValueType& declared, const std::string& name,
                             core::Span span, const std::string& what) const;

  // infeed and outfeed (spec "infeed", "outfeed") read once, outside
  // regions: infeed's data are new inputs after the arguments, outfeed's
  // new outputs after the results (outfeeds_); each gives a token.
  void feed(const OpSite& site, const ast::Expr* target);

  // The function's return: its outputs `result0`, ...
  void ret(const ast::Return& r, core::Span span);

  // The target's names: `%0`, or the Tuple of `%0#0`, `%0#1`.
  static std::vector<const ast::Expr*> result_names(const ast::Expr* target);

  // One operation `target = value`: a node (or a call, composition, tuple)
  // whose results \p target names.
  void operation(const ast::Expr& value, const ast::Expr* target);

  // if, case and while (spec "if", "case", "while"): each region's
  // operations elaborated into a region of the node, the enclosing values
  // visible in it; the results those of the branch taken (of the loop, the
  // carried values).
  void control_flow(const OpSite& site, core::GraphNode node, const ast::Expr* target);

  // sort (spec "sort"): the comparator region takes two rank-0 values of
  // each input's element type (lhs, rhs, input by input) and returns a
  // rank-0 i1; the results are the inputs, sorted together.
  void sort(const OpSite& site, core::GraphNode node, const ast::Expr* target);

  // map (spec "map"): the computation region applied to the inputs'
  // elements at each index (rank-0 values of each input's element type in,
  // one rank-0 value out).
  void map(const OpSite& site, core::GraphNode node, const ast::Expr* target);

  // chlo.scan: its body region of the inputs' slices along `dimension`
  // and the carries, giving the outputs' slices and the new carries.
  void scan(const OpSite& site, core::GraphNode node, const ast::Expr* target);

  // select_and_scatter (spec "select_and_scatter"; its checks in
  // parser/mlir/mlir_scatter.cpp): the select and scatter regions.
  void select_and_scatter(const OpSite& site, core::GraphNode node, const ast::Expr* target);

  // scatter (spec "scatter"; its checks in parser/mlir/mlir_scatter.cpp):
  // the update computation region takes the N current values and the N
  // updates (rank-0) and returns the N new values.
  void scatter(const OpSite& site, core::GraphNode node, const ast::Expr* target);

  // reduce of several inputs, or whose body is not one op (spec
  // "reduce"): the body a region taking the N running values and the N
  // elements (rank 0) and returning the N new running values.
  void reduce_region(const OpSite& site, core::GraphNode node, const ast::Expr* target);

  // The types of \p site's operands.
  std::vector<core::ValueType> operand_types(const OpSite& site) const;

  // The results of a node with regions: named as \p target names them, of
  // \p results' types, which the op's type must admit.
  void define_results(const OpSite& site, core::GraphNode node, const ast::Expr* target,
                      const std::vector<core::ValueType>& results);

  // A region's operations as nodes of their own, named under \p prefix:
  // its block arguments new values of \p params, the values defined before
  // it visible, the names it defines its own; what its `stablehlo.return`
  // gives checked against \p returns (\p what names the region).
  core::GraphRegion region(const ast::Function& r, const std::vector<core::ValueType>& params,
                           const std::vector<core::ValueType>& returns, const std::string& what,
                           const std::string& prefix);

  // An operation's name, operands, type and attributes (mlir_sites.cpp).
  OpSite read_site(const ast::Expr& value);

  // \p site's graph op: a plain op by name, or a ByteIR custom call's target
  // (its byteir_attrs the site's attributes).
  void plain_op(OpSite& site);

  void custom_call(OpSite& site);

  const ast::Program& program_;
  const ast::Function& fn_;
  const std::map<std::string, InputType>& inputs_;
  std::vector<std::string> calls_; ///< the functions being inlined
  std::string prefix_;             ///< their call sites' paths (`%2/%1/`)
  int regions_ = 0;                ///< how deep in regions the ops being read are
  /// What outfeeds send, in order, and where: outputs after the results.
  std::vector<std::pair<int, core::Span>> outfeeds_;
  core::Graph g_;
  std::map<std::string, int> names_;
  /// The tuples (spec "tuple"): aggregates while the function is read,
  /// never values of the graph.
  struct Tuple {
    struct Item {
      int value = -1; ///< a value, or
      std::shared_ptr<const Tuple> tuple;
    };
    std::vector<Item> items;
  };
  std::map<std::string, Tuple> tuples_;
};

} // namespace teval::parser::mlir_detail
