// The fast check of a contraction (see fast_sum.h).
#include "oracle/fast_sum.h"

#include "core/error.h"
#include "core/interrupt.h"
#include "core/numeric.h"
#include "interp/interpreter.h"
#include "oracle/dyadic.h"
#include "oracle/fast_sum_kernels.h"
#include "oracle/interval_ops.h"
#include "oracle/sum_bound.h"

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

namespace teval::oracle {

using core::DType;
using core::Scalar;

namespace {

using detail::Doubles;
using detail::kLanes;
using detail::kWidth;
using detail::Lanes;
using detail::Masks;

Doubles splat(double x) {
  Doubles r;
  for (int j = 0; j < kWidth; ++j)
    r[j] = x;
  return r;
}
Masks splat_mask(int64_t x) {
  Masks r;
  for (int j = 0; j < kWidth; ++j)
    r[j] = x;
  return r;
}

// detail::accumulate() in the rounding mode it needs.
void accumulate_upward(Lanes* groups, int count_groups, const double* lo, const double* hi,
                       const double* rounded, const int64_t* count, int64_t n) {
  const int mode = std::fegetround();
  std::fesetround(FE_UPWARD);
  detail::accumulate(groups, count_groups, lo, hi, rounded, count, n);
  std::fesetround(mode);
}

class Worker {
public:
  // A long reduction is taken this many points at a time: the buffers stay
  // in the cache, and their size does not grow with the reduction.
  static constexpr int64_t kChunk = 1024;

  Worker(const interp::Contraction& c, const BoundOptions& options, const Interval& fill_bound,
         const SumBound& base)
      : c_(c), options_(options), t_(c.dtype()), init_(c.statement().init.f),
        fill_bound_(fill_bound), base_(base) {
    const core::Statement& s = c.statement();
    if (c.product()) {
      mul_ = &*s.value;
      mul_apply_ = &std::get<core::Apply>(s.value->node);
    }
    size_t per = static_cast<size_t>(std::min(c.points(), kChunk)) * kLanes;
    rounded_.resize(per);
    if (c.product() && options.fma) {
      lo_.resize(per);
      hi_.resize(per);
    }
  }

