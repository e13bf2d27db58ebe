// triangular_solve and cholesky (StableHLO specification, the sections of
// those names): the generic form's left_side, lower, unit_diagonal and
// transpose_a, and cholesky's lower, checked as the specification's
// constraints say.
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"

namespace teval::parser::mlir_detail {

core::ValueType triangular_solve_meaning(const OpSite& site, const core::ValueType& a,
                                         const core::ValueType& b, core::GraphNode& node) {
  using core::Error;
  using core::ErrorKind;
  only(site, {"left_side", "lower", "unit_diagonal", "transpose_a"});
  for (const char* name : {"left_side", "lower", "unit_diagonal", "transpose_a"})
    find(site, name, true);
  const bool left = bool_attr(site, "left_side", true);
  std::string transpose = *enum_word(site, "transpose_a", 0);
  if (transpose != "NO_TRANSPOSE" && transpose != "TRANSPOSE" && transpose != "ADJOINT")
    throw Error(ErrorKind::Type, find(site, "transpose_a", true)->span,
                "transpose_a is " + transpose + "; it is one of NO_TRANSPOSE, TRANSPOSE, ADJOINT");
  if (!core::is_float(a.dtype) && !core::is_complex(a.dtype))
    throw Error(ErrorKind::Type, site.span,
                "triangular_solve takes float, complex or quantized tensors, not " +
                    type_string(a));
  if (a.dtype != b.dtype) // (C1)
    throw Error(ErrorKind::Type, site.span,
                "triangular_solve's operands are " + type_string(a) + " and " + type_string(b) +
                    ": they must have one element type");
  const size_t rank = a.shape.size();
  if (rank < 2 || b.shape.size() != rank) // (C2)
    throw Error(ErrorKind::Shape, site.span,
                "triangular_solve's operands are " + type_string(a) + " and " + type_string(b) +
                    ": they must have one rank, at least 2");
  // (C3): the same batch dimensions; a square, of b's extent on the side.
  const int64_t n = a.shape[rank - 1];
  const size_t side = left ? rank - 2 : rank - 1;
  bool fits = a.shape[rank - 2] == n && b.shape[side] == n;
  for (size_t d = 0; d + 2 < rank; ++d)
    fits = fits && a.shape[d] == b.shape[d];
  if (!fits)
    throw Error(ErrorKind::Shape, site.span,
                "triangular_solve of " + type_string(a) + " and " + type_string(b) +
                    ": a must be square in its last two dimensions, b of the same batch "
                    "dimensions, and b's dimension " +
                    std::to_string(side) + " (left_side = " + (left ? "true" : "false") +
                    ") of a's extent");
  node.attrs["left_side"] = left;
  node.attrs["lower"] = bool_attr(site, "lower", true);
  node.attrs["unit_diagonal"] = bool_attr(site, "unit_diagonal", false);
  node.attrs["transpose_a"] = transpose;
  return b; // (C4)
}

core::ValueType cholesky_meaning(const OpSite& site, const core::ValueType& a,
                                 core::GraphNode& node) {
  using core::Error;
  using core::ErrorKind;
  only(site, {"lower"});
  if (!(core::is_float(a.dtype) || core::is_complex(a.dtype))) // quantized: as expressed
    throw Error(ErrorKind::Type, site.span,
                "cholesky takes a float, complex or quantized tensor, not " + type_string(a));
  const size_t rank = a.shape.size();
  if (rank < 2 || a.shape[rank - 1] != a.shape[rank - 2]) // (C2), (C3)
    throw Error(ErrorKind::Shape, site.span,
                "cholesky of " + type_string(a) +
                    ": its operand must have rank 2 or more and be square in its last two "
                    "dimensions (C2, C3)");
  node.attrs["lower"] = bool_attr(site, "lower", false);
  return a; // (C1)
}

} // namespace teval::parser::mlir_detail
