// triangular_solve's two meanings (see triangular_solve.h).
#include "ops/triangular_solve.h"

#include "ops/native_evaluator.h"
#include "ops/text.h"

#include "core/error.h"
#include "core/format.h"
#include "core/interrupt.h"
#include "core/scalar_ops.h"

#include <cmath>

namespace teval::ops::detail {

namespace {

using core::Scalar;

// The system as equations over unknowns p, q in [0, n): the coefficient of
// unknown q in equation p is op(a)[p][q] on the left side (op(a) X = b),
// op(a)[q][p] on the right (X op(a) = b: the columns of X), where op(a) is
// a or its transpose. The system is solved forward (p ascending, each
// equation using the unknowns q < p) when that coefficient matrix is lower
// triangular, else backward.
struct System {
  bool left, transpose, forward, unit;
  int64_t n;

  explicit System(const core::GraphNode& g, int64_t extent) : n(extent) {
    left = g.bool_attr("left_side");
    transpose = g.string_attr("transpose_a") != "NO_TRANSPOSE"; // ADJOINT of reals too
    bool lower = g.bool_attr("lower") != transpose;             // op(a)'s triangle
    forward = left == lower;
    unit = g.bool_attr("unit_diagonal");
  }
  // a's (row, column) holding the coefficient of unknown q in equation p.
  std::pair<int64_t, int64_t> coefficient(int64_t p, int64_t q) const {
    int64_t r = left ? p : q, c = left ? q : p; // in op(a)
    return transpose ? std::pair{c, r} : std::pair{r, c};
  }
  // The unknowns equation p uses, in ascending order: [first, first + count).
  int64_t first(int64_t p) const { return forward ? 0 : p + 1; }
  int64_t count(int64_t p) const { return forward ? p : n - p - 1; }
  int64_t step(int64_t k) const { return forward ? k : n - 1 - k; }
};

} // namespace

core::Tensor triangular_solve(const core::GraphNode& g, const core::Tensor& a,
                              const core::Tensor& b, const core::ValueType& result) {
  const core::DType t = result.dtype;
  const size_t rank = result.shape.size();
  const int64_t n = a.shape()[rank - 1];
  const System s(g, n);
  // b and X as [batch][unknown p][k]: on the left side p is the row
  // (axis rank - 2), on the right the column (rank - 1).
  const int64_t rows = result.shape[rank - 2], cols = result.shape[rank - 1];
  const int64_t others = s.left ? cols : rows;
  const int64_t batches =
      rows * cols == 0 ? 0 : core::checked_numel(result.shape).value_or(0) / (rows * cols);
  auto at = [&](int64_t batch, int64_t p, int64_t k) {
    return batch * rows * cols + (s.left ? p * cols + k : k * cols + p);
  };
  const bool adjoint = g.string_attr("transpose_a") == "ADJOINT";
  auto coef = [&](int64_t batch, int64_t p, int64_t q) {
    auto [r, c] = s.coefficient(p, q);
    Scalar v = a.get(batch * n * n + r * n + c);
    if (adjoint) // the conjugate transpose; of reals, the transpose
      v.im = -v.im;
    return v;
  };
  core::Tensor x(t, result.shape);
  const Scalar zero = core::constant(t, 0);
  for (int64_t batch = 0; batch < batches; ++batch)
    for (int64_t k = 0; k < others; ++k)
      for (int64_t step = 0; step < n; ++step) {
        core::poll_interrupt();
        const int64_t p = s.step(step);
        Scalar sum = zero;
        for (int64_t q = s.first(p); q < s.first(p) + s.count(p); ++q) {
          Scalar product[2] = {coef(batch, p, q), x.get(at(batch, q, k))};
          sum = core::combine(core::Aggregation::Sum, sum,
                              core::apply(core::Op::Mul, product, t, core::Overflow::Wrap));
        }
        Scalar v = b.get(at(batch, p, k));
        if (s.count(p) > 0) {
          Scalar difference[2] = {v, sum};
          v = core::apply(core::Op::Sub, difference, t, core::Overflow::Wrap);
        }
        if (!s.unit) {
          Scalar quotient[2] = {v, coef(batch, p, p)};
          v = core::apply(core::Op::Div, quotient, t, core::Overflow::Wrap);
        }
        x.set(at(batch, p, k), v);
      }
  return x;
}

core::Tensor cholesky(const core::GraphNode& g, const core::Tensor& a, core::Span where) {
  const core::DType t = a.dtype();
  const size_t rank = a.shape().size();
  const int64_t n = a.shape()[rank - 1];
  const bool lower = g.bool_attr("lower");
  const int64_t batches = n == 0 ? 0 : core::checked_numel(a.shape()).value_or(0) / (n * n);
  core::Tensor l(t, a.shape()); // zeros
  auto op = [&](core::Op o, Scalar x, Scalar y = {}) {
    Scalar args[2] = {x, y};
    return core::apply(o, args, t, core::Overflow::Wrap);
  };
  const core::Shape batch_shape(a.shape().begin(), a.shape().end() - 2);
  auto batch_text = [&](int64_t batch) {
    return rank == 2 ? std::string()
                     : " of batch [" + core::format_index(unflatten(batch, batch_shape)) + "]";
  };
  // Of complex values, a = L·Lᴴ: the conjugate where reals have the value.
  const bool complex = core::is_complex(t);
  auto conj = [](Scalar v) {
    v.im = -v.im;
    return v;
  };
  for (int64_t batch = 0; batch < batches; ++batch) {
    const int64_t base = batch * n * n;
    auto element = [&](int64_t r, int64_t c) { return a.get(base + r * n + c); };
    // Element (r, c) of the lower factor's view: a's, or (Hermitian) its
    // conjugate transpose's; where the factor's (r, c) is stored.
    auto in = [&](int64_t r, int64_t c) { return lower ? element(r, c) : conj(element(c, r)); };
    auto at = [&](int64_t r, int64_t c) { return base + (lower ? r * n + c : c * n + r); };
    auto get = [&](int64_t r, int64_t c) {
      return lower ? l.get(at(r, c)) : conj(l.get(at(r, c)));
    };
    auto set = [&](int64_t r, int64_t c, Scalar v) {
      l.set(at(r, c), lower || r == c ? v : conj(v)); // the diagonal's imaginary part is +0
    };
    auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c <= r; ++c)
        if (const Scalar x = element(r, c), y = conj(element(c, r));
            !same(x.f, y.f) || !same(x.im, y.im)) // NaNs: the pivots say
          throw core::Error(core::ErrorKind::Arithmetic, where,
                            std::string("cholesky of a matrix that is not ") +
                                (complex ? "Hermitian" : "symmetric") + batch_text(batch) + ": [" +
                                std::to_string(r) + ", " + std::to_string(c) + "] is " +
                                core::format_scalar(x) + ", [" + std::to_string(c) + ", " +
                                std::to_string(r) + "] is " + core::format_scalar(element(c, r)) +
                                "; the specification leaves its result undefined");
    for (int64_t j = 0; j < n; ++j) {
      core::poll_interrupt();
      for (int64_t i = j; i < n; ++i) {
        Scalar sum = core::constant(t, 0);
        for (int64_t k = 0; k < j; ++k)
          sum = op(core::Op::Add, sum, op(core::Op::Mul, conj(get(j, k)), get(i, k)));
        Scalar v = j > 0 ? op(core::Op::Sub, in(i, j), sum) : in(i, j);
        if (i == j) {
          v.im = 0; // a Hermitian diagonal is real, and so is z·conj(z)
          if (!(v.f > 0))
            throw core::Error(core::ErrorKind::Arithmetic, where,
                              "cholesky of a matrix that is not positive-definite" +
                                  batch_text(batch) + ": pivot " + std::to_string(j) + " is " +
                                  core::format_scalar(v) +
                                  "; the specification leaves its result undefined");
          // Of complex values, the real part's square root, rounded once.
          v = complex ? Scalar::of_complex(t, std::sqrt(v.f), 0) : op(core::Op::Sqrt, v);
        } else {
          v = op(core::Op::Div, v, get(j, j));
        }
        set(i, j, v);
      }
    }
  }
  return l;
}