  // Outputs first .. first + lanes - 1 into the result arrays; false when
  // a read is out of range.
  bool run(int64_t first, int lanes, double* sequential, double* exact, Interval* bound) {
    const bool fused = !lo_.empty();
    const SumBound::State& b = base_.state();
    std::array<Lanes, kLanes / kWidth> s;
    for (int v = 0; v * kWidth < lanes; ++v) {
      Lanes& l = s[v];
      l.low = splat(-b.lo);
      l.hi = splat(b.hi);
      l.magnitude = splat(b.magnitude);
      l.positive = splat(b.positive);
      l.negative = splat(b.negative);
      l.largest_lo = splat(b.largest_lo);
      l.smallest_hi = splat(b.smallest_hi);
      l.nonzero = splat_mask(0);
      l.plus_zeros = splat_mask(-1);
      l.exact_low = splat(-b.lo);
      l.exact_hi = splat(b.hi);
      l.sequential = splat(init_);
      l.quantum = splat(INFINITY);
      l.finite = splat_mask(std::isfinite(init_) ? -1 : 0);
      l.negative_zeros = splat_mask(std::signbit(init_) && init_ == 0 ? -1 : 0);
    }
    std::array<bool, kLanes> interval_term{};
    std::array<int64_t, kLanes> terms{};
    const int groups = (lanes + kWidth - 1) / kWidth;
    for (int64_t from = 0; from < c_.points(); from += kChunk) {
      if (!c_.terms(first, lanes, from, std::min(c_.points(), from + kChunk), terms_))
        return false;
      std::array<int64_t, kLanes> count{};
      int64_t longest = 0;
      for (int j = 0; j < lanes; ++j) {
        count[j] = terms_.count[j];
        terms[j] += count[j];
        longest = std::max(longest, count[j]);
      }
      if (!fused && (t_ == DType::Float32 || t_ == DType::Float64)) {
        detail::round_points(s.data(), groups, terms_.a.data(),
                             c_.product() ? terms_.b.data() : nullptr, rounded_.data(),
                             t_ == DType::Float32, count.data(), longest);
      } else {
        for (int j = 0; j < lanes; ++j)
          interval_term[j] = terms_one_by_one(j, s[j / kWidth], j % kWidth) || interval_term[j];
      }
      const double* lo = fused ? lo_.data() : rounded_.data();
      const double* hi = fused ? hi_.data() : rounded_.data();
      accumulate_upward(s.data(), groups, lo, hi, fused ? rounded_.data() : nullptr, count.data(),
                        longest);
    }
    for (int j = 0; j < lanes; ++j) {
      const Lanes& l = s[j / kWidth];
      int i = j % kWidth;
      sequential[j] = l.sequential[i];
      // A NaN or infinite term, or sums that may have reached the overflow
      // threshold (where rounding upward and add_up() part): the walk's
      // code. No partial sum exceeds the sum of the magnitudes.
      if (!l.finite[i] || !(l.magnitude[i] <= DBL_MAX / 4)) {
        walk_lane(first + j, exact[j], bound[j]);
        continue;
      }
      SumBound sum = base_;
      SumBound::State& st = sum.state();
      // add_down() makes an exact zero +0 here (the sum starts at +0 or a
      // nonzero fill); add_up() makes it +0 only when every step adds +0
      // to +0, and -0 once any does not.
      st.lo = -l.low[i];
      if (st.lo == 0)
        st.lo = 0.0;
      st.hi = l.hi[i];
      if (st.hi == 0)
        st.hi = !std::signbit(b.hi) && b.hi == 0 && l.plus_zeros[i] ? 0.0 : -0.0;
      st.magnitude = l.magnitude[i];
      st.positive = l.positive[i];
      st.negative = l.negative[i];
      st.largest_lo = l.largest_lo[i];
      st.smallest_hi = l.smallest_hi[i];
      st.nonnegative = st.nonnegative && l.negative[i] == 0;
      st.nonpositive = st.nonpositive && l.positive[i] == 0;
      st.terms += terms[j];
      st.nonzero += l.nonzero[i];
      // Powers of two: the smallest is the same in any order.
      st.quantum = interval_term[j] ? 0 : std::min(st.quantum, l.quantum[i]);
      bound[j] = finish(sum);
      double xlo = fused ? -l.exact_low[i] : st.lo, xhi = fused ? l.exact_hi[i] : st.hi;
      exact[j] = exact_sum(first + j, xlo, xhi, l.negative_zeros[i] != 0);
    }
    return true;
  }

private:
  // Lane j's terms of this part one at a time (float16, bfloat16, fused
  // products): rounded, added in sequence, and each one's bound when fused;
  // the lane's sequential sum, flags and quantum carried in element i of
  // \p l. Returns whether some nonzero term is an interval, not a point.
  bool terms_one_by_one(int j, Lanes& l, int i) {
    const bool fused = !lo_.empty();
    double seq = l.sequential[i], quantum = l.quantum[i];
    bool ok = l.finite[i] != 0, negzero = l.negative_zeros[i] != 0;
    bool not_point = false;
    for (int64_t k = 0; k < terms_.count[j]; ++k) {
      size_t at = static_cast<size_t>(k) * kLanes + static_cast<size_t>(j);
      double a = terms_.a[at];
      double r = a;
      if (c_.product()) {
        double b = terms_.b[at];
        r = round(a * b);
        if (fused) {
          // The walk's bound of a fused product of two values: the
          // rounded and the exact product (BoundDomain's float_op).
          double down = mul_down(a, b), up = mul_up(a, b);
          double lo = down < r ? down : r, hi = r < up ? up : r;
          lo_[at] = lo;
          hi_[at] = hi;
          ok = ok && std::isfinite(lo) && std::isfinite(hi);
          not_point = not_point || lo != hi;
        }
      }
      seq = round(seq + r);
      rounded_[at] = r;
      ok = ok && std::isfinite(r);
      negzero = negzero && std::signbit(r) && r == 0;
      if (r != 0 && std::isfinite(r))
        quantum = std::min(quantum, lowest_bit(r));
    }
    l.sequential[i] = seq;
    l.finite[i] = ok ? -1 : 0;
    l.negative_zeros[i] = negzero ? -1 : 0;
    l.quantum[i] = quantum;
    return not_point;
  }

