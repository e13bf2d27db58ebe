// The hints a rule's constraint gives the verifier's graph generator: the
// dimensions it compares with constants, and extents around each boundary.
#pragma once

#include "parser/ast.h"
#include "rules/htp_graph.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace teval::verify::htp {

/// A dimension the constraint compares with a constant, and extents around
/// the boundary: graphs drawn with them meet rules such as
/// GT(DIM_WIDTH("*"), 32), which small random extents never satisfy.
struct DimHint {
  std::string tag; // an operand tag of the match, "*" for its root
  size_t dim = 0;
  std::vector<int64_t> values;
  /// The comparison solved for the extent: extent op bound, op one of EQ,
  /// NE, LT, LE, GT, GE.
  std::string op;
  double bound = 0;
  /// Whether extent \p v satisfies the comparison.
  bool admits(int64_t v) const;
};

/// Every comparison in \p constraint of a dimension seen through a linear
/// expression (scale * DIM_OF(tag, d) + offset, with DIM_WIDTH and the
/// like as they expand) with a constant integer expression, solved for the
/// dimension: the extents in [1, 4096] at its boundary and a few beyond,
/// in the order the comparisons appear.
std::vector<DimHint> dim_hints(const ast::Expr& constraint);

/// What the constraint asks of the graph's encodings, which random draws
/// almost never meet: two inputs quantized alike (1 in 64 for the step, 1
/// in 256 for a QUInt8 zero offset), one dtype among eight, a given offset.
/// Tags are the match's ("*" for its root).
struct EncodingHints {
  /// EQ(DTYPE_OF(tag), DType::T) (IS_QUINT8(tag) and the like expand to
  /// it), in either order: tag and T, each comparison once.
  std::vector<std::pair<std::string, rules::HtpType>> dtypes;
  /// EQ(STEPSIZE_OF(a), STEPSIZE_OF(b)), EQ(ZERO_OFFSET_OF(a),
  /// ZERO_OFFSET_OF(b)) and SAME_ENCODING(a, b) of two tags: a and b.
  std::vector<std::pair<std::string, std::string>> same;
  /// EQ(ZERO_OFFSET_OF(tag), k), in either order, k a constant: tag and k.
  std::vector<std::pair<std::string, int64_t>> zero_offsets;
  /// A step size a comparison with a constant bounds (EQ, GT, GE, LT, LE
  /// of STEPSIZE_OF(tag), or of it divided or multiplied by a constant,
  /// with a constant expression): tag and the step at the bound, for
  /// GT(DIV(STEPSIZE_OF("*"), DIV(1, 256.0f)), 0.995f) 0.995 / 256.
  std::vector<std::pair<std::string, double>> steps;
};

/// The constants a rule reads. HTP matches a plain tag to any node, a
/// Const among them: a tag read with CONSTVAL_INT, CONSTVAL_FLOAT (or their
/// _VALID forms), in the constraint or the replacement, is drawn as a
/// constant; EQ(CONSTVAL_...(tag, i), k) in either order, k a constant, is
/// an element's value to try, and so is a value past a bound the
/// constraint's GE, GT, LE or LT sets it (k + 1 for GT(element, k), -10^4
/// for GE(anything not constant, element)).
struct ConstantHints {
  std::set<std::string> tags;
  struct Value {
    std::string tag;
    int64_t index = 0;
    double value = 0;
  };
  std::vector<Value> values;
};

/// The constant hints of \p constraint, and the tags \p replacement reads.
ConstantHints constant_hints(const ast::Expr& constraint, const ast::Expr& replacement);

/// The encoding hints of \p constraint, wherever the comparisons stand in
/// it (under AND, OR, NOT or SELECT alike: a hint is a value to try, not
/// a claim).
EncodingHints encoding_hints(const ast::Expr& constraint);

} // namespace teval::verify::htp