std::vector<std::string>
triangular_solve_statements(const core::GraphNode& g, const std::string& a_name,
                            const std::string& b_name, const core::ValueType& result,
                            const std::string& target,
                            const std::function<std::string(const std::string&)>& helper) {
  const size_t rank = result.shape.size();
  const int64_t n = result.shape[rank - (g.bool_attr("left_side") ? 2 : 1)];
  const System s(g, n);
  const size_t p_axis = s.left ? rank - 2 : rank - 1; // the unknowns' axis of X and b
  const std::vector<std::string> all = axes(rank);
  std::vector<std::string> where;
  for (size_t d = 0; d < rank; ++d)
    where.push_back(all[d] + " in " + std::to_string(result.shape[d]));
  auto with = [&](std::vector<std::string> index, size_t axis, const std::string& v) {
    index[axis] = v;
    return index;
  };
  // a[batch.., row, column] of the coefficient (p, q).
  auto coef = [&](const std::string& p, const std::string& q) {
    std::vector<std::string> index(all.begin(), all.end() - 2);
    std::string r = s.left ? p : q, c = s.left ? q : p;
    index.push_back(s.transpose ? c : r);
    index.push_back(s.transpose ? r : c);
    return a_name + "[" + join(index) + "]";
  };
  std::vector<std::string> lines;
  if (n == 0 || core::checked_numel(result.shape).value_or(0) == 0) {
    lines.push_back(target + "[" + join(all) + "] = " + b_name + "[" + join(all) + "]" +
                    (where.empty() ? "" : " where " + join(where)));
    return lines;
  }
  // The sum's index space: X's without the unknown's axis, and J over the
  // unknowns used.
  std::vector<std::string> kept, kept_where;
  for (size_t d = 0; d < rank; ++d)
    if (d != p_axis) {
      kept.push_back(all[d]);
      kept_where.push_back(where[d]);
    }
  std::string previous;
  for (int64_t step = 0; step < n; ++step) {
    const int64_t p = s.step(step);
    const std::string ps = std::to_string(p);
    std::string value = b_name + "[" + join(with(all, p_axis, ps)) + "]";
    if (s.count(p) > 0) {
      std::string sum = helper("sum" + std::to_string(step));
      std::string q = s.first(p) ? "J + " + std::to_string(s.first(p)) : "J";
      std::vector<std::string> sum_where = kept_where;
      sum_where.push_back("J in " + std::to_string(s.count(p)));
      lines.push_back(sum + "[" + join(kept) + "] +=! " + coef(ps, q) + " * " + previous + "[" +
                      join(with(all, p_axis, q)) + "] where " + join(sum_where));
      value = "(" + value + " - " + sum + "[" + join(kept) + "])";
    }
    if (!s.unit)
      value = "(" + value + " / " + coef(ps, ps) + ")";
    std::string solved = step + 1 == n ? target : helper("solved" + std::to_string(step));
    std::string rest = previous.empty()
                           ? "const(0, dtype=`" + std::string(core::name(result.dtype)) + "`)"
                           : previous + "[" + join(all) + "]";
    lines.push_back(solved + "[" + join(all) + "] = " + value + ".when([" + all[p_axis] +
                    " == " + ps + "], " + rest + ") where " + join(where));
    previous = solved;
  }
  return lines;
}

} // namespace teval::ops::detail