  double round(double x) const {
    switch (t_) {
    case DType::Float32:
      return static_cast<float>(x);
    case DType::Float64:
      return x;
    default:
      return core::round_float(t_, x);
    }
  }

  // BoundDomain::finish() of a float sum.
  Interval finish(const SumBound& sum) const {
    if (sum.empty())
      return sum.nan() ? Interval::point(Scalar::of_float(t_, NAN)) : fill_bound_;
    return sum.finish(t_, false);
  }

  // Calls f(a, b) for each term of output \p output in order (b is 0 for a
  // term of one factor), the terms produced again.
  template <class F> void each_term(int64_t output, F f) {
    for (int64_t from = 0; from < c_.points(); from += kChunk) {
      bool ok = c_.terms(output, 1, from, std::min(c_.points(), from + kChunk), again_);
      TEVAL_ASSERT(ok, "a read out of range the first time was in range");
      for (int64_t k = 0; k < again_.count[0]; ++k) {
        size_t at = static_cast<size_t>(k) * kLanes;
        f(again_.a[at], c_.product() ? again_.b[at] : 0.0);
      }
    }
  }

  // The exact sum of output \p output rounded once, from its enclosure
  // [lo, hi] where both round alike, else accumulated exactly.
  double exact_sum(int64_t output, double lo, double hi, bool negative_zeros) {
    if (std::isfinite(lo) && std::isfinite(hi)) {
      if (lo == 0 && hi == 0) // an exact zero: +0 unless every term was -0
        return negative_zeros ? -0.0 : 0.0;
      if (lo > 0 || hi < 0) {
        double a = round(lo), b = round(hi);
        if (std::memcmp(&a, &b, sizeof a) == 0)
          return a;
      }
    }
    Dyadic d = Dyadic::of(init_);
    each_term(output, [&](double a, double b) { d.add(c_.product() ? round(a * b) : a); });
    return d.round_to(t_);
  }

  // Output \p output has a NaN or infinite term (or fill): the walk's own
  // code.
  void walk_lane(int64_t output, double& exact, Interval& bound) {
    SumBound sum = base_;
    each_term(output, [&](double a, double b) {
      if (mul_) {
        Scalar operands[2] = {Scalar::of_float(t_, a), Scalar::of_float(t_, b)};
        sum.add(fused_term(*mul_, *mul_apply_, operands, options_));
      } else {
        sum.add(Interval::point(Scalar::of_float(t_, a)));
      }
    });
    bound = finish(sum);
    exact = exact_sum(output, NAN, NAN, false);
  }

