// The oracle's properties on random programs: the sequential result, IREval
// and the compiled code (also free to reorder sums and to fuse
// multiply-adds), and the exact result are inside every element's
// rigorous bound, with and without fused multiply-adds, on ordinary inputs
// and on inputs full of infinities, NaNs, huge and tiny values; a candidate changed beyond the
// bound at one element is a mismatch at that element.
#include "core/error.h"
#include "core/format.h"
#include "core/lower.h"
#include "core/scalar_ops.h"
#include "interp/interpreter.h"
#include "interp/ireval.h"
#include "interp/random_inputs.h"
#include "jit/jit.h"
#include "oracle/bounds.h"
#include "oracle/exact_eval.h"
#include "oracle/exact_math.h"
#include "oracle/verdict.h"
#include "verify/generators.h"

#include "tests/oracle/fast_check.h"
#include "tests/support/programs.h"
#include "tests/support/sum_orders.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <type_traits>
#include <variant>

namespace teval::oracle {
namespace {

struct Evaluated {
  core::Kernel kernel;
  std::vector<core::Tensor> inputs, sequential, exact;
  std::vector<BoundTensor> bounds;
};

// Runs a random program every way, or nothing when it is (rightly) an
// error for the interpreter.
// Replaces about a quarter of every float input's elements by values where
// arithmetic and math functions overflow, underflow or meet special values.
void make_extreme(std::vector<core::Tensor>& inputs, uint64_t seed) {
  const double specials[] = {0.0,   -0.0,   INFINITY, -INFINITY, NAN,     1e30,  -1e30,
                             1e-30, -1e-30, 65504,    -65504,    3e38,    -3e38, 1e300,
                             100,   -100,   0x1p-149, -0x1p-149, 0x1p-24, 1e-300};
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  for (core::Tensor& t : inputs) {
    if (!core::is_float(t.dtype()))
      continue;
    for (int64_t i = 0; i < t.numel(); ++i)
      if (next() % 4 == 0)
        t.set(i, core::Scalar::of_float(t.dtype(),
                                        specials[next() % (sizeof specials / sizeof *specials)]));
  }
}

std::optional<Evaluated> evaluate(const verify::Program& p, uint64_t seed,
                                  std::shared_ptr<const core::SourceFile>& keep,
                                  bool extreme = false) {
  RC_LOG() << "program: " << p.text << "\nrerun: " << verify::command_line(p, seed)
           << (extreme ? " (with extreme values)" : "") << "\n";
  Evaluated e{verify::elaborate(p, keep)};
  e.inputs = interp::make_inputs(e.kernel, {}, seed);
  if (extreme)
    make_extreme(e.inputs, seed);
  try {
    e.sequential = interp::run(e.kernel, e.inputs);
  } catch (const core::Error&) {
    RC_TAG("error");
    return std::nullopt;
  }
  e.exact = run_exact(e.kernel, e.inputs);
  e.bounds = bounds(e.kernel, e.inputs);
  RC_TAG("ok");
  return e;
}

void assert_inside(const Evaluated& e, const std::vector<core::Tensor>& values, const char* who) {
  for (size_t o = 0; o < values.size(); ++o)
    for (int64_t i = 0; i < values[o].numel(); ++i) {
      const Interval& b = e.bounds[o].elements[static_cast<size_t>(i)];
      core::Scalar v = values[o].get(i);
      if (!b.contains(v))
        RC_FAIL(std::string(who) + ": output " + std::to_string(o) + " element " +
                std::to_string(i) + " = " + std::to_string(v.as_double()) + " is outside [" +
                std::to_string(b.lo.as_double()) + ", " + std::to_string(b.hi.as_double()) + "]" +
                (b.nan ? " or NaN" : ""));
    }
}

// The JIT sessions of the float freedoms (--order any, and with --fma).
jit::Jit& relaxed_jit(bool fma) {
  static jit::Jit any(jit::JitOptions{.any_order = true});
  static jit::Jit any_fma(jit::JitOptions{.any_order = true, .fma = true});
  return fma ? any_fma : any;
}

void check_inside(const verify::Program& p, uint64_t seed, bool extreme = false) {
  std::shared_ptr<const core::SourceFile> keep;
  std::optional<Evaluated> e = evaluate(p, seed, keep, extreme);
  if (!e)
    return;
  assert_inside(*e, e->sequential, "the interpreter");
  assert_inside(*e, e->exact, "the exact result");
  // What teval check compares with, computed fast, is what the walks give.
  expect_fast_is_walk(e->kernel, e->inputs, {});
  expect_fast_is_walk(e->kernel, e->inputs, {.fma = true});
  core::LoopNest nest = core::lower(e->kernel);
  assert_inside(*e, interp::ireval(nest, e->inputs), "IREval");
  assert_inside(*e, jit::Jit().compile(nest)->run(e->inputs), "the JIT");
  // --order any: sums reordered by the code, still legal.
  assert_inside(*e, relaxed_jit(false).compile(nest)->run(e->inputs), "the JIT, --order any");
  // Allowing fused multiply-adds only widens the legal set.
  e->bounds = bounds(e->kernel, e->inputs, {.fma = true});
  assert_inside(*e, relaxed_jit(true).compile(nest)->run(e->inputs), "the JIT, --order any --fma");
  assert_inside(*e, e->sequential, "the interpreter, with --fma");
  assert_inside(*e, e->exact, "the exact result, with --fma");
}

RC_GTEST_PROP(OracleProperty, EveryEngineAndTheExactResultAreInsideTheBound, ()) {
  check_inside(*verify::antares_program(), *rc::gen::arbitrary<uint32_t>());
}

RC_GTEST_PROP(OracleProperty, ExtremeInputValuesStayInsideTheBound, ()) {
  check_inside(*verify::antares_program(), *rc::gen::arbitrary<uint32_t>(), true);
}

RC_GTEST_PROP(OracleProperty, TileContractionsAreInsideTheBound, ()) {
  check_inside(*verify::tile_program(), *rc::gen::arbitrary<uint32_t>());
}

RC_GTEST_PROP(OracleProperty, TileContractionsOfExtremeValuesAreInsideTheBound, ()) {
  check_inside(*verify::tile_program(), *rc::gen::arbitrary<uint32_t>(), true);
}

// A value just beyond an element's finite bound, or nothing.
std::optional<core::Scalar> beyond(const Interval& b) {
  if (b.any || b.nan || b.no_number())
    return std::nullopt;
  core::DType t = b.hi.dtype;
  if (core::is_float(t)) {
    if (!std::isfinite(b.hi.f))
      return std::nullopt;
    // The next value of t above hi.
    double up = round_double(t, std::nextafter(b.hi.f, INFINITY), Rounding::Up);
    if (!std::isfinite(up))
      return std::nullopt;
    return core::Scalar::of_float(t, up);
  }
  if (core::is_bool(t) || b.hi.i == core::int_max(t))
    return std::nullopt;
  return core::Scalar::of_int(t, b.hi.i + 1);
}

RC_GTEST_PROP(OracleProperty, AChangeBeyondTheBoundIsAMismatchThere, ()) {
  verify::Program p = *verify::antares_program();
  uint64_t seed = *rc::gen::arbitrary<uint32_t>();
  std::shared_ptr<const core::SourceFile> keep;
  std::optional<Evaluated> e = evaluate(p, seed, keep);
  if (!e || e->sequential.empty() || e->sequential[0].numel() == 0)
    return;
  int64_t i = *rc::gen::inRange<int64_t>(0, e->sequential[0].numel());
  std::optional<core::Scalar> v = beyond(e->bounds[0].elements[static_cast<size_t>(i)]);
  if (!v)
    return;
  core::Tensor candidate = e->sequential[0];
  candidate.set(i, *v);
  OutputVerdict verdict =
      judge("output", candidate, e->sequential[0], e->exact[0], e->bounds[0], {});
  RC_ASSERT(verdict.status == Status::Mismatch);
  RC_ASSERT(verdict.mismatches == 1);
  int64_t flat = 0;
  for (size_t d = 0; d < verdict.worst->index.size(); ++d)
    flat = flat * e->sequential[0].shape()[d] + verdict.worst->index[d];
  RC_ASSERT(flat == i);
}

// Excess precision: float16 and bfloat16 kept in float32. The kernel with
// every float16 and bfloat16 dtype made float32 (constants keep their
// values; inputs are the same numbers) is one such evaluation: the
// interpreter runs it, and its outputs rounded once to their dtypes must
// lie inside the bound with BoundOptions::excess_precision.
core::DType wide(core::DType t) {
  return t == core::DType::Float16 || t == core::DType::BFloat16 ? core::DType::Float32 : t;
}

core::Expr widened(const core::Expr& e) {
  using core::Expr;
  auto all = [](const std::vector<Expr>& v) {
    std::vector<Expr> out;
    for (const Expr& x : v)
      out.push_back(widened(x));
    return out;
  };
  return std::visit(
      [&](const auto& n) -> Expr {
        using N = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<N, core::Const>) {
          core::Scalar v = n.value;
          if (wide(v.dtype) != v.dtype)
            v = core::Scalar::of_float(core::DType::Float32, v.f); // exact
          return core::make_const(v, e->span);
        } else if constexpr (std::is_same_v<N, core::VarRef>) {
          return core::make_var(n.var, wide(e->dtype), e->span);
        } else if constexpr (std::is_same_v<N, core::Load>) {
          return core::make_load(n.tensor, wide(e->dtype), all(n.index), e->span);
        } else if constexpr (std::is_same_v<N, core::Apply>) {
          core::OpRule r = core::rule(n.op);
          bool typed = r == core::OpRule::Compare || r == core::OpRule::Logical ||
                       r == core::OpRule::FloatToInt;
          return core::make_apply(n.op, all(n.args), e->span,
                                  typed ? std::optional(wide(e->dtype)) : std::nullopt, n.overflow);
        } else if constexpr (std::is_same_v<N, core::Cast>) {
          return core::make_cast(widened(n.value), wide(e->dtype), e->span);
        } else {
          return core::make_select(widened(n.cond), widened(n.then), widened(n.otherwise), e->span);
        }
      },
      e->node);
}

core::Kernel widened(const core::Kernel& k) {
  core::Kernel w = k;
  for (core::TensorDecl& d : w.tensors)
    d.dtype = wide(d.dtype);
  for (core::Statement& s : w.statements) {
    if (wide(s.init.dtype) != s.init.dtype)
      s.init = core::Scalar::of_float(core::DType::Float32, s.init.f);
    s.value = widened(s.value);
    for (core::Expr& i : s.out_index)
      i = widened(i);
  }
  return w;
}

RC_GTEST_PROP(OracleProperty, ExcessPrecisionEvaluationsAreInsideTheBound, ()) {
  verify::Program p = *verify::antares_program();
  uint64_t seed = *rc::gen::arbitrary<uint32_t>();
  std::shared_ptr<const core::SourceFile> keep;
  core::Kernel k = verify::elaborate(p, keep);
  bool low = false;
  for (const core::TensorDecl& d : k.tensors)
    low = low || wide(d.dtype) != d.dtype;
  RC_PRE(low);
  RC_LOG() << "program: " << p.text << "\nrerun: " << verify::command_line(p, seed) << "\n";
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, seed);
  if (*rc::gen::arbitrary<bool>())
    make_extreme(inputs, seed);
  std::vector<core::Tensor> wide_inputs;
  for (const core::Tensor& t : inputs) {
    core::Tensor w(wide(t.dtype()), t.shape());
    for (int64_t i = 0; i < t.numel(); ++i)
      w.set(i, core::cast(t.get(i), w.dtype()));
    wide_inputs.push_back(std::move(w));
  }
  std::vector<core::Tensor> results;
  try {
    interp::run(k, inputs); // an error of the program itself: not a case
    results = interp::run(widened(k), wide_inputs);
  } catch (const core::Error&) {
    RC_DISCARD("an error");
  }
  std::vector<BoundTensor> b = bounds(k, inputs, {.excess_precision = true});
  for (size_t o = 0; o < results.size(); ++o)
    for (int64_t i = 0; i < results[o].numel(); ++i) {
      core::Scalar v = core::cast(results[o].get(i), b[o].dtype);
      const Interval& iv = b[o].elements[static_cast<size_t>(i)];
      if (!iv.contains(v))
        RC_FAIL("output " + std::to_string(o) + " element " + std::to_string(i) + " = " +
                core::format_scalar(v) + " is outside [" + core::format_scalar(iv.lo) + ", " +
                core::format_scalar(iv.hi) + "]" + (iv.nan ? " or NaN" : ""));
    }
}

