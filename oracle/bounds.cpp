// Rigorous per-element bounds (see bounds.h and docs/ORACLE.md).
#include "oracle/bounds.h"

#include "core/bounds.h"
#include "oracle/dyadic.h"
#include "oracle/exact_math.h"
#include "oracle/interval_ops.h"
#include "oracle/sum_bound.h"
#include "oracle/walk.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace teval::oracle {

using core::DType;
using core::Op;
using core::Scalar;

namespace {

/// a op b (+, -, * or /) rounded toward -inf (\p up false) or +inf in
/// double: at least as far out as the exact value.
double directed(Op op, double a, double b, bool up) {
  switch (op) {
  case Op::Add:
    return up ? add_up(a, b) : add_down(a, b);
  case Op::Sub:
    return up ? add_up(a, -b) : add_down(a, -b);
  case Op::Mul:
    return up ? mul_up(a, b) : mul_down(a, b);
  default: {
    double q = a / b;
    if (!std::isfinite(q) || !std::isfinite(a) || !std::isfinite(b))
      return q;
    double r = std::fma(-q, b, a); // a - q·b exactly: the sign of a/b - q, times b's
    bool above = r != 0 && (r > 0) == (b > 0);
    if (r != 0 && above && up)
      return std::nextafter(q, INFINITY);
    if (r != 0 && !above && !up)
      return std::nextafter(q, -INFINITY);
    return q;
  }
  }
}

/// The result of comparison \p op (bool or an integer 0/1 of dtype \p t)
/// when its operands may be below, equal, above each other or unordered.
Interval truth_range(DType t, Op op, bool lt, bool eq, bool gt, bool unordered) {
  bool can_true = false, can_false = false;
  switch (op) {
  case Op::Lt:
    can_true = lt, can_false = eq || gt || unordered;
    break;
  case Op::Le:
    can_true = lt || eq, can_false = gt || unordered;
    break;
  case Op::Gt:
    can_true = gt, can_false = eq || lt || unordered;
    break;
  case Op::Ge:
    can_true = gt || eq, can_false = lt || unordered;
    break;
  case Op::Eq:
    can_true = eq, can_false = lt || gt || unordered;
    break;
  case Op::Ne:
    can_true = lt || gt || unordered, can_false = eq;
    break;
  default:
    can_true = can_false = true; // Same of uncertain values
    break;
  }
  Interval r{core::constant(t, can_false ? 0 : 1), core::constant(t, can_true ? 1 : 0)};
  return r;
}

/// Over every legal evaluation: intervals of the dtype's values.
class BoundDomain {
public:
  using Value = Interval;
  struct Acc {
    core::Aggregation aggregation;
    DType dtype;
    bool first_value;
    Interval value; // every aggregation but a float sum or product
    SumBound sum;   // a float sum
    // A float product: the exact product's range; the smallest and largest
    // magnitude any partial product may reach, and whether a term is
    // exactly zero.
    double lo = 1, hi = 1, small = 1, large = 1;
    int64_t terms = 0;
    bool nan = false, any = false, zero = false;
  };
  static constexpr bool kUncertain = true;

  explicit BoundDomain(const BoundOptions& options) : options_(options) {}

  Value constant(const Scalar& v) { return Interval::point(v); }
  Value index_value(DType t, int64_t v) { return Interval::point(Scalar::of_int(t, v)); }
  std::optional<int64_t> index(const Value& v) {
    if (!v.singleton())
      return std::nullopt;
    return v.lo.i;
  }
  Truth truth(const Value& v) {
    if (v.any)
      return Truth::Unknown;
    if (v.no_number())
      return Truth::True; // NaN is nonzero
    bool zero_possible =
        core::is_float(v.lo.dtype) ? v.lo.f <= 0 && v.hi.f >= 0 : v.lo.i <= 0 && v.hi.i >= 0;
    bool nonzero_possible = v.nan || !(core::is_float(v.lo.dtype) ? v.lo.f == 0 && v.hi.f == 0
                                                                  : v.lo.i == 0 && v.hi.i == 0);
    if (zero_possible && nonzero_possible)
      return Truth::Unknown;
    return zero_possible ? Truth::False : Truth::True;
  }
  Value join(const Value& a, const Value& b) { return hull(a, b); }
  Value unknown(DType t) { return Interval::everything(t); }

