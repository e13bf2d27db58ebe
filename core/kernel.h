// The Kernel IR: what every notation elaborates to. Every index variable has
// an explicit range, every expression node a dtype, every statement its
// aggregation, initial value and validity policy. Nothing downstream knows
// which notation a kernel came from.
#pragma once

#include "core/dtype.h"
#include "core/numeric.h"
#include "core/shape.h"
#include "core/source.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace teval::core {

/// An operator of the Kernel IR (kernel_ops.def).
enum class Op : uint8_t {
#define TEVAL_OP(e, spelling, arity, rule) e,
#include "core/kernel_ops.def"
};

/// The type rule of an operator; see kernel_ops.def.
enum class OpRule : uint8_t { Arith, Integer, Float, Compare, Logical, FloatToInt };

std::string_view spelling(Op op);
int arity(Op op);
OpRule rule(Op op);
/// The functions programs call by name (Antares `x.call(`exp`)`, Tile
/// `exp(A)`), in the order docs and messages list them: every Float and
/// FloatToInt operator, abs, max, min and pow. This one list drives the
/// parsers, their "unknown function" messages, REPL completion and the
/// tables in docs/SEMANTICS.md (a test compares them). Operators with an
/// alphabetic spelling that elaboration and lowering create (neg, not,
/// exactdiv, same) are not on it.
const std::vector<Op>& named_functions();
/// The function named \p name on that list, or nothing.
std::optional<Op> function_named(std::string_view name);
/// The list's names joined by ", ".
std::string function_name_list();

/// What integer overflow in an Apply node means.
enum class Overflow : uint8_t {
  Wrap, ///< two's-complement wraparound to the result dtype
  Trap, ///< an error (index arithmetic: a wrapped index would be a lie)
};

struct ExprNode;
/// An immutable, shared expression node.
using Expr = std::shared_ptr<const ExprNode>;

/// A constant.
struct Const {
  Scalar value;
};
/// The value of index variable `var` of the enclosing statement (an
/// integer), or in a loop nest of loop-nest variable `var` (any dtype).
struct VarRef {
  int var;
};
/// Element `index` of tensor `tensor`; one index per dimension.
struct Load {
  int tensor;
  std::vector<Expr> index;
};
/// An operator applied to arguments.
struct Apply {
  Op op;
  std::vector<Expr> args;
  Overflow overflow = Overflow::Wrap;
};
/// The value converted to the node's dtype (integers wrap, floats round to
/// nearest even, float to integer truncates and must fit).
struct Cast {
  Expr value;
};
/// `cond ? then : otherwise`, lazily: only the chosen branch is evaluated.
struct Select {
  Expr cond;
  Expr then;
  Expr otherwise;
};

/// One node: a dtype, the source it came from, and what it computes.
struct ExprNode {
  DType dtype;
  Span span;
  std::variant<Const, VarRef, Load, Apply, Cast, Select> node;
};

/// Checked constructors: each asserts the node's typing invariants.
Expr make_const(Scalar value, Span span = {});
Expr make_var(int var, DType dtype, Span span = {});
Expr make_load(int tensor, DType dtype, std::vector<Expr> index, Span span = {});
/// \p result is required for Compare, Logical and FloatToInt operators and
/// must be omitted otherwise (the result is the operands' dtype).
Expr make_apply(Op op, std::vector<Expr> args, Span span = {},
                std::optional<DType> result = std::nullopt, Overflow overflow = Overflow::Wrap);
Expr make_cast(Expr value, DType dtype, Span span = {});
Expr make_select(Expr cond, Expr then, Expr otherwise, Span span = {});

/// Calls \p f on \p e and on every node below it, parents first, operands
/// left to right (both branches of a Select included).
void for_each_node(const Expr& e, const std::function<void(const Expr&)>& f);

/// How a tensor enters and leaves a kernel.
enum class TensorRole : uint8_t { Input, Intermediate, Output };
/// "input", "intermediate" or "output".
std::string_view spelling(TensorRole r);

/// One tensor of a kernel, with a fixed dtype and shape.
struct TensorDecl {
  std::string name;
  DType dtype;
  Shape shape;
  TensorRole role;
  Span span;
};

/// An index variable walking the integers of [begin, end).
struct IndexVar {
  std::string name;
  int64_t begin = 0;
  int64_t end = 0;
  /// A reduce variable (not on the output side); data variables come first.
  bool reduce = false;
  DType dtype = DType::Int32;
  Span span;
};

/// How the values computed for one output location combine.
enum class Aggregation : uint8_t {
  Assign,  ///< one value per location (see WriteConflict)
  Sum,     ///< added in the output dtype, in iteration order
  Product, ///< multiplied likewise
  Max,     ///< the largest; NaN wins
  Min,     ///< the smallest; NaN wins
  All,     ///< 1 if every value is nonzero, else 0
  Any,     ///< 1 if some value is nonzero, else 0
};

