// Internal to the Tile elaboration: elementwise tensor expressions with
// numpy broadcasting, and their lowering to Kernel IR statements.
#pragma once

#include "core/kernel.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace teval::parser::tile {

struct EwNode;
/// An immutable elementwise expression.
using Ew = std::shared_ptr<const EwNode>;

/// One node of an elementwise expression. Scalars (dimensions, integer
/// parameters, literals) are *weak*: they take the dtype of the tensor they
/// meet, except that a float scalar with an integer tensor gives float32.
struct EwNode {
  enum class Kind { Tensor, Scalar, Apply, Select };
  Kind kind = Kind::Scalar;
  core::DType dtype = core::DType::Int32; // for a weak scalar: Int64 or Float64
  bool weak = false;
  core::Shape shape;
  core::Span span;
  int tensor = -1;             // Kind::Tensor
  bool is_float = false;       // Kind::Scalar
  int64_t int_value = 0;       // Kind::Scalar
  double float_value = 0;      // Kind::Scalar
  core::Op op = core::Op::Add; // Kind::Apply
  std::vector<Ew> args;        // Kind::Apply and Kind::Select (cond, then, else)
};

/// A whole tensor of the kernel as an expression.
Ew ew_tensor(const core::Kernel& k, int tensor, core::Span span);
/// A weak integer or float scalar.
Ew ew_int(int64_t v, core::Span span);
Ew ew_float(double v, core::Span span);
/// \p op applied to \p args, broadcasting their shapes; arithmetic operands
/// promote (core::promote, weak scalars as above), comparisons give bool,
/// math functions need floating operands. Throws Error at \p span, naming
/// the function as \p spelled (default: core::spelling(op)).
Ew ew_apply(core::Op op, std::vector<Ew> args, core::Span span, std::string_view spelled = {});
/// `select(c, t, f)`: t where c is nonzero, else f; all three broadcast.
/// Between two integer literals it is an int32 tensor, as in PlaidML.
Ew ew_select(Ew cond, Ew then, Ew otherwise, core::Span span);

/// Appends to \p k a statement computing \p e into a new tensor named
/// \p name (an intermediate); returns its id. A weak scalar becomes a rank-0
/// tensor of its own dtype (int64 or float32).
int emit_elementwise(core::Kernel& k, const Ew& e, const std::string& name, core::Span span);

} // namespace teval::parser::tile
