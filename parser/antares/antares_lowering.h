// Internal to the Antares elaboration: typing and lowering of one
// statement's expressions to Kernel IR expressions.
#pragma once

#include "core/kernel.h"
#include "parser/ast.h"

#include <optional>
#include <string>
#include <vector>

namespace teval::parser::antares {

/// An axis of the statement being elaborated; its position in the
/// statement's axis list is its index-variable number.
struct Axis {
  std::string name;
  int64_t extent = 0;
  bool reduce = false;
  core::Span span;
};

/// True for identifiers einstein_v2 treats as axes: an upper-case first letter.
bool is_axis_name(const std::string& id);

/// Lowers the expressions of one statement. Tensors are looked up in the
/// kernel built so far; axes in \p axes.
class Lowering {
public:
  Lowering(const core::Kernel& kernel, const std::vector<Axis>& axes)
      : kernel_(kernel), axes_(axes) {}

  /// A value expression, typed by the promotion rules.
  core::Expr value(const ast::Expr& e);
  /// An index expression: it must be an integer, and integer overflow in
  /// its arithmetic is an error rather than a wrap.
  core::Expr index(const ast::Expr& e);
  /// The tensor load `t[i, j, ...]`, checking rank and index types.
  core::Expr load(const ast::Expr& e, const ast::Subscript& s);

private:
  // An expression and, for literals, the exact value it was written with:
  // a literal converted to another dtype is rounded once from that value.
  struct Typed {
    core::Expr expr;
    bool literal = false;
    bool literal_is_float = false;
    double float_value = 0;
    int64_t int_value = 0;
  };

  Typed lower(const ast::Expr& e);
  Typed lower_node(const ast::Expr& e, const ast::Name& n);
  Typed lower_node(const ast::Expr& e, const ast::IntLit& n);
  Typed lower_node(const ast::Expr& e, const ast::FloatLit& n);
  Typed lower_node(const ast::Expr& e, const ast::StringLit& n);
  Typed lower_node(const ast::Expr& e, const ast::Unary& n);
  Typed lower_node(const ast::Expr& e, const ast::Binary& n);
  Typed lower_node(const ast::Expr& e, const ast::Subscript& n);
  Typed lower_node(const ast::Expr& e, const ast::Call& n);
  Typed lower_node(const ast::Expr& e, const ast::List& n);
  Typed lower_node(const ast::Expr& e, const ast::Tuple& n);
  Typed lower_node(const ast::Expr& e, const ast::Dict& n);

  Typed when(const ast::Expr& e, const ast::Call& c);
  Typed cast_call(const ast::Expr& e, const ast::Call& c);
  Typed math_call(const ast::Expr& e, const ast::Call& c);
  Typed const_call(const ast::Expr& e, const ast::Call& c);
  Typed val_call(const ast::Expr& e, const ast::Call& c);
  Typed f_op_call(const ast::Expr& e, const ast::Call& c);
  /// \p receiver.call(\p name, [extra...]) without an output dtype.
  Typed apply_function(const ast::Expr& e, const ast::Expr& receiver, const ast::Expr& name,
                       const std::vector<ast::ExprPtr>& extra);
  /// The tensor \p e names when it is a bare tensor name (`input0` in
  /// `input0.dtype()` or `input0.val(1)`), else nullptr.
  const core::TensorDecl* bare_tensor(const ast::Expr& e) const;

  /// The dtype named by a dtype argument: a string or `x.dtype()`.
  core::DType dtype_argument(const ast::Expr& e);
  /// \p t converted to \p to (a literal is re-rounded from its written value).
  Typed convert(const Typed& t, core::DType to, core::Span span);
  /// A condition: an integer or bool value (floats are rejected).
  core::Expr condition(const ast::Expr& e);
  Typed arith(const ast::Expr& e, core::Op op, const ast::Expr& lhs, const ast::Expr& rhs);

  const core::Kernel& kernel_;
  const std::vector<Axis>& axes_;
  bool in_index_ = false;
};

} // namespace teval::parser::antares
