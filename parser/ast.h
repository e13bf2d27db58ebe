// The one AST. Every notation (Antares einstein_v2 and its COMPUTE_V1
// wrapper, PlaidML Tile in both spellings, HTP optimization rules) parses
// into these few nodes. Method forms desugar to Call: `x.when(c, y)` is
// Call{"when", [x, c, y], method}. Every node carries its source span. The
// meaning of a tree lives in its notation's elaboration, not here.
#pragma once

#include "core/source.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace teval::ast {

using core::Span;

enum class UnaryOp : uint8_t {
  Neg,    ///< -x
  Plus,   ///< +x
  Invert, ///< ~x
  Not,    ///< Python `not x`, C++ `!x`
};

enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,      ///< /
  FloorDiv, ///< //
  Mod,
  Pow, ///< **
  Shl,
  Shr,
  BitAnd,
  BitOr,
  BitXor,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  LogicalAnd, ///< C++ &&
  LogicalOr,  ///< C++ ||
};

std::string_view spelling(UnaryOp op);
std::string_view spelling(BinaryOp op);

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;
struct Function;

/// An identifier; may be qualified ("DType::Float").
struct Name {
  std::string id;
  /// Written in parentheses, as `(impl<A, B>)`: a C macro argument that
  /// must stay one.
  bool parenthesized = false;
};
/// An integer literal; `text` is as written (base prefix and suffixes kept).
struct IntLit {
  uint64_t value = 0;
  std::string text;
};
/// A floating literal; `text` is as written.
struct FloatLit {
  double value = 0;
  std::string text;
};
/// A string literal after escape processing; adjacent literals are joined.
/// An f-string keeps its `{...}` fields unexpanded (formatted == true).
struct StringLit {
  std::string value;
  bool formatted = false;
};
struct Unary {
  UnaryOp op;
  ExprPtr operand;
};
struct Binary {
  BinaryOp op;
  ExprPtr lhs;
  ExprPtr rhs;
  Span op_span;
};
/// base[indices...]; an empty list is `t[]`.
struct Subscript {
  ExprPtr base;
  std::vector<ExprPtr> indices;
};
/// name=value in a call.
struct Keyword {
  std::string name;
  ExprPtr value;
  Span span;
};
/// callee(args..., keywords...). For a method call `r.m(a)` the callee is
/// "m", method is true and args[0] is the receiver r.
struct Call {
  std::string callee;
  Span callee_span;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  bool method = false;
  /// MLIR: the op's regions, each of one block, as functions of its
  /// arguments (a reduce's body).
  std::vector<std::shared_ptr<const Function>> regions = {};
};
struct List {
  std::vector<ExprPtr> items;
};
struct Tuple {
  std::vector<ExprPtr> items;
};
struct Dict {
  std::vector<std::pair<ExprPtr, ExprPtr>> items;
};

struct Expr {
  Span span;
  std::variant<Name, IntLit, FloatLit, StringLit, Unary, Binary, Subscript, Call, List, Tuple, Dict>
      node;
  /// The depth of the tree below, counting this node, as deeper_than()
  /// counts it, when the parser made the node (0 when unknown, for nodes
  /// made elsewhere); the parser rejects a tree as it grows too deep.
  uint32_t depth = 0;
  /// Frees the tree below without recursion: a parsed tree is as deep as
  /// its input (10^5 terms of a sum) until the depth check rejects it.
  ~Expr();
};

struct Stmt;
using StmtPtr = std::shared_ptr<const Stmt>;

/// `AXIS in EXTENT` of an einstein_v2 where clause.
struct Where {
  std::string axis;
  Span axis_span;
  ExprPtr extent;
};
/// target OP value [where ...]. `op` is the operator as written ("=",
/// "+=!", "=.", "+=", ">=", ...); a tuple target unpacks.
struct Assign {
  ExprPtr target;
  std::string op;
  Span op_span;
  ExprPtr value;
  std::vector<Where> where;
};
struct ExprStmt {
  ExprPtr expr;
};
struct Return {
  ExprPtr value;
};
/// A C++ declaration of one name: `TensorDim M`, `std::vector<TensorDim>
/// X(2)` (ctor_args), `auto O = e` (init).
struct Declare {
  std::string type;
  std::string name;
  Span name_span;
  std::vector<ExprPtr> ctor_args;
  ExprPtr init;
};
/// A parameter: its type as written (Tile's C++ spelling) and, in MLIR,
/// as a tree (`tensor<4x?xf32>` is the Call tensor(4, ?, f32)).
struct Param {
  std::string type;
  std::string name;
  Span span;
  ExprPtr type_expr;
};
/// A function definition (Tile: `Tensor f(...) {...}` or `def f(...):`;
/// MLIR: `func.func @f(...) -> (...) {...}`, whose result types are a Tuple).
struct Function {
  std::string name;
  std::vector<Param> params;
  std::vector<StmtPtr> body;
  ExprPtr result_type;
};
/// A counted loop: var walks [begin, end) in steps of 1.
struct Loop {
  std::string var;
  ExprPtr begin;
  ExprPtr end;
  std::vector<StmtPtr> body;
};

struct Stmt {
  Span span;
  std::variant<Assign, ExprStmt, Return, Declare, Function, Loop> node;
};

struct Program {
  std::vector<StmtPtr> statements;
  /// The file read, where a reader knows it (read_tile()): errors about the
  /// program as a whole, such as one with no function, name it.
  const core::SourceFile* file = nullptr;
};

/// The node of \p e if it has that kind, else null.
inline const Call* as_call(const Expr& e) {
  return std::get_if<Call>(&e.node);
}
inline const StringLit* as_string(const Expr& e) {
  return std::get_if<StringLit>(&e.node);
}
inline const Name* as_name(const Expr& e) {
  return std::get_if<Name>(&e.node);
}

/// The first node of \p e (depth-first) that lies deeper than \p limit
/// (\p e itself at depth 1), or null. Iterative, so a tree too deep for a
/// recursive walk is measured safely.
const Expr* deeper_than(const Expr& e, size_t limit);

/// One more than the largest `depth` of \p e's children (1 for a leaf):
/// \p e's depth, given its children's.
uint32_t depth_over_children(const Expr& e);

/// Calls \p f on \p e and every expression inside it, parents first, in
/// source order.
void for_each_expr(const Expr& e, const std::function<void(const Expr&)>& f);

/// \p e with every Name whose id is a key of \p names replaced by its value
/// (spans kept); untouched subtrees are shared, not copied.
ExprPtr rename(const ExprPtr& e, const std::map<std::string, std::string>& names);

/// \p s in double quotes, with `"`, `\` and newlines escaped.
std::string quote(const std::string& s);

/// An S-expression dump for golden tests: `(+ (sub input0 N K) 1)`.
std::string dump(const Expr& e);
/// One line per statement.
std::string dump(const Program& p);

} // namespace teval::ast
