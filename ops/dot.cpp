// dot_general's two meanings (see dot.h).
#include "ops/dot.h"

#include "ops/text.h"

#include "core/error.h"
#include "core/interrupt.h"
#include "core/kernel.h"
#include "core/scalar_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace teval::ops::detail {

namespace {

using core::DType;
using core::GraphNode;
using core::Shape;

// Where each result dimension and each contracting position come from.
struct Layout {
  // Per result dimension: the lhs and rhs dimension it indexes (-1: none).
  std::vector<int64_t> lhs_of, rhs_of;
  std::vector<int64_t> lhs_contract, rhs_contract;
};

Layout layout(const GraphNode& n, size_t lhs_rank, size_t rhs_rank) {
  Layout l;
  const std::vector<int64_t>& lb = n.ints_attr("lhs_batch");
  const std::vector<int64_t>& rb = n.ints_attr("rhs_batch");
  l.lhs_contract = n.ints_attr("lhs_contract");
  l.rhs_contract = n.ints_attr("rhs_contract");
  for (size_t i = 0; i < lb.size(); ++i) {
    l.lhs_of.push_back(lb[i]);
    l.rhs_of.push_back(rb[i]);
  }
  auto free = [](size_t rank, const std::vector<int64_t>& batch,
                 const std::vector<int64_t>& contract) {
    std::vector<int64_t> out;
    for (size_t d = 0; d < rank; ++d)
      if (!std::count(batch.begin(), batch.end(), int64_t(d)) &&
          !std::count(contract.begin(), contract.end(), int64_t(d)))
        out.push_back(static_cast<int64_t>(d));
    return out;
  };
  for (int64_t d : free(lhs_rank, lb, l.lhs_contract)) {
    l.lhs_of.push_back(d);
    l.rhs_of.push_back(-1);
  }
  for (int64_t d : free(rhs_rank, rb, l.rhs_contract)) {
    l.lhs_of.push_back(-1);
    l.rhs_of.push_back(d);
  }
  return l;
}

// The float dtype MLIR spells \p name (f32, bf16, f8E5M2, ...).
DType float_named(const std::string& name) {
  for (DType t : core::kAllDTypes)
    if (core::is_float(t) && core::mlir_element(t) == name)
      return t;
  TEVAL_UNREACHABLE("an algorithm's precision type the parser did not check");
}

// \p x, each element rounded to nearest even in \p precision (tf32: 10
// mantissa bits in float32's exponent range), as a tensor of \p to.
core::Tensor rounded(const core::Tensor& x, const std::string& precision, DType to) {
  core::Tensor out(to, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double v = x.get(i).f;
    double r = 0;
    if (precision == "tf32") {
      uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      const uint64_t drop = 52 - 10, last = uint64_t{1} << drop;
      if (!std::isnan(v)) // ties to even at the tenth mantissa bit; a carry raises the exponent
        bits = (bits + (last >> 1) - 1 + ((bits >> drop) & 1)) & ~(last - 1);
      std::memcpy(&r, &bits, sizeof r);
      r = static_cast<float>(r); // float32's range: overflow to infinity
    } else {
      r = core::Scalar::of_float(float_named(precision), v).f;
    }
    out.set(i, core::Scalar::of_float(to, r));
  }
  return out;
}

} // namespace

