// Matching HTP rule patterns against a graph and evaluating constraint
// expressions, with the meaning docs/HTP_RULES.md gives them.
#pragma once

#include "parser/ast.h"
#include "rules/htp_graph.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace teval::rules {

/// Thrown when a rule needs something teval cannot know: an external C++
/// function, an unset graph option, HTP's internal DType numbering.
struct NotEvaluable {
  core::Span span;
  std::string reason;
};

/// A constraint value: bool, int (C int, 32-bit), size (size_t, 64-bit,
/// wrapping), float (binary32) or dtype (a DType tag).
struct Value {
  enum class Type : uint8_t { Bool, Int, Size, Float, DType };
  Type type = Type::Bool;
  int64_t i = 0;  ///< Bool (0/1) and Int
  uint64_t u = 0; ///< Size
  float f = 0;    ///< Float
  std::string dtype;
};

/// The nodes a match bound: every tag of the pattern, and "*" (the root).
struct Match {
  std::map<std::string, int> tags;
};

/// Matches \p pattern (Op / OpVarIn / LET / tags) with its root at node
/// \p node. A repeated tag must bind one node. "$Const" matches constants.
std::optional<Match> match(const Graph& g, int node, const ast::Expr& pattern);

/// One iteration variable of an enclosing AUTOSPLIT or OP_ITER.
struct Split {
  std::string tag;
  int dim = 0;       ///< AUTOSPLIT: the split dimension
  int64_t start = 0; ///< AUTOSPLIT: first index of the chunk; OP_ITER: the index
  int64_t size = 0;  ///< AUTOSPLIT: the chunk's extent
};

/// Evaluates constraint expressions and operand references against one
/// match of one graph.
class Evaluator {
public:
  Evaluator(const Graph& g, const Match& m) : g_(g), m_(m) {}

  /// The constraint's value. Throws NotEvaluable, or Error for arithmetic
  /// faults (division by zero, int overflow, DIM_OF beyond the rank).
  bool holds(const ast::Expr& constraint) { return truth(eval(constraint), constraint); }
  Value eval(const ast::Expr& e);
  /// The node an operand reference names.
  int opref(const ast::Expr& e);
  /// An int or size expression as a 64-bit integer.
  int64_t integer(const ast::Expr& e);

  /// Splits in scope, innermost last.
  std::vector<Split> splits;

private:
  bool truth(const Value& v, const ast::Expr& e);
  const Split& split(const ast::Expr& tag);
  Value call(const ast::Call& c, const ast::Expr& e);
  // Whether node \p producer's output feeds an op \p opname of the graph
  // (PRODUCER_FOR).
  bool feeds(int producer, const std::string& opname) const;

  const Graph& g_;
  const Match& m_;
};

} // namespace teval::rules
