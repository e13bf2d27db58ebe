// The LoopNest IR: a kernel as explicit loops, guards and stores, the form
// every code generator consumes. Expressions are Kernel IR expressions
// (core/kernel.h) in which VarRef names a loop-nest variable and Load a
// loop-nest buffer. Nodes are immutable and built through checked
// constructors; passes rebuild only what they change.
//
// Meaning (docs/SEMANTICS.md, "Loop nests"): statements run in order; a
// For binds its variable to begin, begin + 1, ..., end - 1 (nothing when
// end <= begin); a Let binds a variable for its body; And, Or and Select
// are lazy as in kernels. Every Load and Store is checked against its
// buffer's shape: an out-of-range access is an error, never a stray read
// or write. Errors name the current values of the point variables: the
// index variables of the kernel statement being computed.
#pragma once

#include "core/error.h"
#include "core/kernel.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace teval::core {

/// A variable of a loop nest: a loop counter or a Let binding.
struct LoopVar {
  std::string name;
  DType dtype = DType::Int64;
  /// An index variable of the kernel statement (a "point" variable): it is
  /// named in error messages, in ascending id order.
  bool point = false;
};

/// How a buffer enters and leaves a loop nest.
enum class BufferKind : uint8_t {
  Input,  ///< given by the caller, read only
  Output, ///< given by the caller, written
  Temp,   ///< lives between its Allocate and its Free
};

/// An Output buffer's contents are unspecified when a nest begins (the
/// JIT may be given a caller's memory; lowering fills each statement's
/// target before anything reads it). IREval starts them as this byte
/// pattern, and tests give compiled code memory holding it, so that a nest
/// reading an output before writing it shows in every comparison.
inline constexpr std::byte kUnwrittenOutput{0xA5};

/// A dense row-major array of one dtype.
struct Buffer {
  std::string name;
  DType dtype;
  Shape shape;
  BufferKind kind;
  Span span;
};

/// The bytes of storage \p b holds: its elements times their size (within
/// kMaxTensorBytes, as elaboration checked).
size_t storage_bytes(const Buffer& b);

/// How a code generator should emit a loop; every kind means the same.
enum class LoopKind : uint8_t {
  Serial,     ///< one iteration after another
  Unrolled,   ///< the body repeated for each iteration (constant bounds)
  Vectorized, ///< iterations computed as lanes of vector operations
  Parallel,   ///< iterations run at once on several threads (a top-level
              ///< loop whose iterations are independent and cannot fail)
};

struct StmtNode;
/// An immutable, shared statement node.
using Stmt = std::shared_ptr<const StmtNode>;

/// `for (var = begin; var < end; ++var) body`; begin and end are int64
/// expressions evaluated once, before the first iteration.
struct For {
  int var;
  Expr begin;
  Expr end;
  Stmt body;
  LoopKind kind = LoopKind::Serial;
};
/// `if (guard) buffer[index...] = value`: the guard first (when present;
/// nothing else is evaluated when it is false), then the indices left to
/// right, then their range checks in order, then the value.
struct Store {
  int buffer;
  std::vector<Expr> index;
  Expr value;
  Expr guard; ///< null: always
};
/// `var = value` for the duration of body.
struct Let {
  int var;
  Expr value;
  Stmt body;
};
/// `if (cond) then else otherwise`; otherwise may be null.
struct Cond {
  Expr cond;
  Stmt then;
  Stmt otherwise;
};
/// The statements in order.
struct Block {
  std::vector<Stmt> stmts;
};
/// The temp buffer comes into existence, every element zero; or, not
/// zeroed, holding unspecified bytes, where the nest writes every element
/// before it reads one (core::schedule marks such an Allocate when the
/// next statement that touches the buffer stores all of it, unread).
struct Allocate {
  int buffer;
  bool zeroed = true;
};
/// The temp buffer ceases to exist.
struct Free {
  int buffer;
};
/// Stops the program with an error of `kind` at `span`: `message` with
/// each "{}" replaced by the next argument's value (format_scalar).
struct Raise {
  ErrorKind kind;
  Span span;
  std::string message;
  std::vector<Expr> args;
};

struct StmtNode {
  std::variant<For, Store, Let, Cond, Block, Allocate, Free, Raise> node;
};

/// A whole program: buffers (the kernel's tensors first, same ids), the
/// variables, and the root statement.
struct LoopNest {
  std::vector<Buffer> buffers;
  std::vector<LoopVar> vars;
  Stmt root;
  /// Input buffer ids in the order callers pass them (interp::input_ids).
  std::vector<int> inputs;
  /// Output buffer ids in the kernel's output order.
  std::vector<int> outputs;

  int add_var(std::string name, DType dtype, bool point = false);
  int add_buffer(Buffer b);
};

/// Checked constructors: each asserts the node's typing invariants.
Stmt make_for(int var, Expr begin, Expr end, Stmt body, LoopKind kind = LoopKind::Serial);
Stmt make_store(int buffer, std::vector<Expr> index, Expr value, Expr guard = nullptr);
Stmt make_let(int var, Expr value, Stmt body);
Stmt make_cond(Expr cond, Stmt then, Stmt otherwise = nullptr);
/// A block of \p stmts; nested blocks are flattened, null entries dropped.
Stmt make_block(std::vector<Stmt> stmts);
Stmt make_allocate(int buffer, bool zeroed = true);
Stmt make_free(int buffer);
Stmt make_raise(ErrorKind kind, Span span, std::string message, std::vector<Expr> args);

/// The message of \p r with its holes filled by \p values (format_scalar).
std::string raise_message(const Raise& r, const std::vector<Scalar>& values);

/// An int64 constant.
Expr int64(int64_t v);

/// \p e with each node replaced by \p f(node) where that is not null (the
/// nodes below a replaced one are not visited); unchanged subtrees are
/// shared, not copied.
/// With \p memo, each node is replaced once: nodes shared in \p e (or
/// across calls with one memo) stay shared in the result.
using ExprMemo = std::unordered_map<const ExprNode*, Expr>;
Expr replace(const Expr& e, const std::function<Expr(const Expr&)>& f, ExprMemo* memo = nullptr);
/// \p e with every VarRef replaced by \p f(var) where that is not null;
/// unchanged subtrees are shared, not copied.
Expr substitute(const Expr& e, const std::function<Expr(const ExprNode&, const VarRef&)>& f);

/// Calls \p f on \p s and every statement below it, parents first.
void each_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f);

/// True when \p e reads variable \p var.
bool mentions(const Expr& e, int var);
/// True when any of \p exprs (an access's index, say) reads \p var.
bool mentions(std::span<const Expr> exprs, int var);

/// The first loop over variable \p var in \p root (parents first), or null.
const For* find_loop(const Stmt& root, int var);

/// Every expression \p s evaluates itself (not those of the statements
/// below it); a Store's absent guard is left out.
std::vector<Expr> own_exprs(const Stmt& s);

/// The Step-2 style C text of \p nest: declarations, then the statements
/// as `for (int N = 0; N < 16; ++N) { ... }`.
std::string to_string(const LoopNest& nest);

} // namespace teval::core