core::Tensor dot_general(const GraphNode& n, const core::Tensor& lhs, const core::Tensor& rhs,
                         const core::ValueType& result) {
  if (n.attrs.count("accumulation_type") && core::is_float(lhs.dtype())) {
    // An algorithm: the operands rounded to their precision types, products
    // and sums in the accumulation type, the sum converted to the result's.
    const DType acc = float_named(n.string_attr("accumulation_type"));
    core::GraphNode plain = n;
    plain.attrs.erase("accumulation_type");
    const core::Tensor sum =
        dot_general(plain, rounded(lhs, n.string_attr("lhs_precision_type"), acc),
                    rounded(rhs, n.string_attr("rhs_precision_type"), acc), {acc, result.shape});
    core::Tensor out(result.dtype, result.shape);
    for (int64_t i = 0; i < out.numel(); ++i)
      out.set(i, core::cast(sum.get(i), result.dtype));
    return out;
  }
  const Layout l = layout(n, lhs.shape().size(), rhs.shape().size());
  const DType t = result.dtype;
  Shape contract;
  for (int64_t d : l.lhs_contract)
    contract.push_back(lhs.shape()[static_cast<size_t>(d)]);
  const int64_t terms = core::checked_numel(contract).value_or(0);
  const std::vector<int64_t> ls = core::strides(lhs.shape()), rs = core::strides(rhs.shape());
  const std::vector<int64_t> os = core::strides(result.shape);
  const core::Scalar zero = core::constant(t, 0);
  core::Tensor out(t, result.shape);
  for (int64_t at = 0; at < out.numel(); ++at) {
    core::poll_interrupt();
    int64_t lbase = 0, rbase = 0;
    for (size_t d = 0; d < result.shape.size(); ++d) {
      int64_t i = result.shape[d] ? at / os[d] % result.shape[d] : 0;
      if (l.lhs_of[d] >= 0)
        lbase += i * ls[static_cast<size_t>(l.lhs_of[d])];
      if (l.rhs_of[d] >= 0)
        rbase += i * rs[static_cast<size_t>(l.rhs_of[d])];
    }
    core::Scalar acc = zero;
    for (int64_t k = 0; k < terms; ++k) {
      int64_t lp = lbase, rp = rbase, rest = k;
      for (size_t c = contract.size(); c-- > 0;) {
        int64_t i = rest % contract[c];
        rest /= contract[c];
        lp += i * ls[static_cast<size_t>(l.lhs_contract[c])];
        rp += i * rs[static_cast<size_t>(l.rhs_contract[c])];
      }
      core::Scalar args[2] = {core::cast(lhs.get(lp), t), core::cast(rhs.get(rp), t)};
      acc = core::combine(core::Aggregation::Sum, acc,
                          core::apply(core::Op::Mul, args, t, core::Overflow::Wrap));
    }
    out.set(at, acc);
  }
  return out;
}

std::string dot_general_statement(const GraphNode& n, const core::ValueType& lhs,
                                  const std::string& lhs_name, const core::ValueType& rhs,
                                  const std::string& rhs_name, const core::ValueType& result,
                                  const std::string& target) {
  const Layout l = layout(n, lhs.shape.size(), rhs.shape.size());
  std::vector<std::string> out, li(lhs.shape.size()), ri(rhs.shape.size()), where;
  for (size_t d = 0; d < result.shape.size(); ++d) {
    std::string axis = "D" + std::to_string(d);
    out.push_back(axis);
    where.push_back(axis + " in " + std::to_string(result.shape[d]));
    if (l.lhs_of[d] >= 0)
      li[static_cast<size_t>(l.lhs_of[d])] = axis;
    if (l.rhs_of[d] >= 0)
      ri[static_cast<size_t>(l.rhs_of[d])] = axis;
  }
  for (size_t c = 0; c < l.lhs_contract.size(); ++c) {
    std::string axis = "K" + std::to_string(c);
    where.push_back(axis + " in " +
                    std::to_string(lhs.shape[static_cast<size_t>(l.lhs_contract[c])]));
    li[static_cast<size_t>(l.lhs_contract[c])] = axis;
    ri[static_cast<size_t>(l.rhs_contract[c])] = axis;
  }
  auto read = [&](const std::string& name, const std::vector<std::string>& index, DType from) {
    std::string r = name + "[" + join(index) + "]";
    return from == result.dtype ? r : r + ".cast(`" + std::string(core::name(result.dtype)) + "`)";
  };
  return target + "[" + join(out) + "] +=! " + read(lhs_name, li, lhs.dtype) + " * " +
         read(rhs_name, ri, rhs.dtype) + (where.empty() ? "" : " where " + join(where));
}

} // namespace teval::ops::detail
