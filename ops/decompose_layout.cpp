// The einstein_v2 decompositions of StableHLO's layout, selection and
// comparison ops (decompose_class.h).
#include "ops/decompose_class.h"

#include "ops/bits.h"
#include "ops/convolution.h"
#include "ops/dot.h"
#include "ops/dynamic_slice.h"
#include "ops/gather.h"
#include "ops/pad.h"
#include "ops/reduce.h"
#include "ops/text.h"
#include "ops/triangular_solve.h"

#include "core/error.h"
#include "core/fault.h"
#include "core/format.h"
#include "core/kernel.h"

#include <cmath>
#include <set>

namespace teval::ops::detail {

using core::DType;
using core::GraphOp;
using core::Shape;

void Decomposer::reshape() {
  const Shape& from = type(node_->operands[0]).shape;
  const Shape& to = result_type().shape;
  std::vector<std::string> out_axes = axes(to.size());
  std::vector<int64_t> to_strides = core::strides(to);
  std::string flat;
  for (size_t d = 0; d < to.size(); ++d) {
    if (to[d] == 1)
      continue;
    std::string term =
        out_axes[d] + (to_strides[d] == 1 ? "" : " * " + std::to_string(to_strides[d]));
    flat += (flat.empty() ? "" : " + ") + term;
  }
  if (flat.empty())
    flat = "0";
  std::vector<int64_t> from_strides = core::strides(from);
  std::vector<std::string> index;
  for (size_t d = 0; d < from.size(); ++d) {
    std::string i =
        from_strides[d] == 1 ? flat : "(" + flat + ") / " + std::to_string(from_strides[d]);
    if (d > 0)
      i = "(" + i + ") % " + std::to_string(from[d]);
    index.push_back(from[d] == 1 ? "0" : i);
  }
  assign(operand(0, index));
}

void Decomposer::broadcast() {
  const Shape& from = type(node_->operands[0]).shape;
  const std::vector<int64_t>& dims = node_->ints_attr("dims");
  std::vector<std::string> out_axes = axes(result_type().shape.size());
  std::vector<std::string> index;
  for (size_t d = 0; d < dims.size(); ++d)
    index.push_back(from[d] == 1 ? "0" : out_axes[static_cast<size_t>(dims[d])]);
  assign(operand(0, index));
}

void Decomposer::compare() {
  if (node_->string_attr("compare_type") == "TOTALORDER")
    throw core::Error(core::ErrorKind::Unsupported, node_->span,
                      "compare with compare_type TOTALORDER has no einstein_v2 decomposition "
                      "(it orders -0 below +0 and NaNs by sign); --engine interp evaluates it");
  static const std::map<std::string, std::string> kOps = {{"EQ", "=="}, {"NE", "!="}, {"GE", ">="},
                                                          {"GT", ">"},  {"LE", "<="}, {"LT", "<"}};
  // An i1 operand compares as the integer it is.
  bool flags = type(node_->operands[0]).dtype == DType::Bool;
  auto side = [&](size_t i) { return flags ? same(i) + ".cast(`int8`)" : same(i); };
  assign("(" + side(0) + " " + kOps.at(node_->string_attr("direction")) + " " + side(1) +
         ").cast(`bool`)");
}

// Operand \p i at the result's index, or its only element.
std::string Decomposer::same_or_only(size_t i) const {
  return type(node_->operands[i]).shape.empty() ? operand(i, {}) : same(i);
}

// Of i1 Antares' max and min promote to int8 (0 or 1), cast back.
void Decomposer::clamp() {
  std::string v =
      same(1) + ".call(`max`, [" + same_or_only(0) + "]).call(`min`, [" + same_or_only(2) + "])";
  assign(result_type().dtype == DType::Bool ? "(" + v + ").cast(`bool`)" : v);
}

void Decomposer::transpose() {
  const std::vector<int64_t>& perm = node_->ints_attr("permutation");
  std::vector<std::string> out = axes(perm.size()), index(perm.size());
  for (size_t d = 0; d < perm.size(); ++d)
    index[static_cast<size_t>(perm[d])] = out[d];
  assign(operand(0, index));
}

void Decomposer::slice() {
  const std::vector<int64_t>& start = node_->ints_attr("start");
  const std::vector<int64_t>& strides = node_->ints_attr("strides");
  std::vector<std::string> index = axes(start.size());
  for (size_t d = 0; d < index.size(); ++d) {
    if (strides[d] != 1)
      index[d] += " * " + std::to_string(strides[d]);
    if (start[d] != 0)
      index[d] += " + " + std::to_string(start[d]);
  }
  assign(operand(0, index));
}

void Decomposer::reverse() {
  const Shape& shape = type(node_->operands[0]).shape;
  std::vector<std::string> index = axes(shape.size());
  for (int64_t d : node_->ints_attr("dimensions")) {
    size_t k = static_cast<size_t>(d);
    index[k] = std::to_string(shape[k] - 1) + " - " + index[k];
  }
  assign(operand(0, index));
}

// Each operand where its part of the axis lies, the later ones under
// lazy .when branches: a read past an operand is never evaluated.
void Decomposer::concatenate() {
  const size_t axis = static_cast<size_t>(node_->int_attr("dimension"));
  std::vector<std::string> index = axes(result_type().shape.size());
  const std::string along = index[axis];
  std::string value;
  int64_t offset = 0;
  std::vector<std::string> parts;
  for (size_t k = 0; k < node_->operands.size(); ++k) {
    index[axis] = offset ? along + " - " + std::to_string(offset) : along;
    parts.push_back(operand(k, index));
    offset += type(node_->operands[k]).shape[axis];
  }
  value = parts.back();
  offset -= type(node_->operands.back()).shape[axis];
  for (size_t k = parts.size() - 1; k-- > 0;) {
    value = parts[k] + ".when([" + along + " < " + std::to_string(offset) + "], " + value + ")";
    offset -= type(node_->operands[k]).shape[axis];
  }
  assign(value);
}

void Decomposer::iota() {
  std::vector<std::string> index = axes(result_type().shape.size());
  assign(index[static_cast<size_t>(node_->int_attr("dimension"))] + ".cast(" +
         dtype_word(result_type().dtype) + ")");
}

// sign as native.cpp: 1 above zero, -1 below, else the value.
void Decomposer::sign() {
  std::string x = same(0);
  DType t = result_type().dtype;
  std::string one = typed_constant_of(t, "1"), zero = typed_constant_of(t, "0");
  if (core::kind(t) == core::DTypeKind::Unsigned) // never below zero
    return assign(one + ".when([" + x + " > " + zero + "], " + x + ")");
  std::string minus = typed_constant_of(t, "-1");
  assign(one + ".when([" + x + " > " + zero + "], " + minus + ".when([" + x + " < " + zero + "], " +
         x + "))");
}

// The nearest integer, step by step in the element type, on the
// magnitude (where every step is exact; x - floor(x) of a negative x is
// not): a = |x|, r = floor(a), d = a - r, r + 1 above a half, r below it,
// and at a half the even one (r - 2 floor(r / 2) is 1 for an odd r) or
// the one away from zero; then x's sign, a zero result taking it from
// x * 0, and a value that is not finite (x - x is not 0) stays.
void Decomposer::round(bool even) {
  std::string x = same(0);
  auto c = [&](const char* digits) { return typed_constant(digits); };
  std::vector<std::string> index = axes(result_type().shape.size());
  std::string a = helper("abs"), m = helper("m");
  statement(a, result_type().shape, "=", x + ".call(`abs`)");
  std::string av = at(a, index);
  std::string r = av + ".call(`rfloor`)";
  std::string d = "(" + av + " - " + r + ")";
  std::string up = "(" + r + " + " + c("1.0") + ")";
  std::string tie = even ? up + ".when([" + r + " - " + c("2.0") + " * (" + r + " / " + c("2.0") +
                               ").call(`rfloor`) == " + c("1.0") + "], " + r + ")"
                         : up;
  statement(m, result_type().shape, "=",
            up + ".when([" + d + " > " + c("0.5") + "], " + r + ".when([" + d + " < " + c("0.5") +
                "], " + tie + "))");
  std::string mv = at(m, index);
  std::string s = "(" + mv + ".when([" + x + " >= " + c("0.0") + "], -" + mv + "))";
  assign(s + ".when([" + s + " != " + c("0.0") + "], " + x + " * " + c("0.0") + ").when([" + x +
         " - " + x + " == " + c("0.0") + "], " + x + ")");
}

// not, and, or, xor of i1 values (\p op: the node's, or or and for an
// add, maximum, multiply or minimum of i1, whose Antares forms would
// promote to int8).
void Decomposer::logic(GraphOp op) {
  auto i8 = [&](size_t i) { return same(i) + ".cast(`int8`)"; };
  switch (op) {
  case GraphOp::Not:
    if (result_type().dtype == DType::Bool)
      return assign("(" + i8(0) + " == const(0, dtype=`int8`)).cast(`bool`)");
    return assign("-" + same(0) + " - " + typed_constant("1"));
  case GraphOp::And:
    return assign("(" + i8(0) + " * " + i8(1) + ").cast(`bool`)");
  case GraphOp::Or:
    return assign("(" + i8(0) + " + " + i8(1) + " > const(0, dtype=`int8`)).cast(`bool`)");
  default:
    return assign("(" + i8(0) + " != " + i8(1) + ").cast(`bool`)");
  }
}

} // namespace teval::ops::detail
