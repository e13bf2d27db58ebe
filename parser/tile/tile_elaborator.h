// Internal to the Tile elaboration (tile.cpp, tile_contraction.cpp,
// tile_expression.cpp): the values a Tile function computes with and the
// elaborator of one function.
#pragma once

#include "core/error.h"
#include "parser/tile/tile.h"
#include "parser/tile/tile_elementwise.h"
#include "parser/tile/tile_values.h"

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace teval::parser::tile {

/// The most iterations a Tile function's counted loops may run in all (they
/// are unrolled as the function is elaborated).
inline constexpr int64_t kMaxLoopIterations = 1000000;

/// The most dimensions or indices one TensorDims(n), TensorIndexes(n) or
/// std::vector<TensorDim> X(n) makes.
inline constexpr int64_t kMaxListItems = 4096;

using core::DType;
using core::Error;
using core::ErrorKind;
using core::Span;

// ---------------------------------------------------------------------------
// Values

struct DimCell {
  std::optional<int64_t> value;
  std::string name;
  Span span;
};

struct Pending;

// A TensorOutput: a shape waiting for the contraction that fills it.
struct OutputCell {
  core::Shape shape;
  std::string name;
  Span span;
  // Its contraction until materialised. Weak: the contraction refers back to
  // this output, and the elaborator's list of contractions owns them.
  std::weak_ptr<Pending> pending;
  std::vector<struct ConstraintV> early_constraints;
  std::optional<int> tensor; // the kernel tensor, once materialised
};

struct Value;
struct IntV {
  int64_t v;
};
struct FloatV {
  double v;
};
struct DimV {
  std::shared_ptr<DimCell> cell;
};
struct PolyV {
  Poly p;
};
struct TensorV {
  int id;
};
struct OutputV {
  std::shared_ptr<OutputCell> cell;
};
struct EwV {
  Ew e;
};
struct ListV {
  std::shared_ptr<std::vector<Value>> items;
};
struct ConstraintV {
  Poly p;
  int64_t bound = 0;
  Span span;
};

// PlaidML's later contraction builder, `Contraction().outShape(I, J)
// .outAccess(i, j).sum(...)`, before its aggregation makes it a contraction.
struct BuilderCell {
  std::optional<core::Shape> shape;
  std::optional<std::vector<Poly>> access;
  Span access_span;
  std::vector<ConstraintV> constraints;
};
struct BuilderV {
  std::shared_ptr<BuilderCell> cell;
};

struct Value {
  std::variant<IntV, FloatV, DimV, PolyV, TensorV, OutputV, EwV, ListV, ConstraintV, BuilderV> v;
  Span span;
};

inline std::string kind_name(const Value& x) {
  switch (x.v.index()) {
  case 0:
    return "an integer";
  case 1:
    return "a float";
  case 2:
    return "a dimension";
  case 3:
    return "an index expression";
  case 4:
  case 6:
    return "a tensor";
  case 5:
    return "a TensorOutput";
  case 7:
    return "a list";
  case 8:
    return "a constraint";
  default:
    return "a Contraction()";
  }
}

// One access `A(p0, p1, ...)` inside a contraction.
struct Access {
  int tensor;
  std::vector<Poly> index;
  Span span;
};

// A contraction waiting for its constraints: it becomes a Kernel statement
// when its output is first used, returned, or the function ends.
struct Pending {
  std::shared_ptr<OutputCell> out;
  core::Aggregation aggregation;
  std::vector<Poly> out_index;
  Span out_span;
  std::vector<Access> accesses;
  std::string combination; // "", "+", "*", "==", "cond"
  std::vector<ConstraintV> constraints;
  Span span;
  // The tensor the output starts as (the builder's .init(P)), with the
  // output's shape and dtype.
  std::optional<int> init;
  Span init_span;
};

struct IndexInfo {
  std::string name;
  Span span;
};

[[noreturn]] inline void dimension_overflow(Span span) {
  throw Error(ErrorKind::Arithmetic, span, "integer overflow in dimension arithmetic");
}

// ---------------------------------------------------------------------------
// The elaborator of one function

// ---------------------------------------------------------------------------
// The elaborator of one function

class Elaborator {
public:
  Elaborator(const ast::Function& f, const std::map<std::string, InputType>& inputs,
             const std::map<std::string, TileParam>& params)
      : f_(f), inputs_(inputs), params_(params) {}
  /// The kernel of the function; without a `return` it is an error at
  /// \p fn_span unless \p allow_no_return.
  core::Kernel run(Span fn_span, bool allow_no_return = false);

private:
  void bind_param(const ast::Param& p);
  Value lookup(const std::string& name, Span span);
  // Gives unnamed dimensions, indices and outputs the name they are bound to.
  void name_value(Value& v, const std::string& name);
  void assign_name(const std::string& name, Value v, Span span);
  void execute(const ast::Stmt& s);
  void statement(const ast::Stmt& s, const ast::Declare& d);
  void statement(const ast::Stmt& s, const ast::Assign& a);
  // `Y[i] = e` where Y is a list (C++ std::vector<TensorDim>).
  bool list_element_assignment(const ast::Assign& a);
  void statement(const ast::Stmt& s, const ast::ExprStmt& e);
  void statement(const ast::Stmt& s, const ast::Return& r);
  void statement(const ast::Stmt& s, const ast::Loop& l);
  void statement(const ast::Stmt& s, const ast::Function&);
  void bind_dims(const ast::Call& c);
  int64_t integer(const ast::Expr& e);
  Poly new_index(const std::string& name, Span span);
  // The index list of an access `A(i, j)`, `A[i, j]`, `A[()]`.
  std::vector<ast::ExprPtr> access_indices(const ast::Expr& e);
  Value access_base(const ast::Expr& e);
  Poly index_poly(const ast::Expr& e);
  Access access(const ast::Expr& e);
  void contraction(const ast::Stmt& s, const ast::Expr& target, const std::string& op, Span op_span,
                   const ast::Expr& value);
  // The contraction writing \p out at \p out_index with \p value: pending
  // until the output is used.
  std::shared_ptr<Pending> begin_contraction(const std::shared_ptr<OutputCell>& out,
                                             core::Aggregation aggregation,
                                             std::vector<Poly> out_index, Span out_span, Span span,
                                             const ast::Expr& value);
  // A method of the contraction builder (tile_builder.cpp) on \p self;
  // nullopt when \p c is none.
  std::optional<Value> builder_method(const ast::Expr& e, const ast::Call& c);
  Value builder_step(const ast::Expr& e, const ast::Call& c, const Value& self);
  void add_constraint_to(OutputCell& o, const ConstraintV& constraint, Span span);
  // A tensor of \p shape and \p dtype holding \p from broadcast (numpy's
  // rules) and converted: the fill of a builder's .init(P).
  int broadcast_init(int from, const core::Shape& shape, DType dtype, Span span);
  void combination(const ast::Expr& value, Pending& p);
  void add_constraint(const ast::Call& c);
  void materialize_all();
  // The Kernel statement of a contraction, with the exact bounding box of
  // its valid points.
  int materialize(Pending& p);
  // The kernel tensor \p v stands for (materialising or emitting it).
  int tensor_of(const Value& v, const std::string& name, Span span);
  Ew as_elementwise(const Value& v);
  static bool is_tensor(const Value& v);
  int64_t dim_value(const DimV& d, Span span);
  // The value of \p e; a bound dimension is its integer.
  Value evaluate(const ast::Expr& e);
  // The value of \p e, dimensions kept as dimensions (for bind_dims).
  Value evaluate_raw(const ast::Expr& e);
  Value eval(const ast::Expr& e, const ast::Name& n) { return lookup(n.id, e.span); }
  Value eval(const ast::Expr& e, const ast::IntLit& n);
  Value eval(const ast::Expr& e, const ast::FloatLit& n) { return {FloatV{n.value}, e.span}; }
  Value eval(const ast::Expr& e, const ast::StringLit&);
  Value eval(const ast::Expr& e, const ast::List& n) { return sequence(e, n.items); }
  Value eval(const ast::Expr& e, const ast::Tuple& n) { return sequence(e, n.items); }
  Value eval(const ast::Expr& e, const ast::Dict&);
  Value sequence(const ast::Expr& e, const std::vector<ast::ExprPtr>& items);
  Value eval(const ast::Expr& e, const ast::Subscript& s);
  Value eval(const ast::Expr& e, const ast::Unary& u);
  Value eval(const ast::Expr& e, const ast::Binary& b);
  static bool is_index(const Value& v);
  static Poly poly(const Value& v);
  // Dimension arithmetic: integers, truncating division.
  int64_t int_binary(const ast::Binary& b, int64_t x, int64_t y, Span span);
  // Index arithmetic: polynomials with exact rational division by constants.
  Poly poly_binary(const ast::Binary& b, const Poly& x, const Poly& y);
  Value elementwise_binary(const ast::Expr& e, const ast::Binary& b, const Value& l,
                           const Value& r);
  Value eval(const ast::Expr& e, const ast::Call& c);
  Value constructor(bool dim, Span span);
  // The values of arguments, a list argument flattened (outShape(X) of a
  // std::vector<TensorDim> X).
  std::vector<Value> flattened(std::span<const ast::ExprPtr> args);
  // The constraints \p args give (add_constraint, add_constraints).
  std::vector<ConstraintV> constraints(std::span<const ast::ExprPtr> args);
  const ast::Function& f_;
  const std::map<std::string, InputType>& inputs_;
  const std::map<std::string, TileParam>& params_;
  core::Kernel k_;
  std::map<std::string, Value> env_;
  std::vector<IndexInfo> indexes_;
  std::vector<std::shared_ptr<Pending>> pending_;
  bool returned_ = false;
  // Iterations of counted loops so far (kMaxLoopIterations).
  int64_t iterations_ = 0;
};

} // namespace teval::parser::tile