  const interp::Contraction& c_;
  const BoundOptions& options_;
  DType t_;
  double init_;
  Interval fill_bound_;
  const SumBound& base_;
  const core::ExprNode* mul_ = nullptr;
  const core::Apply* mul_apply_ = nullptr;
  interp::Contraction::Terms terms_, again_;
  std::vector<double> rounded_, lo_, hi_;
};

} // namespace

bool fast_sum_applies(const interp::Contraction& c, const core::Kernel& kernel,
                      const BoundOptions& options) {
  for (int id : c.reads())
    if (kernel.tensors[id].role != core::TensorRole::Input)
      return false;
  bool narrow = c.dtype() == DType::Float16 || c.dtype() == DType::BFloat16;
  return !(options.excess_precision && narrow);
}

std::optional<SumValues> fast_sum(const interp::Contraction& c, const core::Kernel& kernel,
                                  const BoundOptions& options, int threads) {
  const core::TensorDecl& target = kernel.tensors[c.statement().target];
  const int64_t outputs = c.outputs(), row = c.row();
  const int64_t per_row = (row + kLanes - 1) / kLanes;
  const int64_t blocks = outputs / row * per_row;
  std::vector<double> sequential(static_cast<size_t>(outputs)), exact(sequential.size());
  std::vector<Interval> bound(sequential.size());
  // The walk's start: the fill, a term of the bound unless it is zero.
  Interval fill = Interval::point(c.statement().init);
  SumBound base;
  if (!(fill.singleton() && fill.lo.f == 0))
    base.add(fill);

  if (threads <= 0) {
    // One per core, but small statements are not worth a thread.
    int64_t work = outputs * std::max<int64_t>(c.points(), 1);
    threads = static_cast<int>(
        std::min<int64_t>(std::max(1u, std::thread::hardware_concurrency()), 1 + work / (1 << 20)));
  }
  threads = static_cast<int>(std::min<int64_t>(threads, blocks));
  core::Interrupt* interrupt = core::current_interrupt();
  std::atomic<int64_t> next{0};
  std::atomic<bool> stop{false}, out_of_range{false};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work_loop = [&] {
    try {
      Worker w(c, options, fill, base);
      constexpr int64_t kChunk = 8;
      while (!stop.load(std::memory_order_relaxed)) {
        int64_t begin = next.fetch_add(kChunk);
        if (begin >= blocks)
          break;
        if (interrupt && interrupt->requested()) {
          stop = true;
          break;
        }
        for (int64_t blk = begin; blk < std::min(begin + kChunk, blocks); ++blk) {
          int64_t start = blk % per_row * kLanes;
          int64_t first = blk / per_row * row + start;
          int lanes = static_cast<int>(std::min<int64_t>(kLanes, row - start));
          if (!w.run(first, lanes, &sequential[first], &exact[first], &bound[first])) {
            out_of_range = true;
            stop = true;
            break;
          }
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure)
        failure = std::current_exception();
      stop = true;
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i)
    pool.emplace_back(work_loop);
  work_loop();
  for (std::thread& th : pool)
    th.join();
  if (failure)
    std::rethrow_exception(failure);
  core::poll_interrupt();
  if (out_of_range)
    return std::nullopt;
  SumValues v{core::Tensor(target.dtype, target.shape), core::Tensor(target.dtype, target.shape),
              std::move(bound)};
  for (int64_t i = 0; i < outputs; ++i) {
    v.sequential.set(i, Scalar::of_float(target.dtype, sequential[static_cast<size_t>(i)]));
    v.exact.set(i, Scalar::of_float(target.dtype, exact[static_cast<size_t>(i)]));
  }
  return v;
}

std::optional<std::map<int, SumValues>> fast_statements(const core::Kernel& kernel,
                                                        std::span<const core::Tensor> inputs,
                                                        const BoundOptions& options, int threads,
                                                        int before) {
  // The inputs by tensor id: what a contraction may read.
  std::vector<const core::Tensor*> by_id(kernel.tensors.size(), nullptr);
  std::vector<int> ids = interp::input_ids(kernel);
  for (size_t i = 0; i < ids.size() && i < inputs.size(); ++i)
    by_id[static_cast<size_t>(ids[i])] = &inputs[i];
  std::map<int, SumValues> fast;
  for (const core::Statement& s : kernel.statements) {
    if (s.target == before)
      break;
    auto writers = std::count_if(kernel.statements.begin(), kernel.statements.end(),
                                 [&](const core::Statement& x) { return x.target == s.target; });
    if (writers != 1)
      continue;
    std::optional<interp::Contraction> c = interp::Contraction::plan(kernel, s, by_id);
    if (!c || !fast_sum_applies(*c, kernel, options))
      continue;
    std::optional<SumValues> v = fast_sum(*c, kernel, options, threads);
    if (!v)
      return std::nullopt;
    fast.emplace(s.target, std::move(*v));
  }
  return fast;
}

} // namespace teval::oracle
