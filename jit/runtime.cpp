// The runtime of compiled kernels (see runtime.h).
#include "jit/runtime.h"

#include "core/fault.h"
#include "core/format.h"
#include "core/numeric.h"
#include "core/scalar_ops.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace teval::jit {

using core::Error;
using core::ErrorKind;
using core::Scalar;

namespace {

Scalar scalar(core::DType t, int64_t v) {
  if (core::is_float(t))
    return Scalar::of_float(t, std::bit_cast<double>(v));
  return Scalar::of_int(t, v);
}

} // namespace

core::Error site_error(const core::LoopNest& nest, const Site& site,
                       const std::vector<int64_t>& values) {
  TEVAL_ASSERT(values.size() == site.dtypes.size(), "error site values and dtypes disagree");
  size_t own = values.size() - site.points.size();
  std::string point;
  for (size_t i = 0; i < site.points.size(); ++i)
    point += (i ? ", " : "") + nest.vars[site.points[i]].name + "=" +
             std::to_string(values[own + i] + (planted(27) ? 1 : 0)); // fault 27: the next point
  if (point.empty())
    point = "the only point";
  std::vector<Scalar> v;
  for (size_t i = 0; i < own; ++i)
    v.push_back(scalar(site.dtypes[i], values[i]));
  auto indices = [&](size_t from) {
    std::vector<int64_t> index;
    for (size_t i = from; i < own; ++i)
      index.push_back(v[i].i);
    return index;
  };

  switch (site.kind) {
  case SiteKind::Read: {
    const auto& load = std::get<core::Load>(site.expr->node);
    const core::Buffer& b = nest.buffers[load.tensor];
    return Error(ErrorKind::Range, site.expr->span,
                 core::read_out_of_range(b.name, core::format_index(indices(0)), b.shape, point));
  }
  case SiteKind::Write: {
    const auto& store = std::get<core::Store>(site.stmt->node);
    const core::Buffer& b = nest.buffers[store.buffer];
    return Error(ErrorKind::Range, store.index[v[0].i]->span,
                 core::write_out_of_range(b.name, core::format_index(indices(1)), b.shape, point));
  }
  case SiteKind::Apply:
  case SiteKind::Cast:
    // The operation is repeated on the host, where the arithmetic of the
    // ground truth says why it has no value.
    try {
      if (site.kind == SiteKind::Cast) {
        core::cast(v[0], site.expr->dtype);
      } else {
        const auto& a = std::get<core::Apply>(site.expr->node);
        core::apply(a.op, v.data(), site.expr->dtype, a.overflow);
      }
    } catch (const core::Fault& f) {
      return Error(ErrorKind::Arithmetic, site.expr->span, f.message + " (at " + point + ")");
    } catch (const core::Inexact& f) {
      return Error(ErrorKind::Range, site.expr->span,
                   "fractional index: " + f.message + " (at " + point + ")");
    }
    TEVAL_UNREACHABLE("compiled code reported an error the operation does not have");
  case SiteKind::Raise: {
    const auto& r = std::get<core::Raise>(site.stmt->node);
    return Error(r.kind, r.span, core::raise_message(r, v));
  }
  }
  TEVAL_UNREACHABLE("unknown error site kind");
}

thread_local volatile std::sig_atomic_t in_runtime_call = 0;

extern "C" {

void teval_rt_fail(RunContext* ctx, int32_t site, const int64_t* values, int32_t count) {
  in_runtime_call = 1;
  ctx->site = site;
  ctx->values.assign(values, values + count);
  in_runtime_call = 0;
}

float teval_rt_round_f16(double x) {
  if (planted(31)) // fault: through float32 first, rounding twice
    return static_cast<float>(core::round_float(core::DType::Float16, static_cast<float>(x)));
  return static_cast<float>(core::round_float(core::DType::Float16, x));
}

float teval_rt_round_bf16(double x) {
  if (planted(30)) { // fault: truncated, not rounded to nearest even
    float f = static_cast<float>(x);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (!std::isnan(f))
      bits &= 0xffff0000u;
    std::memcpy(&f, &bits, 4);
    return static_cast<float>(core::round_float(core::DType::BFloat16, f));
  }
  return static_cast<float>(core::round_float(core::DType::BFloat16, x));
}

float teval_rt_i64_to_f16(int64_t v) {
  return static_cast<float>(core::int_to_float(core::DType::Float16, v));
}

float teval_rt_i64_to_bf16(int64_t v) {
  return static_cast<float>(core::int_to_float(core::DType::BFloat16, v));
}
}

} // namespace teval::jit
