// The bit-level ops' two meanings (see bits.h).
#include "ops/bits.h"

#include "ops/text.h"

#include "core/error.h"
#include "core/interrupt.h"

#include <bit>

namespace teval::ops::detail {

namespace {

using core::DType;
using core::GraphOp;
using core::Scalar;

// The dtype's bits of \p v, as an unsigned number below 2^width.
uint64_t pattern(DType t, int64_t v) {
  int w = core::bit_width(t);
  uint64_t u = static_cast<uint64_t>(v);
  return w == 64 ? u : u & ((uint64_t{1} << w) - 1);
}

// The element of \p t whose bits are \p u (wrapping into its range).
Scalar of_pattern(DType t, uint64_t u) {
  return Scalar::of_int(t, static_cast<int64_t>(u));
}

// x's bits shifted by n, n read as a number: an amount below 0 or at
// least the width shifts every bit out (0, or the sign's copies for an
// arithmetic shift), as the specification's reference does.
Scalar shift(GraphOp op, DType t, int64_t x, int64_t n) {
  const int w = core::bit_width(t);
  const uint64_t u = pattern(t, x);
  const bool top = (u >> (w - 1)) & 1;
  const bool in_range = n >= 0 && n < w;
  switch (op) {
  case GraphOp::ShiftLeft:
    return of_pattern(t, in_range ? u << n : 0);
  case GraphOp::ShiftRightLogical:
    return of_pattern(t, in_range ? u >> n : 0);
  default: { // arithmetic: the top bit copied into the vacated ones
    uint64_t ones = ~uint64_t{0};
    if (!in_range)
      return of_pattern(t, top ? ones : 0);
    uint64_t fill = top && n > 0 ? ones << (w - n) : 0;
    return of_pattern(t, (u >> n) | fill);
  }
  }
}

} // namespace

bool is_bit_op(GraphOp op, DType t) {
  switch (op) {
  case GraphOp::ShiftLeft:
  case GraphOp::ShiftRightArithmetic:
  case GraphOp::ShiftRightLogical:
  case GraphOp::Popcnt:
  case GraphOp::CountLeadingZeros:
    return true;
  case GraphOp::And:
  case GraphOp::Or:
  case GraphOp::Xor:
    return core::is_integer(t) && !core::is_bool(t);
  default:
    return false;
  }
}

core::Tensor bit_op(const core::GraphNode& n, const core::Tensor& x, const core::Tensor* y,
                    const core::ValueType& result) {
  const DType t = result.dtype;
  core::Tensor out(t, result.shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    core::poll_interrupt();
    const int64_t a = x.get(i).i, b = y ? y->get(i).i : 0;
    switch (n.op) {
    case GraphOp::And:
      out.set(i, Scalar::of_int(t, a & b));
      break;
    case GraphOp::Or:
      out.set(i, Scalar::of_int(t, a | b));
      break;
    case GraphOp::Xor:
      out.set(i, Scalar::of_int(t, a ^ b));
      break;
    case GraphOp::Popcnt:
      out.set(i, Scalar::of_int(t, std::popcount(pattern(t, a))));
      break;
    case GraphOp::CountLeadingZeros:
      out.set(i, Scalar::of_int(t, core::bit_width(t) - std::bit_width(pattern(t, a))));
      break;
    default:
      out.set(i, shift(n.op, t, a, b));
      break;
    }
  }
  return out;
}

// Each op as sums over the bit positions B of the bits (x >> B) % 2 (0 or
// 1: >> is arithmetic for signed dtypes and % floors), shifted back by
// << B and added in the dtype, where the top bit's term wraps to the
// dtype's sign, so the sum is the bit pattern; the shifts use the Kernel
// IR's <<, >> (amounts in [0, width)) under lazy .when conditions.
std::vector<std::string>
bit_op_statements(const core::GraphNode& n, const std::string& x_name, const std::string& y_name,
                  const core::ValueType& result, const std::string& target,
                  const std::function<std::string(const std::string&)>& helper) {
  const DType t = result.dtype;
  const int w = core::bit_width(t);
  const std::string ws = std::to_string(w);
  auto c = [&](int64_t v) {
    return "const(" + std::to_string(v) + ", dtype=`" + std::string(core::name(t)) + "`)";
  };
  std::vector<std::string> index = axes(result.shape.size()), where;
  for (size_t d = 0; d < index.size(); ++d)
    where.push_back(index[d] + " in " + std::to_string(result.shape[d]));
  const std::string at = "[" + join(index) + "]";
  const std::string x = x_name + at, y = y_name.empty() ? "" : y_name + at;
  auto statement = [&](const std::string& to, const std::string& op, const std::string& value,
                       bool over_bits) {
    std::vector<std::string> all = where;
    if (over_bits)
      all.push_back("B in " + ws);
    return to + at + " " + op + " " + value + (all.empty() ? "" : " where " + join(all));
  };
  auto bit = [&](const std::string& v) { return "((" + v + " >> B) % " + c(2) + ")"; };
  switch (n.op) {
  case GraphOp::And:
  case GraphOp::Or:
  case GraphOp::Xor: {
    std::string a = bit(x), b = bit(y);
    std::string one = n.op == GraphOp::And  ? a + " * " + b
                      : n.op == GraphOp::Or ? "(" + a + " + " + b + " - " + a + " * " + b + ")"
                                            : "((" + a + " + " + b + ") % " + c(2) + ")";
    return {statement(target, "+=!", "(" + one + " << B)", true)};
  }
  case GraphOp::Popcnt:
    return {statement(target, "+=!", bit(x), true)};
  case GraphOp::CountLeadingZeros: {
    // The highest set bit's position plus one (0 for no bit), by a max.
    std::string h = helper("highest");
    return {
        statement(h, ">=!", bit(x) + " * (B + 1).cast(`" + std::string(core::name(t)) + "`)", true),
        statement(target, "=", c(w) + " - " + h + at, false)};
  }
  default:
    break;
  }
  const std::string in_range = "[" + y + " >= " + c(0) + ", " + y + " < " + c(w) + "]";
  const bool is_signed = core::kind(t) == core::DTypeKind::Signed;
  std::string value;
  if (n.op == GraphOp::ShiftLeft) {
    value = "(" + x + " << " + y + ").when(" + in_range + ", " + c(0) + ")";
  } else {
    // The top bit set: x below 0 for a signed dtype, at least 2^(w-1) for
    // an unsigned one.
    std::string top = is_signed ? x + " < " + c(0) : x + " >= " + c(int64_t{1} << (w - 1));
    // x >> y is arithmetic for signed dtypes and logical for unsigned
    // ones; the other shift adds (or takes away) the bits above w - y,
    // 2^(w - y) wrapping in the dtype, when there are any (y > 0).
    bool native = is_signed == (n.op == GraphOp::ShiftRightArithmetic);
    std::string shifted = "(" + x + " >> " + y + ")";
    if (!native)
      shifted = "(" + shifted + (is_signed ? " + " : " - ") + "(" + c(1) + " << (" + c(w) + " - " +
                y + ")).when([" + top + ", " + y + " > " + c(0) + "], " + c(0) + "))";
    std::string ones = c(Scalar::of_int(t, -1).i); // every bit set
    std::string out =
        n.op == GraphOp::ShiftRightLogical ? c(0) : ones + ".when([" + top + "], " + c(0) + ")";
    value = "(" + shifted + ").when(" + in_range + ", " + out + ")";
  }
  return {statement(target, "=", value, false)};
}

} // namespace teval::ops::detail
