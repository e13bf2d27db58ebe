// The region of one statement's linalg.generic (see emit_mlir.h): which
// reads become the generic's operands, and the arith/math/scf operations
// that compute one point's value as the interpreter does.
#pragma once

#include "core/kernel.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace teval::verify::mlir {

/// A signed integer dtype (MLIR's integers are signless: the operation says).
inline bool is_signed(core::DType t) {
  return core::kind(t) == core::DTypeKind::Signed;
}
/// The MLIR element type of \p t ("f32", "i8", "i1", ...).
std::string element_type(core::DType t);
/// "tensor<2x3xf32>", "tensor<f32>".
std::string tensor_type(const core::TensorDecl& t);
/// \p v as an arith.constant's value and type ("0x3F800000 : f32", "-3 : i8").
std::string constant(core::DType t, const core::Scalar& v);

/// A read that becomes an operand of the generic: tensor \p tensor through
/// the affine map \p map of the iteration dimensions.
struct Operand {
  int tensor;
  std::string map;
  /// The dimensions a result of the map is (d2, not d2 + 1), whose extents
  /// the tensor's dimensions are: linalg infers their loop bounds from it.
  std::vector<int> bound;
  /// Every result of the map is a distinct dimension (d2, d0).
  bool permutation = true;
};

/// Writes the operations of one statement's region. Names are %v<N>, drawn
/// from a counter the whole module shares.
class Body {
public:
  /// \p tensors: the SSA value of each tensor so far (for reads that stay
  /// inside the region, as tensor.extract).
  Body(const core::Kernel& k, const core::Statement& s, const std::vector<std::string>& tensors,
       int& counter);

  /// The reads that become operands: each one evaluated at every point (not
  /// only under a `.when` or the right of && or ||) at an index affine in
  /// the index variables. Call once, before value().
  const std::vector<Operand>& operands();
  /// The operations computing the statement's value at the current point
  /// into \p out (after the block's arguments %a0... for the operands);
  /// returns its SSA name.
  std::string value(std::string& out);
  /// The operations folding \p v into the accumulator \p acc by the
  /// statement's aggregation; returns the folded value.
  std::string fold(const std::string& acc, const std::string& v, std::string& out);

private:
  void find_operands(const core::Expr& e, bool lazy);
  std::optional<std::string> affine(const core::Expr& e) const;
  std::optional<int> pure_dim(const core::Expr& e) const;

  std::string emit(const core::Expr& e);
  std::string op(const std::string& text);
  std::string line(const std::string& text);
  std::string int_constant(core::DType t, int64_t v);
  std::string float_constant(const std::string& type, double v);
  std::string to_i1(const std::string& v, core::DType t);
  std::string from_i1(const std::string& b, core::DType t);
  std::string to_index(const std::string& v, core::DType t);
  std::string convert(const std::string& v, core::DType from, core::DType to);
  std::string widen(const std::string& v, core::DType t, const std::string& to);
  std::string narrow(const std::string& v, const std::string& from, core::DType t);
  std::string lazy_if(const std::string& cond, core::DType t, const core::Expr& then,
                      const core::Expr* otherwise, const std::string& constant_else);
  std::string apply(const core::ExprNode& e, const core::Apply& a);
  std::string integer(const core::Apply& a, core::DType t);
  std::string floating(const core::Apply& a, core::DType t);
  std::string var(int v);

  const core::Kernel& k_;
  const core::Statement& s_;
  const std::vector<std::string>& tensors_;
  int& counter_;
  std::vector<Operand> operands_;
  std::map<const core::ExprNode*, int> operand_of_;
  std::vector<std::optional<std::string>> vars_;
  std::string* out_ = nullptr;
  std::string indent_ = "      ";
};

} // namespace teval::verify::mlir