// Long float16 and bfloat16 reductions, where gamma(n) has no finite value
// (n·u >= 1/2 from 1024 float16 or 64 bfloat16 terms): a sum or a dot
// product of 16 to 50 000 terms, of a random scale (subnormal to near
// overflow) and sign pattern. Every order we can run (in order, reversed,
// pairwise, blocked, float32 and float64 accumulation rounded once), the
// interpreter, the JIT adding in any order and the exact result are inside
// the bound; the bound is finite wherever no partial sum may overflow; and
// the next value beyond a finite bound is a mismatch.
RC_GTEST_PROP(OracleProperty, LongLowPrecisionSumsOfEveryOrderAreInsideTheBound, ()) {
  core::DType t = *rc::gen::element(core::DType::Float16, core::DType::BFloat16);
  bool dot = *rc::gen::arbitrary<bool>();
  auto k = static_cast<int64_t>(std::exp(*rc::gen::inRange(277, 1082) / 100.0)); // 16 to 50 000
  int64_t rows = *rc::gen::inRange<int64_t>(1, 4);
  int scale = *rc::gen::inRange(t == core::DType::Float16 ? -20 : -120, 12);
  int signs = *rc::gen::inRange(0, 3); // both, nonnegative, nonpositive
  bool integers = *rc::gen::arbitrary<bool>();
  std::mt19937 rng(*rc::gen::arbitrary<uint32_t>());
  std::uniform_real_distribution<double> dist(signs == 1 ? 0 : -1, signs == 2 ? 0 : 1);
  auto draw = [&](core::Tensor& x) {
    for (int64_t i = 0; i < x.numel(); ++i) {
      double v = integers ? std::round(dist(rng) * 4) : std::ldexp(dist(rng), scale);
      x.set(i, core::Scalar::of_float(t, v));
    }
  };
  core::Tensor x(t, {rows, k}), y(t, {k});
  draw(x);
  y.fill(core::Scalar::of_float(t, 1));
  if (dot)
    draw(y);
  RC_LOG() << core::to_string(t) << (dot ? " dot" : " sum") << " of " << k << " terms, scale 2^"
           << scale << ", signs " << signs << (integers ? ", integers" : "") << "\n";
  std::vector<core::Tensor> in{x};
  if (dot)
    in.push_back(y);
  core::Kernel kernel = dot ? test::elaborate("output0[M] +=! input0[M, K] * input1[K]",
                                              {{"input0", x}, {"input1", y}})
                            : test::elaborate("output0[M] +=! input0[M, K]", {{"input0", x}});
  BoundTensor b = bounds(kernel, in)[0];
  core::Tensor sequential = interp::run(kernel, in)[0], exact = run_exact(kernel, in)[0];
  core::Tensor any_order = relaxed_jit(false).compile(core::lower(kernel))->run(in)[0];
  for (int64_t row = 0; row < rows; ++row) {
    const Interval& iv = b.elements[static_cast<size_t>(row)];
    std::vector<double> terms;
    double magnitude = 0;
    for (int64_t i = 0; i < k; ++i) {
      // A product of two values of t is exact in double; the program rounds it.
      double term = core::round_float(t, x.get(row * k + i).f * y.get(i).f);
      terms.push_back(term);
      magnitude += std::fabs(term);
    }
    std::vector<double> results = test::sum_orders(t, terms);
    RC_ASSERT(core::Scalar::of_float(t, results[0]).f == sequential.get(row).f ||
              std::isnan(results[0])); // the plain loop is the interpreter's order
    results.push_back(exact.get(row).f);
    results.push_back(any_order.get(row).f);
    for (double v : results)
      if (!iv.contains(core::Scalar::of_float(t, v))) {
        char text[160];
        std::snprintf(text, sizeof text, "row %lld: %.9g is outside [%.9g, %.9g]%s",
                      static_cast<long long>(row), v, iv.lo.f, iv.hi.f, iv.nan ? " or NaN" : "");
        RC_FAIL(text);
      }
    // (1 + (n - 1)·u)·Σ|x| below the overflow threshold: a finite bound.
    double u = t == core::DType::Float16 ? 0x1p-11 : 0x1p-8;
    double threshold = t == core::DType::Float16 ? 65520.0 : 0x1.ffp127;
    if (magnitude * (1 + static_cast<double>(k) * u) < threshold * 0.999) {
      RC_ASSERT(!iv.any && !iv.nan);
      RC_ASSERT(std::isfinite(iv.lo.f) && std::isfinite(iv.hi.f));
    }
  }
  int64_t row = *rc::gen::inRange<int64_t>(0, rows);
  if (std::optional<core::Scalar> v = beyond(b.elements[static_cast<size_t>(row)])) {
    core::Tensor candidate = sequential;
    candidate.set(row, *v);
    RC_ASSERT(judge("output0", candidate, sequential, exact, b, {}).status == Status::Mismatch);
  }
}

} // namespace
} // namespace teval::oracle
