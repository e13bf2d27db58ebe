// The hints a rule's constraint gives the verifier's graph generator: the
// dimensions it compares with constants, and extents around each boundary.
#pragma once

#include "parser/ast.h"

#include <cstdint>
#include <string>
#include <vector>

namespace teval::verify::htp {

/// A dimension the constraint compares with a constant, and extents around
/// the boundary: graphs drawn with them meet rules such as
/// GT(DIM_WIDTH("*"), 32), which small random extents never satisfy.
struct DimHint {
  std::string tag; // an operand tag of the match, "*" for its root
  size_t dim = 0;
  std::vector<int64_t> values;
};

/// Every comparison in \p constraint of a dimension seen through a linear
/// expression (scale * DIM_OF(tag, d) + offset, with DIM_WIDTH and the
/// like as they expand) with a constant integer expression, solved for the
/// dimension: the extents in [1, 4096] at its boundary and a few beyond,
/// in the order the comparisons appear.
std::vector<DimHint> dim_hints(const ast::Expr& constraint);

} // namespace teval::verify::htp
