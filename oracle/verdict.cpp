// The verdict of `teval check` (see verdict.h).
#include "oracle/verdict.h"

#include "core/format.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace teval::oracle {

namespace {

// Values of t in order, as integers: -0 and +0 are both 0.
int64_t ordinal(core::DType t, double x) {
  int64_t magnitude = 0;
  bool negative = std::signbit(x);
  switch (t) {
  case core::DType::Float16:
    magnitude = core::float16_bits(x) & 0x7fff;
    break;
  case core::DType::BFloat16:
    magnitude = core::bfloat16_bits(x) & 0x7fff;
    break;
  case core::DType::Float32: {
    float f = static_cast<float>(x);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    magnitude = b & 0x7fffffff;
    break;
  }
  default: {
    uint64_t b;
    std::memcpy(&b, &x, 8);
    magnitude = static_cast<int64_t>(b & 0x7fffffffffffffff);
    break;
  }
  }
  return negative ? -magnitude : magnitude;
}

double distance(const core::Scalar& a, const core::Scalar& b) {
  if (core::is_float(a.dtype))
    return ulp_distance(a.dtype, a.f, b.f);
  return std::fabs(static_cast<double>(a.i) - static_cast<double>(b.i));
}

bool is_nan(const core::Scalar& v) {
  return core::is_float(v.dtype) && std::isnan(v.f);
}
bool is_inf(const core::Scalar& v) {
  return core::is_float(v.dtype) && std::isinf(v.f);
}

// How far \p c lies outside \p b, in ulps (0 inside).
double outside(const core::Scalar& c, const Interval& b) {
  if (b.no_number() || is_nan(c))
    return INFINITY;
  if (core::is_float(c.dtype)) {
    if (c.f < b.lo.f)
      return ulp_distance(c.dtype, c.f, b.lo.f);
    if (c.f > b.hi.f)
      return ulp_distance(c.dtype, c.f, b.hi.f);
    return 0;
  }
  if (c.i < b.lo.i)
    return static_cast<double>(b.lo.i) - static_cast<double>(c.i);
  if (c.i > b.hi.i)
    return static_cast<double>(c.i) - static_cast<double>(b.hi.i);
  return 0;
}

bool passes(const core::Scalar& c, const core::Scalar& x, const Interval& b,
            const CheckOptions& o) {
  switch (o.rule) {
  case Rule::Rigorous:
    return b.contains(c);
  case Rule::Ulp:
    if (is_nan(c) || is_nan(x))
      return is_nan(c) && is_nan(x);
    return distance(c, x) <= static_cast<double>(o.ulps);
  case Rule::Tolerance: {
    if (is_nan(c) || is_nan(x))
      return is_nan(c) && is_nan(x);
    double cv = c.as_double(), xv = x.as_double();
    if (std::isinf(cv) || std::isinf(xv))
      return cv == xv;
    return std::fabs(cv - xv) <= o.atol + o.rtol * std::fabs(xv);
  }
  }
  return false;
}

std::vector<int64_t> unflatten(const core::Shape& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = idx.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

std::string range_text(const Interval& b) {
  if (b.any)
    return "any value";
  std::string r = b.no_number()
                      ? "NaN only"
                      : "[" + core::format_scalar(b.lo) + ", " + core::format_scalar(b.hi) + "]";
  if (b.nan && !b.no_number())
    r += " or NaN";
  return r;
}

} // namespace

double ulp_distance(core::DType t, double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) ? 0 : INFINITY;
  return std::fabs(static_cast<double>(ordinal(t, a) - ordinal(t, b)));
}

std::optional<OutputVerdict> wrong_type(const std::string& name, const core::Tensor& candidate,
                                        core::DType dtype, const core::Shape& shape) {
  OutputVerdict v;
  v.name = name;
  v.elements = core::checked_numel(shape).value_or(0);
  v.status = Status::Mismatch;
  if (candidate.dtype() != dtype) {
    v.kind = "dtype";
    v.message = "the candidate is " + core::to_string(candidate.dtype()) +
                " but the program's output `" + name + "` is " + core::to_string(dtype);
    return v;
  }
  if (candidate.shape() != shape) {
    v.kind = "shape";
    v.message = "the candidate has shape " + core::to_string(candidate.shape()) +
                " but the program's output `" + name + "` has shape " + core::to_string(shape);
    return v;
  }
  return std::nullopt;
}

