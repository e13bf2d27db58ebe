// reduce's two meanings (see reduce.h).
#include "ops/reduce.h"

#include "ops/text.h"

#include "core/format.h"
#include "core/interrupt.h"
#include "core/kernel.h"
#include "core/scalar_ops.h"

#include <algorithm>
#include <cmath>

namespace teval::ops::detail {

namespace {

using core::DType;
using core::Scalar;

// The body's op; of i1 values maximum is or and minimum and.
std::string body_of(const core::GraphNode& n, DType t) {
  std::string op = n.string_attr("body");
  if (t == DType::Bool && op == "maximum")
    return "or";
  if (t == DType::Bool && op == "minimum")
    return "and";
  return op;
}

// acc OP x, the body's op.
Scalar fold(const std::string& op, DType t, const Scalar& acc, const Scalar& x) {
  Scalar args[2] = {acc, x};
  if (op == "and" || op == "or")
    return Scalar::of_int(t, op == "and" ? (acc.i && x.i) : (acc.i || x.i));
  return core::apply(op == "add"        ? core::Op::Add
                     : op == "multiply" ? core::Op::Mul
                     : op == "maximum"  ? core::Op::Max
                                        : core::Op::Min,
                     args, t, core::Overflow::Wrap);
}

// The statements folding \p term, a term over J in [0, terms] (J = 0 the
// initial value), into target[out...] (\p where: out's extents).
std::vector<std::string>
fold_statements(const std::string& op, DType t, const std::string& term,
                const std::vector<std::string>& out, std::vector<std::string> where, int64_t terms,
                const std::string& init, const core::Tensor* init_value, const std::string& target,
                const std::function<std::string(const std::string&)>& helper);

} // namespace

core::Tensor reduce(const core::GraphNode& n, const core::Tensor& x, const core::Tensor& init,
                    const core::ValueType& result) {
  const std::vector<int64_t>& dims = n.ints_attr("dimensions");
  const DType t = x.dtype();
  const std::string op = body_of(n, t);
  const core::Shape& in = x.shape();
  core::Shape reduced;
  for (int64_t d : dims)
    reduced.push_back(in[static_cast<size_t>(d)]);
  const int64_t terms = core::checked_numel(reduced).value_or(0);
  const std::vector<int64_t> xs = core::strides(in), os = core::strides(result.shape);
  core::Tensor out(t, result.shape);
  for (int64_t at = 0; at < out.numel(); ++at) {
    core::poll_interrupt();
    int64_t base = 0;
    for (size_t d = 0, o = 0; d < in.size(); ++d)
      if (!std::count(dims.begin(), dims.end(), static_cast<int64_t>(d))) {
        base += (result.shape[o] ? at / os[o] % result.shape[o] : 0) * xs[d];
        ++o;
      }
    Scalar acc = init.get(0);
    for (int64_t k = 0; k < terms; ++k) {
      int64_t p = base, rest = k;
      for (size_t r = reduced.size(); r-- > 0;) {
        p += rest % reduced[r] * xs[static_cast<size_t>(dims[r])];
        rest /= reduced[r];
      }
      acc = fold(op, t, acc, x.get(p));
    }
    out.set(at, acc);
  }
  return out;
}

// `R[D...] OP! x[..., (J - 1) unflattened over the reduced dimensions,
// ...].when([J > 0], init[]) where D0 in ..., J in n + 1`: the initial
// value is the fold's first term. The aggregations start from their own
// initial values (docs/SEMANTICS.md, "Reductions"), which fold with the
// initial value exactly except in two cases, put right by a second
// reduction: a float sum starts from +0, so a fold of -0 terms only gives
// +0 where the body gives -0; a float max (min) starts from the lowest
// (highest) finite value, so a fold of -inf (+inf) terms only gives that
// value. In both cases every term, the initial value among them, is the
// body's result; so a constant initial value other than -0 (-inf, +inf)
// needs no second reduction.
std::vector<std::string>
reduce_statements(const core::GraphNode& n, const core::ValueType& x, const std::string& x_name,
                  const std::string& init_name, const core::Tensor* init_value,
                  const core::ValueType& result, const std::string& target,
                  const std::function<std::string(const std::string&)>& helper) {
  const std::vector<int64_t>& dims = n.ints_attr("dimensions");
  const DType t = x.dtype;
  const std::string op = body_of(n, t);
  core::Shape reduced;
  for (int64_t d : dims)
    reduced.push_back(x.shape[static_cast<size_t>(d)]);
  const int64_t terms = core::checked_numel(reduced).value_or(0);
  std::vector<int64_t> rs = core::strides(reduced);
  std::vector<std::string> out, index, where;
  for (size_t d = 0; d < result.shape.size(); ++d) {
    out.push_back("D" + std::to_string(d));
    where.push_back(out.back() + " in " + std::to_string(result.shape[d]));
  }
  for (size_t d = 0, o = 0, r = 0; d < x.shape.size(); ++d) {
    if (r < dims.size() && dims[r] == static_cast<int64_t>(d)) {
      std::string i = rs[r] == 1 ? "(J - 1)" : "(J - 1) / " + std::to_string(rs[r]);
      index.push_back(r == 0 ? i : "(" + i + ") % " + std::to_string(reduced[r]));
      ++r;
    } else {
      index.push_back(out[o++]);
    }
  }
  const std::string init = init_name + "[]";
  const std::string term = x_name + "[" + join(index) + "].when([J > 0], " + init + ")";
  return fold_statements(op, t, term, out, where, terms, init, init_value, target, helper);
}

namespace {

std::vector<std::string>
fold_statements(const std::string& op, DType t, const std::string& term,
                const std::vector<std::string>& out, std::vector<std::string> where, int64_t terms,
                const std::string& init, const core::Tensor* init_value, const std::string& target,
                const std::function<std::string(const std::string&)>& helper) {
  where.push_back("J in " + std::to_string(terms + 1));
  const std::string aggregation = op == "add"        ? "+=!"
                                  : op == "multiply" ? "*=!"
                                  : op == "maximum"  ? ">=!"
                                  : op == "minimum"  ? "<=!"
                                  : op == "and"      ? "&=!"
                                                     : "|=!";
  const std::string all = "[" + join(out) + "]";
  const std::string clause = " where " + join(where);
  bool fix = core::is_float(t) && (op == "add" || op == "maximum" || op == "minimum");
  if (fix && init_value) {
    double v = init_value->get(0).f;
    fix = op == "add" ? v == 0 && std::signbit(v) : v == (op == "maximum" ? -1 : 1) * INFINITY;
  }
  const std::string fold = fix ? helper("fold") : target;
  std::vector<std::string> statements = {fold + all + " " + aggregation + " " + term + clause};
  if (!fix)
    return statements;
  std::string type = "`" + std::string(core::name(t)) + "`";
  std::string kept =
      out.empty() ? "" : " where " + join(std::vector<std::string>(where.begin(), where.end() - 1));
  if (op == "add") {
    // Every term -0: 1 / -0 is -inf.
    std::string zeros = helper("negative_zeros");
    statements.push_back(zeros + all + " &=! (" + term + " == const(0, dtype=" + type +
                         ")) & (const(1, dtype=" + type + ") / " + term +
                         " < const(0, dtype=" + type + "))" + clause);
    statements.push_back(target + all + " = " + fold + all + ".when([" + zeros + all + " == 0], " +
                         init + ")" + kept);
    return statements;
  }
  Scalar bound = op == "maximum" ? core::lowest(t) : core::highest(t);
  std::string limit = "const(" + core::format_scalar(bound) + ", dtype=" + type + ")";
  std::string seen = helper("bound_seen");
  statements.push_back(seen + all + " |=! " + term + " == " + limit + clause);
  statements.push_back(target + all + " = " + fold + all + ".when([(" + fold + all +
                       " != " + limit + ") | (" + seen + all + " != 0)], " + init + ")" + kept);
  return statements;
}

} // namespace

Window::Window(const core::GraphNode& n)
    : window(n.ints_attr("window")), strides(n.ints_attr("strides")),
      base(n.ints_attr("base_dilations")), dilations(n.ints_attr("window_dilations")),
      low(n.ints_attr("pad_low")) {}

int64_t Window::input_at(const core::Shape& in, const core::Shape& out, int64_t at,
                         int64_t k) const {
  int64_t from = 0, out_stride = 1, window_stride = 1, in_stride = 1;
  for (size_t d = in.size(); d-- > 0;) {
    const int64_t q = offset(d, at / out_stride % out[d], k / window_stride % window[d]);
    if (q < 0 || q % base[d] != 0 || q / base[d] >= in[d])
      return -1;
    from += q / base[d] * in_stride;
    out_stride *= out[d];
    window_stride *= window[d];
    in_stride *= in[d];
  }
  return from;
}

core::Tensor reduce_window(const core::GraphNode& n, const core::Tensor& x,
                           const core::Tensor& init, const core::ValueType& result) {
  const Window g(n);
  const DType t = x.dtype();
  const std::string op = body_of(n, t);
  const core::Shape& in = x.shape();
  const int64_t terms = core::checked_numel(g.window).value_or(0);
  core::Tensor out(t, result.shape);
  for (int64_t at = 0; at < out.numel(); ++at) {
    core::poll_interrupt();
    Scalar acc = init.get(0);
    for (int64_t k = 0; k < terms; ++k) {
      const int64_t from = g.input_at(in, result.shape, at, k);
      acc = fold(op, t, acc, from >= 0 ? x.get(from) : init.get(0));
    }
    out.set(at, acc);
  }
  return out;
}

std::vector<std::string> reduce_window_statements(
    const core::GraphNode& n, const core::ValueType& x, const std::string& x_name,
    const std::string& init_name, const core::Tensor* init_value, const core::ValueType& result,
    const std::string& target, const std::function<std::string(const std::string&)>& helper) {
  const Window g(n);
  const int64_t terms = core::checked_numel(g.window).value_or(0);
  const std::vector<int64_t> ws = core::strides(g.window);
  std::vector<std::string> out, where, index, conditions = {"J > 0"};
  for (size_t d = 0; d < result.shape.size(); ++d) {
    out.push_back("D" + std::to_string(d));
    where.push_back(out.back() + " in " + std::to_string(result.shape[d]));
  }
  for (size_t d = 0; d < x.shape.size(); ++d) {
    // w = (J - 1) unflattened over the window, times the dilation.
    std::string w = ws[d] == 1 ? "(J - 1)" : "(J - 1) / " + std::to_string(ws[d]);
    if (d > 0)
      w = "(" + w + ") % " + std::to_string(g.window[d]);
    index.push_back(window_index(
        out[d], g.strides[d],
        g.dilations[d] == 1 ? w : "(" + w + ") * " + std::to_string(g.dilations[d]), g.low[d],
        g.base[d], x.shape[d], g.offset(d, result.shape[d] - 1, g.window[d] - 1), conditions));
  }
  const std::string init = init_name + "[]";
  const std::string term =
      x_name + "[" + join(index) + "].when([" + join(conditions) + "], " + init + ")";
  return fold_statements(body_of(n, x.dtype), x.dtype, term, out, where, terms, init, init_value,
                         target, helper);
}

} // namespace teval::ops::detail