  Value apply(const core::ExprNode& e, const core::Apply& a, const Value* args, bool fused);
  Value cast(const Value& v, DType t);

  Acc accumulator(const core::Statement& s, DType t, const Value& fill) {
    Acc acc{s.aggregation, t, s.start == core::Start::FirstValue, fill};
    // A zero fill adds nothing; any other fill is one more term.
    if (!acc.first_value && is_float_sum(acc) && !(fill.singleton() && fill.lo.f == 0))
      acc.sum.add(fill);
    if (is_float_product(acc) && !acc.first_value && !(fill.singleton() && fill.lo.f == 1))
      add_factor(acc, fill);
    return acc;
  }
  void add(Acc& acc, const Value& v) {
    bool first = acc.first_value;
    acc.first_value = false;
    if (is_float_sum(acc))
      acc.sum.add(v);
    else if (is_float_product(acc))
      add_factor(acc, v);
    else if (first)
      acc.value = v;
    else
      acc.value = combine(acc.aggregation, acc.value, v);
  }
  Value finish(const Acc& acc);

private:
  static bool is_float_sum(const Acc& acc) {
    return acc.aggregation == core::Aggregation::Sum && core::is_float(acc.dtype);
  }
  static bool is_float_product(const Acc& acc) {
    return acc.aggregation == core::Aggregation::Product && core::is_float(acc.dtype);
  }
  static void add_factor(Acc& acc, const Interval& v) {
    if (v.any || v.no_number() || !std::isfinite(v.lo.f) || !std::isfinite(v.hi.f)) {
      acc.any = true; // an infinite or unknown factor: 0 × inf and overflow
      return;
    }
    acc.nan = acc.nan || v.nan;
    ++acc.terms;
    if (v.lo.f == 0 && v.hi.f == 0) {
      acc.zero = true;
      return;
    }
    // The exact product's range: the corners, rounded outward.
    double c[4] = {mul_down(acc.lo, v.lo.f), mul_down(acc.lo, v.hi.f), mul_down(acc.hi, v.lo.f),
                   mul_down(acc.hi, v.hi.f)};
    double d[4] = {mul_up(acc.lo, v.lo.f), mul_up(acc.lo, v.hi.f), mul_up(acc.hi, v.lo.f),
                   mul_up(acc.hi, v.hi.f)};
    acc.lo = *std::min_element(c, c + 4);
    acc.hi = *std::max_element(d, d + 4);
    double mig = v.lo.f <= 0 && v.hi.f >= 0 ? 0 : std::min(std::fabs(v.lo.f), std::fabs(v.hi.f));
    double mag = std::max(std::fabs(v.lo.f), std::fabs(v.hi.f));
    acc.small = mul_down(acc.small, std::min(mig, 1.0));
    acc.large = mul_up(acc.large, std::max(mag, 1.0));
  }
  Interval combine(core::Aggregation a, const Interval& acc, const Interval& v);
  /// True when \p t may be kept in float32 (BoundOptions::excess_precision).
  bool excess(DType t) const {
    return options_.excess_precision && (t == DType::Float16 || t == DType::BFloat16);
  }
  /// True when operation \p op of node \p e rounds, and may be kept in
  /// float32 instead.
  bool rounds_with_excess(const core::ExprNode& e, Op op) const {
    return excess(e.dtype) && (op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div);
  }
  Interval finish_product(const Acc& acc);
  Interval float_op(const core::ExprNode& e, Op op, const Value* args, bool fused);
  /// True when \p e multiplies an expression by itself (x * x): its two
  /// operands are one value in every evaluation, so it is never negative.
  bool is_square(const core::ExprNode& e, const core::Apply& a) {
    if (a.op != Op::Mul)
      return false;
    auto [it, added] = squares_.try_emplace(&e, false);
    if (added)
      it->second = core::same_value(a.args[0], a.args[1]);
    return it->second;
  }