OutputVerdict judge(const std::string& name, const core::Tensor& candidate,
                    const core::Tensor& sequential, const core::Tensor& exact,
                    const BoundTensor& bound, const CheckOptions& options) {
  if (std::optional<OutputVerdict> wrong =
          wrong_type(name, candidate, exact.dtype(), exact.shape())) {
    wrong->rule = options.rule;
    return *wrong;
  }
  OutputVerdict v;
  v.name = name;
  v.elements = exact.numel();
  v.rule = options.rule;
  v.exact_match = core::identical(candidate, exact);
  v.sequential_match = core::identical(candidate, sequential);
  double worst_outside = -1, worst_error = -1;
  std::optional<ElementReport> first_undecided;
  for (int64_t i = 0; i < exact.numel(); ++i) {
    core::Scalar c = candidate.get(i), x = exact.get(i);
    const Interval& b = bound.elements[static_cast<size_t>(i)];
    if (b.any || b.nan || is_inf(b.lo) || is_inf(b.hi))
      ++v.unbounded;
    ElementReport e{unflatten(exact.shape(), i), c, x, b};
    e.ulps = distance(c, x);
    // A finite exact value whose bound could not be made finite: the
    // bound proves nothing inside it, so only the exact and the
    // sequential values pass there (a value outside it is still wrong).
    bool undecidable = options.rule == Rule::Rigorous && !is_nan(x) && !is_inf(x) &&
                       (b.any || b.nan || is_inf(b.lo) || is_inf(b.hi));
    if (undecidable && !core::identical(c, x) && !core::identical(c, sequential.get(i)) &&
        passes(c, x, b, options)) {
      ++v.inconclusive;
      if (!first_undecided)
        first_undecided = e;
      continue;
    }
    if (!passes(c, x, b, options)) {
      ++v.mismatches;
      double out = options.rule == Rule::Rigorous ? outside(c, b) : e.ulps;
      if (out > worst_outside) {
        worst_outside = out;
        v.worst = e;
        v.kind = is_nan(c) != is_nan(x) || (options.rule == Rule::Rigorous && b.no_number()) ? "nan"
                 : is_inf(c) != is_inf(x)                                                    ? "inf"
                                          : "value";
      }
      continue;
    }
    if (v.mismatches)
      continue;
    if (core::is_float(c.dtype) && !is_nan(c) && !is_nan(x) && std::isfinite(c.f) &&
        std::isfinite(x.f)) {
      double side = c.f >= x.f ? b.hi.f - x.f : x.f - b.lo.f;
      e.fraction = side > 0 ? std::fabs(c.f - x.f) / side : 0;
    }
    v.max_ulps = std::max(v.max_ulps, e.ulps);
    v.max_fraction = std::max(v.max_fraction, e.fraction);
    if (e.ulps > worst_error) {
      worst_error = e.ulps;
      v.worst = e;
    }
  }
  if (v.mismatches) {
    v.status = Status::Mismatch;
    const ElementReport& w = *v.worst;
    v.message =
        "element [" + core::format_index(w.index) + "] is " + core::format_scalar(w.candidate) +
        "; the exact result is " + core::format_scalar(w.exact) +
        (options.rule == Rule::Rigorous ? " and every legal result is in " + range_text(w.bound)
                                        : "");
    return v;
  }
  if (v.exact_match || v.sequential_match) {
    v.status = Status::Exact;
  } else if (v.inconclusive) {
    v.status = Status::Inconclusive;
    v.worst = first_undecided;
  } else {
    v.status = Status::WithinBound;
  }
  return v;
}

void explain(OutputVerdict& v, const core::Kernel& kernel, std::span<const core::Tensor> inputs,
             size_t output) {
  if (v.status != Status::Mismatch || !v.worst)
    return;
  const core::Shape& shape = kernel.tensors[kernel.outputs[output]].shape;
  int64_t flat = 0;
  for (size_t d = 0; d < v.worst->index.size(); ++d)
    flat = flat * shape[d] + v.worst->index[d];
  auto [deps, count] = dependencies(kernel, inputs, output, flat);
  v.worst->depends_on = std::move(deps);
  v.worst->dependency_count = count;
}

std::string status_name(Status s) {
  switch (s) {
  case oracle::Status::Exact:
    return "exact";
  case oracle::Status::WithinBound:
    return "within-bound";
  case oracle::Status::Mismatch:
    return "mismatch";
  case oracle::Status::Inconclusive:
    return "inconclusive";
  }
  return "mismatch";
}