/// Where the accumulator of an output location starts.
enum class Start : uint8_t {
  Init,       ///< at the statement's fill (init value or init_from tensor)
  FirstValue, ///< at the first value written; unwritten locations keep the fill
};

/// What an out-of-range tensor access at an index point means.
enum class OutOfRange : uint8_t {
  Error, ///< the program is wrong: report it
  Skip,  ///< the point is not valid and contributes nothing
};

/// What two writes to one location under Aggregation::Assign mean.
enum class WriteConflict : uint8_t {
  Error,            ///< always an error
  ErrorIfDifferent, ///< an error unless the values are identical
};

/// A constraint 0 <= expr < bound on the index variables.
struct Constraint {
  Expr expr;
  int64_t bound;
  Span span;
};

/// One statement: for every point of the index variables' box (outermost
/// variable first, row-major) that satisfies the constraints, compute
/// `value` and aggregate it into target[out_index].
struct Statement {
  int target = -1;
  /// When set, the target starts as a copy of this tensor (same dtype and
  /// shape); otherwise every element starts at `init`.
  std::optional<int> init_from;
  std::vector<IndexVar> vars;
  std::vector<Expr> out_index;
  Aggregation aggregation = Aggregation::Assign;
  Scalar init;
  Start start = Start::Init;
  Expr value;
  std::vector<Constraint> constraints;
  OutOfRange out_of_range = OutOfRange::Error;
  WriteConflict conflict = WriteConflict::Error;
  Span span;
};

/// A whole program: tensors (inputs first), statements in order, outputs.
struct Kernel {
  std::vector<TensorDecl> tensors;
  std::vector<Statement> statements;
  std::vector<int> outputs;

  /// The id of the tensor named \p name, or -1. Later declarations shadow
  /// earlier ones (a scatter target is a new version of its tensor).
  int find(std::string_view name) const;
};

/// Moves \p point to the next point of the box of \p vars in row-major
/// order (the last variable fastest). After the last point it returns
/// false, with \p point back at the first.
bool next_point(const std::vector<IndexVar>& vars, std::vector<int64_t>& point);

/// True when every output index of \p s is a distinct index variable and
/// every variable is one of them: each location is written by exactly one
/// point, so assignments cannot collide.
bool injective(const Statement& s);

/// True when every tensor access of \p s — its reads anywhere in its value
/// and its write — is in range at every point of its box: each index a sum,
/// difference or product of its variables and integer constants whose range
/// over the box lies inside the tensor's extent. Under OutOfRange::Skip
/// such a statement skips no point (a Tile contraction whose reads the
/// bounding box already keeps in range). Conservative: false when not
/// proved.
bool accesses_in_range(const Kernel& k, const Statement& s);

/// The most index points one statement may walk: beyond this a run would
/// take days, so elaboration reports it instead.
inline constexpr int64_t kMaxIndexPoints = int64_t{1} << 40;

/// The default memory budget: the most bytes the tensors of one program may
/// take in all (inputs, intermediates and outputs), or half the machine's
/// memory when that is less.
inline constexpr int64_t kDefaultMemoryBudget = int64_t{8} << 30;

/// The memory budget in force, process-wide (`--max-memory` sets it).
int64_t memory_budget();
/// Sets the memory budget; \p bytes must be positive.
void set_memory_budget(int64_t bytes);

/// Throws Error(Limit) when the tensors of \p k take more than
/// memory_budget() bytes in all, at the declaration of the tensor that
/// crosses it. Elaboration calls it before anything is allocated.
void check_memory(const Kernel& k);

/// The most statements one kernel may have: compiling costs about a
/// millisecond per statement, so this bounds a compile to seconds.
inline constexpr size_t kMaxStatements = 10000;

/// Throws Error(Limit) at \p span when \p k already has kMaxStatements
/// statements (call it before adding one).
void check_statement_count(const Kernel& k, Span span);

/// The most index variables (axes) one statement may have: a loop nest is
/// then at most this deep, so every walk over it is bounded.
inline constexpr size_t kMaxIndexVars = 256;

/// Throws Error(Limit) at \p span when \p vars are more than kMaxIndexVars
/// or their box holds more than kMaxIndexPoints points.
void check_index_points(const std::vector<IndexVar>& vars, Span span);

/// Throws Error(Limit) at \p span when a tensor of \p dtype and \p shape
/// would be larger than kMaxTensorBytes or of a rank above kMaxRank; \p what
/// names it in the message.
void check_tensor_size(DType dtype, const Shape& shape, Span span,
                       std::string_view what = "output");
/// Throws Error(Type) at \p span when kernels have no \p dtype
/// (kernel_dtype), for an input given a value of it; \p what names it.
void check_kernel_dtype(DType dtype, Span span, std::string_view what);

/// The identity of \p a for dtype \p t, used as a reduction's init: sum 0,
/// product 1, max the lowest finite value, min the highest, all 1, any 0,
/// assign 0.
Scalar aggregation_init(Aggregation a, DType t);
std::string_view spelling(Aggregation a);

} // namespace teval::core