  std::unordered_map<const core::ExprNode*, bool> squares_;
  Interval integer_op(const core::ExprNode& e, Op op, const Value* args);

  BoundOptions options_;
};

Interval BoundDomain::finish(const Acc& acc) {
  if (is_float_product(acc))
    return finish_product(acc);
  if (!is_float_sum(acc))
    return acc.value;
  if (acc.sum.empty()) // only the fill (FirstValue with no write), or NaN terms
    return acc.sum.nan() ? Interval::point(fl(acc.dtype, NAN)) : acc.value;
  return acc.sum.finish(acc.dtype, excess(acc.dtype));
}

Interval BoundDomain::finish_product(const Acc& acc) {
  DType t = acc.dtype;
  if (acc.any)
    return Interval::everything(t);
  if (acc.terms == 0)
    return acc.nan ? Interval::point(fl(t, NAN)) : acc.value;
  FloatFormat f = format_of(t);
  double u = std::ldexp(1.0, -f.precision);
  double n = static_cast<double>(acc.terms);
  if (n * u >= 0.5)
    return Interval::everything(t);
  double gamma = up(n * u / (1 - n * u));
  double overflow = std::ldexp(2.0 - std::ldexp(1.0, -f.precision), f.max_exponent);
  if (acc.zero) {
    // An exact zero factor: ±0 in any order, unless the other factors may
    // overflow to infinity first (inf × 0 is NaN).
    return with_nan(Interval{fl(t, -0.0), fl(t, 0.0)},
                    acc.nan || mul_up(acc.large, 1 + gamma) >= overflow);
  }
  // Every partial product, in any order, lies between the product of the
  // magnitudes below 1 and that of those above 1: the relative bound
  // gamma(n) holds when none can leave the normal range.
  if (acc.small < std::ldexp(1.0, f.min_exponent) || mul_up(acc.large, 1 + gamma) >= overflow)
    return Interval::everything(t);
  double lo = acc.lo, hi = acc.hi;
  lo = add_down(lo, -mul_up(gamma, std::fabs(lo)));
  hi = add_up(hi, mul_up(gamma, std::fabs(hi)));
  Interval r = values_between(t, lo, hi, excess(t));
  r.nan = acc.nan;
  return r;
}

Interval BoundDomain::combine(core::Aggregation a, const Interval& acc, const Interval& v) {
  DType t = acc.lo.dtype;
  if (acc.any || v.any)
    return Interval::everything(t);
  if (acc.singleton() && v.singleton())
    return Interval::point(core::combine(a, acc.lo, v.lo));
  switch (a) {
  case core::Aggregation::Max:
  case core::Aggregation::Min: {
    if (acc.no_number() || v.no_number())
      return with_nan(acc.no_number() ? acc : v, true);
    Scalar args_lo[2] = {acc.lo, v.lo}, args_hi[2] = {acc.hi, v.hi};
    Op op = a == core::Aggregation::Max ? Op::Max : Op::Min;
    Interval r{core::apply(op, args_lo, t, core::Overflow::Wrap),
               core::apply(op, args_hi, t, core::Overflow::Wrap)};
    r.nan = acc.nan || v.nan;
    return r;
  }
  case core::Aggregation::All:
  case core::Aggregation::Any: {
    Truth x = truth(acc), y = truth(v);
    bool all = a == core::Aggregation::All;
    Truth decisive = all ? Truth::False : Truth::True;
    if (x == decisive || y == decisive)
      return Interval::point(core::constant(t, all ? 0 : 1));
    if (x == Truth::Unknown || y == Truth::Unknown)
      return join(Interval::point(core::constant(t, 0)), Interval::point(core::constant(t, 1)));
    return Interval::point(core::constant(t, all ? 1 : 0));
  }
  case core::Aggregation::Sum:
  case core::Aggregation::Product: {
    if (a == core::Aggregation::Sum && core::is_integer(t)) {
      __int128 lo = __int128(acc.lo.i) + v.lo.i, hi = __int128(acc.hi.i) + v.hi.i;
      if (lo >= core::int_min(t) && hi <= core::int_max(t))
        return Interval{Scalar::of_int(t, static_cast<int64_t>(lo)),
                        Scalar::of_int(t, static_cast<int64_t>(hi))};
    }
    return Interval::everything(t); // integer overflow, or an integer product
  }
  case core::Aggregation::Assign:
    break;
  }
  return join(acc, v);
}

Interval BoundDomain::cast(const Interval& v, DType t) {
  if (v.any)
    return Interval::everything(t);
  DType from = v.lo.dtype;
  if (core::is_float(t) && excess(t) && !v.no_number()) {
    // Kept in float32 instead: between t's values around each end (an
    // integer beyond 2^53 first meets double's rounding: a step more).
    auto end = [&](const Scalar& s, Rounding r) {
      if (core::is_float(from))
        return round_double(t, s.f, r);
      double d = round_double(t, static_cast<double>(s.i), r);
      return std::llabs(s.i) > (int64_t{1} << 53) ? widen(t, d, 1, r == Rounding::Up) : d;
    };
    return with_nan(Interval{fl(t, end(v.lo, Rounding::Down)), fl(t, end(v.hi, Rounding::Up))},
                    v.nan);
  }
  if (v.singleton() || (v.no_number() && core::is_float(t)))
    return v.no_number() ? Interval::point(fl(t, NAN)) : Interval::point(core::cast(v.lo, t));
  if (core::is_bool(t)) {
    Truth x = truth(v);
    if (x == Truth::Unknown)
      return join(Interval::point(core::constant(t, 0)), Interval::point(core::constant(t, 1)));
    return Interval::point(core::constant(t, x == Truth::True));
  }
  if (core::is_float(t)) {
    // Rounding and integer-to-float conversion are monotone.
    Interval r{core::cast(v.lo, t), core::cast(v.hi, t)};
    r.nan = v.nan;
    if (v.no_number())
      r = Interval::point(fl(t, NAN));
    return r;
  }
  if (core::is_float(from)) {
    // Truncation is monotone; NaN or an out-of-range end would fault.
    if (v.nan)
      throw Uncertain{};
    return Interval{core::cast(v.lo, t), core::cast(v.hi, t)};
  }
  if (v.lo.i >= core::int_min(t) && v.hi.i <= core::int_max(t))
    return Interval{Scalar::of_int(t, v.lo.i), Scalar::of_int(t, v.hi.i)};
  return Interval::everything(t);
}

Interval BoundDomain::apply(const core::ExprNode& e, const core::Apply& a, const Value* args,
                            bool fused) {
  size_t n = a.args.size();
  for (size_t i = 0; i < n; ++i)
    if (args[i].any)
      return Interval::everything(e.dtype);
  bool points = true;
  for (size_t i = 0; i < n; ++i)
    points = points && (args[i].singleton() || args[i].no_number());
  DType operand = args[0].lo.dtype;
  if (points && !is_math_function(a.op) && !(fused && options_.fma) &&
      !rounds_with_excess(e, a.op)) {
    Scalar values[2];
    for (size_t i = 0; i < n; ++i)
      values[i] = args[i].no_number() ? fl(args[i].lo.dtype, NAN) : args[i].lo;
    return Interval::point(core::apply(a.op, values, e.dtype, a.overflow));
  }
  if (core::is_float(operand)) {
    Interval r = float_op(e, a.op, args, fused);
    if (is_square(e, a) && !r.any && r.lo.f < 0)
      r.lo = fl(e.dtype, 0); // the corners pair different values of x
    return r;
  }
  return integer_op(e, a.op, args);
}

Interval BoundDomain::integer_op(const core::ExprNode& e, Op op, const Value* args) {
  DType t = e.dtype;
  auto range = [&](__int128 lo, __int128 hi) {
    if (lo < core::int_min(t) || hi > core::int_max(t))
      return Interval::everything(t);
    return Interval{Scalar::of_int(t, static_cast<int64_t>(lo)),
                    Scalar::of_int(t, static_cast<int64_t>(hi))};
  };
  const Interval& x = args[0];
  switch (op) {
  case Op::Neg:
    return range(-__int128(x.hi.i), -__int128(x.lo.i));
  case Op::Add:
    return range(__int128(x.lo.i) + args[1].lo.i, __int128(x.hi.i) + args[1].hi.i);
  case Op::Sub:
    return range(__int128(x.lo.i) - args[1].hi.i, __int128(x.hi.i) - args[1].lo.i);
  case Op::Mul: {
    __int128 c[4] = {__int128(x.lo.i) * args[1].lo.i, __int128(x.lo.i) * args[1].hi.i,
                     __int128(x.hi.i) * args[1].lo.i, __int128(x.hi.i) * args[1].hi.i};
    return range(*std::min_element(c, c + 4), *std::max_element(c, c + 4));
  }
  case Op::Max:
    return range(std::max(x.lo.i, args[1].lo.i), std::max(x.hi.i, args[1].hi.i));
  case Op::Min:
    return range(std::min(x.lo.i, args[1].lo.i), std::min(x.hi.i, args[1].hi.i));
  default:
    break;
  }
  if (core::rule(op) == core::OpRule::Compare) {
    // Integer comparisons: decided when the ranges do not overlap.
    const Interval& y = args[1];
    bool can_lt = x.lo.i < y.hi.i, can_eq = x.lo.i <= y.hi.i && y.lo.i <= x.hi.i,
         can_gt = x.hi.i > y.lo.i;
    return truth_range(t, op, can_lt, can_eq, can_gt, false);
  }
  return Interval::everything(t);
}

Interval BoundDomain::float_op(const core::ExprNode& e, Op op, const Value* args, bool fused) {
  DType t = e.dtype;
  const Interval& x = args[0];
  if (core::rule(op) == core::OpRule::Compare) {
    const Interval& y = args[1];
    bool numbers = !x.no_number() && !y.no_number();
    return truth_range(t, op, numbers && x.lo.f < y.hi.f,
                       numbers && x.lo.f <= y.hi.f && y.lo.f <= x.hi.f, numbers && x.hi.f > y.lo.f,
                       x.nan || y.nan || !numbers);
  }
  if (core::rule(op) == core::OpRule::FloatToInt) {
    if (x.nan || x.no_number())
      throw Uncertain{}; // a legal evaluation may convert NaN: a fault
    return Interval{core::apply(op, &x.lo, t, core::Overflow::Wrap),
                    core::apply(op, &x.hi, t, core::Overflow::Wrap)};
  }
  if (is_math_function(op) && core::arity(op) == 1)
    return math_bound(op, e.dtype, x, options_);
  if (op == Op::Pow)
    return pow_bound(e.dtype, args[0], args[1], options_);
  if (op == Op::Atan2)
    return atan2_bound(e.dtype, args[0], args[1], options_);
  bool nan = false;
  for (int i = 0; i < core::arity(op); ++i)
    nan = nan || args[i].nan;
  for (int i = 0; i < core::arity(op); ++i)
    if (args[i].no_number())
      return Interval::point(fl(t, NAN));
  switch (op) {
  case Op::Neg: // exact: an unrounded (fused) product stays unrounded
    return with_nan(Interval{Scalar{t, 0, -x.hi.f}, Scalar{t, 0, -x.lo.f}}, nan);
  case Op::Abs:
    if (x.lo.f >= 0)
      return with_nan(x, nan);
    if (x.hi.f <= 0)
      return with_nan(Interval{fl(t, -x.hi.f), fl(t, -x.lo.f)}, nan);
    return with_nan(Interval{fl(t, 0), fl(t, std::max(-x.lo.f, x.hi.f))}, nan);
  case Op::Mod: {
    const Interval& y = args[1];
    if (std::isinf(x.lo.f) || std::isinf(x.hi.f))
      nan = true;
    if (y.lo.f > 0)
      return with_nan(Interval{fl(t, 0), y.hi}, nan);
    if (y.hi.f < 0)
      return with_nan(Interval{y.lo, fl(t, 0)}, nan);
    return Interval::everything(t);
  }
  case Op::Div:
    if (args[1].lo.f <= 0 && args[1].hi.f >= 0)
      return Interval::everything(t);
    break;
  default:
    break;
  }
  // Add, Sub, Mul, Div, Max, Min: monotone in each operand, and rounding
  // to nearest is monotone, so the corners bound the results.
  const Interval& y = args[1];
  auto has_zero = [](const Interval& v) { return v.lo.f <= 0 && v.hi.f >= 0; };
  auto has_inf = [](const Interval& v) { return std::isinf(v.lo.f) || std::isinf(v.hi.f); };
  if (op == Op::Mul && ((has_inf(x) && has_zero(y)) || (has_zero(x) && has_inf(y))))
    nan = true; // inf × 0 inside the ranges, not at a corner
  double lo = INFINITY, hi = -INFINITY;
  bool exact_operands = true;
  for (const Interval* v : {&x, &y})
    for (double end : {v->lo.f, v->hi.f})
      exact_operands = exact_operands && core::round_float(t, end) == end;
  for (double a : {x.lo.f, x.hi.f})
    for (double b : {y.lo.f, y.hi.f}) {
      Scalar corner[2] = {Scalar{t, 0, a}, Scalar{t, 0, b}};
      double r = core::apply(op, corner, t, core::Overflow::Wrap).f;
      if (std::isnan(r))
        return Interval::everything(t);
      lo = std::min(lo, r);
      hi = std::max(hi, r);
      if (rounds_with_excess(e, op)) {
        // Kept in float32 instead: between t's two values around the
        // exact result, as float32's rounding of it is.
        lo = std::min(lo, round_double(t, directed(op, a, b, false), Rounding::Down));
        hi = std::max(hi, round_double(t, directed(op, a, b, true), Rounding::Up));
      }
      if (op == Op::Mul && fused && options_.fma) {
        // A fused product is not rounded: its exact value is legal too.
        lo = std::min(lo, mul_down(a, b));
        hi = std::max(hi, mul_up(a, b));
      }
    }
  if (!exact_operands) {
    // An operand is an unrounded (fused) product: one step of slack covers
    // the double rounding of computing the corner in double first.
    lo = widen(t, lo, 1, false);
    hi = widen(t, hi, 1, true);
  }
  return with_nan(Interval{Scalar{t, 0, lo}, Scalar{t, 0, hi}}, nan);
}

} // namespace

size_t bound_accumulator_bytes() {
  return sizeof(BoundDomain::Acc);
}

Interval fused_term(const core::ExprNode& e, const core::Apply& a, const Scalar* operands,
                    const BoundOptions& options) {
  BoundDomain domain(options);
  Interval args[2] = {Interval::point(operands[0]), Interval::point(operands[1])};
  return domain.apply(e, a, args, /*fused=*/true);
}

std::vector<BoundTensor> bounds(const core::Kernel& kernel, std::span<const core::Tensor> inputs,
                                const BoundOptions& options,
                                std::map<int, std::vector<Interval>> provided) {
  BoundDomain domain(options);
  Walk<BoundDomain> walk(kernel, domain);
  for (auto& [tensor, values] : provided)
    walk.provide(tensor, std::move(values));
  std::vector<std::vector<Interval>> outs = walk.run(inputs);
  std::vector<BoundTensor> result;
  for (size_t o = 0; o < outs.size(); ++o) {
    const core::TensorDecl& d = kernel.tensors[kernel.outputs[o]];
    result.push_back({d.dtype, d.shape, std::move(outs[o])});
  }
  return result;
}

} // namespace teval::oracle