std::string describe(const OutputVerdict& v) {
  std::ostringstream o;
  o << v.name << ": " << status_name(v.status);
  switch (v.status) {
  case Status::Exact:
    o << " (bit-equal to the "
      << (v.exact_match && v.sequential_match ? "exact and the sequential"
          : v.exact_match                     ? "exact"
                                              : "sequential")
      << " result)";
    break;
  case Status::WithinBound:
    // Under --ulp and --rtol/--atol the bound is not the rule: no share of it.
    if (v.rule != Rule::Rigorous)
      o << " (within " << (v.rule == Rule::Ulp ? "the ulps" : "the tolerance") << " asked)";
    o << ": largest error " << v.max_ulps << " ulp";
    if (v.worst)
      o << " (at [" << core::format_index(v.worst->index) << "])";
    if (v.rule == Rule::Rigorous)
      o << ", at most " << std::lround(v.max_fraction * 100) << "% of an element's bound used";
    break;
  case Status::Inconclusive: {
    const ElementReport& w = *v.worst;
    o << ": " << v.inconclusive << " of " << v.elements
      << " elements have no finite bound and are neither the exact nor the sequential result"
      << " (the first at [" << core::format_index(w.index)
      << "]: " << core::format_scalar(w.candidate) << ", the exact result "
      << core::format_scalar(w.exact) << ", the bound " << range_text(w.bound)
      << "); no verdict on them";
    break;
  }
  case Status::Mismatch:
    o << " (" << v.kind << "): " << v.message;
    if (v.mismatches > 1)
      o << "; " << v.mismatches << " of " << v.elements << " elements fail";
    if (v.worst && v.worst->dependency_count) {
      o << "\n  it is computed from " << v.worst->dependency_count << " value"
        << (v.worst->dependency_count == 1 ? "" : "s") << ":";
      const char* separator = " ";
      for (const Dependency& d : v.worst->depends_on) {
        o << separator << d.tensor << "[" << core::format_index(d.index)
          << "] = " << core::format_scalar(d.value);
        separator = ", ";
      }
      if (v.worst->dependency_count > static_cast<int64_t>(v.worst->depends_on.size()))
        o << ", ...";
    }
    break;
  }
  if (v.unbounded && v.status != Status::Mismatch && v.status != Status::Inconclusive)
    o << "; " << v.unbounded << " of " << v.elements << " elements have no finite bound";
  return o.str();
}

namespace {

// \p t (complex) as its real or imaginary parts.
core::Tensor part_of(const core::Tensor& t, bool real) {
  core::Tensor out(core::complex_part(t.dtype()), t.shape());
  for (int64_t i = 0; i < t.numel(); ++i)
    out.set(i, core::Scalar::of_float(out.dtype(), real ? t.get(i).f : t.get(i).im));
  return out;
}

OutputVerdict judge_point(const std::string& name, const core::Tensor& candidate,
                          const core::Tensor& value, const CheckOptions& options) {
  BoundTensor point{value.dtype(), value.shape(), {}};
  for (int64_t e = 0; e < value.numel(); ++e)
    point.elements.push_back(Interval::point(value.get(e)));
  OutputVerdict v = judge(name, candidate, value, value, point, options);
  // Not "the exact result" nor "every legal result": teval's own value of
  // functions it has no bound for (math functions' low bits are the
  // implementation's), which only --ulp or --rtol/--atol widen.
  if (v.status == Status::Mismatch && v.kind == "value" && v.worst &&
      options.rule == Rule::Rigorous) {
    const ElementReport& w = *v.worst;
    char ulps[32];
    std::snprintf(ulps, sizeof ulps, "%.3g", w.ulps);
    v.message = "element [" + core::format_index(w.index) + "] is " +
                core::format_scalar(w.candidate) + "; teval's native reference gives " +
                core::format_scalar(w.exact) + ", " + ulps +
                " ulp away (no rigorous bound here: only that value passes unless --ulp N or "
                "--rtol R --atol A allow others)";
  }
  return v;
}

} // namespace

std::vector<OutputVerdict> judge_against_value(const std::string& name,
                                               const core::Tensor& candidate,
                                               const core::Tensor& value,
                                               const CheckOptions& options) {
  if (std::optional<OutputVerdict> wrong =
          wrong_type(name, candidate, value.dtype(), value.shape())) {
    wrong->rule = options.rule;
    return {*wrong};
  }
  if (!core::is_complex(value.dtype()))
    return {judge_point(name, candidate, value, options)};
  return {judge_point(name + ".real", part_of(candidate, true), part_of(value, true), options),
          judge_point(name + ".imag", part_of(candidate, false), part_of(value, false), options)};
}

} // namespace teval::oracle
