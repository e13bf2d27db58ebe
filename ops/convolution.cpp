// convolution's two meanings (see convolution.h).
#include "ops/convolution.h"

#include "ops/text.h"

#include "core/interrupt.h"
#include "core/kernel.h"
#include "core/scalar_ops.h"

namespace teval::ops::detail {

namespace {

using core::DType;
using core::GraphNode;

// The attributes and extents both meanings read. Output feature o belongs
// to feature group o / (O / G), which reads the input features [g·C,
// (g+1)·C) (C the kernel's input features), and to batch group o / (O /
// B), which reads the input batch gb·N' + b (N' the result's batch).
struct Geometry {
  size_t spatial = 0;
  int64_t input_batch, input_feature, kernel_in_dim, kernel_out_dim, output_batch, output_feature;
  std::vector<int64_t> input_spatial, kernel_spatial, output_spatial;
  std::vector<int64_t> strides, low, lhs_dilation, rhs_dilation, reversal;
  int64_t feature_groups, batch_groups;
  int64_t out_features, kernel_in, result_batch;
  std::vector<int64_t> window, input_extent; // per spatial dimension

  Geometry(const GraphNode& n, const core::Shape& lhs, const core::Shape& rhs,
           const core::Shape& result)
      : input_batch(n.int_attr("input_batch")), input_feature(n.int_attr("input_feature")),
        kernel_in_dim(n.int_attr("kernel_in")), kernel_out_dim(n.int_attr("kernel_out")),
        output_batch(n.int_attr("output_batch")), output_feature(n.int_attr("output_feature")),
        input_spatial(n.ints_attr("input_spatial")), kernel_spatial(n.ints_attr("kernel_spatial")),
        output_spatial(n.ints_attr("output_spatial")), strides(n.ints_attr("strides")),
        low(n.ints_attr("pad_low")), lhs_dilation(n.ints_attr("lhs_dilation")),
        rhs_dilation(n.ints_attr("rhs_dilation")), reversal(n.ints_attr("reversal")),
        feature_groups(n.int_attr("feature_groups")), batch_groups(n.int_attr("batch_groups")) {
    spatial = input_spatial.size();
    out_features = rhs[static_cast<size_t>(kernel_out_dim)];
    kernel_in = rhs[static_cast<size_t>(kernel_in_dim)];
    result_batch = result[static_cast<size_t>(output_batch)];
    for (size_t s = 0; s < spatial; ++s) {
      window.push_back(rhs[static_cast<size_t>(kernel_spatial[s])]);
      input_extent.push_back(lhs[static_cast<size_t>(input_spatial[s])]);
    }
  }

  // The position in the lhs's padded, dilated spatial dimension s of window
  // position k of output position y, less the low padding: the element of
  // lhs it reads is q / lhs_dilation when that divides and is in range.
  int64_t offset(size_t s, int64_t y, int64_t k) const {
    int64_t kk = reversal[s] ? window[s] - 1 - k : k;
    return y * strides[s] + kk * rhs_dilation[s] - low[s];
  }
};

} // namespace

core::Tensor convolution(const GraphNode& n, const core::Tensor& lhs, const core::Tensor& rhs,
                         const core::ValueType& result) {
  const Geometry g(n, lhs.shape(), rhs.shape(), result.shape);
  const DType t = result.dtype;
  const std::vector<int64_t> ls = core::strides(lhs.shape()), rs = core::strides(rhs.shape());
  const std::vector<int64_t> os = core::strides(result.shape);
  const core::Scalar zero = core::constant(t, 0);
  core::Shape contract = g.window;
  contract.push_back(g.kernel_in);
  const int64_t terms = core::checked_numel(contract).value_or(0);
  const int64_t per_feature_group = g.out_features / g.feature_groups;
  const int64_t per_batch_group = g.out_features / g.batch_groups;
  core::Tensor out(t, result.shape);
  std::vector<int64_t> index(result.shape.size()), k(g.spatial + 1);
  for (int64_t at = 0; at < out.numel(); ++at) {
    core::poll_interrupt();
    for (size_t d = 0; d < index.size(); ++d)
      index[d] = at / os[d] % result.shape[d];
    const int64_t o = index[static_cast<size_t>(g.output_feature)];
    const int64_t batch =
        o / per_batch_group * g.result_batch + index[static_cast<size_t>(g.output_batch)];
    const int64_t feature0 = o / per_feature_group * g.kernel_in;
    core::Scalar acc = zero;
    for (int64_t term = 0; term < terms; ++term) {
      for (size_t c = contract.size(), rest = static_cast<size_t>(term); c-- > 0;) {
        k[c] = static_cast<int64_t>(rest) % contract[c];
        rest /= static_cast<size_t>(contract[c]);
      }
      const int64_t i = k[g.spatial];
      int64_t lp = batch * ls[static_cast<size_t>(g.input_batch)] +
                   (feature0 + i) * ls[static_cast<size_t>(g.input_feature)];
      int64_t rp = i * rs[static_cast<size_t>(g.kernel_in_dim)] +
                   o * rs[static_cast<size_t>(g.kernel_out_dim)];
      bool inside = true;
      for (size_t s = 0; s < g.spatial; ++s) {
        int64_t q = g.offset(s, index[static_cast<size_t>(g.output_spatial[s])], k[s]);
        int64_t step = g.lhs_dilation[s];
        inside = inside && q >= 0 && q % step == 0 && q / step < g.input_extent[s];
        lp += inside ? q / step * ls[static_cast<size_t>(g.input_spatial[s])] : 0;
        rp += k[s] * rs[static_cast<size_t>(g.kernel_spatial[s])];
      }
      core::Scalar args[2] = {inside ? core::cast(lhs.get(lp), t) : zero,
                              core::cast(rhs.get(rp), t)};
      acc = core::combine(core::Aggregation::Sum, acc,
                          core::apply(core::Op::Mul, args, t, core::Overflow::Wrap));
    }
    out.set(at, acc);
  }
  return out;
}

std::string convolution_statement(const GraphNode& n, const core::ValueType& lhs,
                                  const std::string& lhs_name, const core::ValueType& rhs,
                                  const std::string& rhs_name, const core::ValueType& result,
                                  const std::string& target) {
  const Geometry g(n, lhs.shape, rhs.shape, result.shape);
  std::vector<std::string> out = axes(result.shape.size()), where, li(lhs.shape.size()),
                           ri(rhs.shape.size()), conditions;
  for (size_t d = 0; d < result.shape.size(); ++d)
    where.push_back(out[d] + " in " + std::to_string(result.shape[d]));
  auto axis = [&](int64_t d) { return out[static_cast<size_t>(d)]; };
  const std::string o = axis(g.output_feature), feature = "K" + std::to_string(g.spatial);
  auto group = [&](int64_t groups, int64_t size, const std::string& within) {
    if (groups == 1)
      return within;
    return "(" + o + " / " + std::to_string(g.out_features / groups) + ") * " +
           std::to_string(size) + " + " + within;
  };
  li[static_cast<size_t>(g.input_batch)] =
      group(g.batch_groups, g.result_batch, axis(g.output_batch));
  li[static_cast<size_t>(g.input_feature)] = group(g.feature_groups, g.kernel_in, feature);
  ri[static_cast<size_t>(g.kernel_in_dim)] = feature;
  ri[static_cast<size_t>(g.kernel_out_dim)] = o;
  for (size_t s = 0; s < g.spatial; ++s) {
    const std::string k = "K" + std::to_string(s), y = axis(g.output_spatial[s]);
    ri[static_cast<size_t>(g.kernel_spatial[s])] = k;
    where.push_back(k + " in " + std::to_string(g.window[s]));
    // The window position k' = K - 1 - k when reversed, times the dilation.
    std::string kk = g.reversal[s] ? "(" + std::to_string(g.window[s] - 1) + " - " + k + ")" : k;
    const int64_t y_max = result.shape[static_cast<size_t>(g.output_spatial[s])] - 1;
    li[static_cast<size_t>(g.input_spatial[s])] = window_index(
        y, g.strides[s],
        g.rhs_dilation[s] == 1 ? kk : kk + " * " + std::to_string(g.rhs_dilation[s]), g.low[s],
        g.lhs_dilation[s], g.input_extent[s],
        std::max(g.offset(s, y_max, 0), g.offset(s, y_max, g.window[s] - 1)), conditions);
  }
  where.push_back(feature + " in " + std::to_string(g.kernel_in));
  const std::string t = "`" + std::string(core::name(result.dtype)) + "`";
  std::string read = lhs_name + "[" + join(li) + "]";
  if (!conditions.empty())
    read += ".when([" + join(conditions) + "], const(" +
            std::string(core::is_float(lhs.dtype) ? "0.0" : "0") + ", dtype=`" +
            std::string(core::name(lhs.dtype)) + "`))";
  if (lhs.dtype != result.dtype)
    read = (conditions.empty() ? read : "(" + read + ")") + ".cast(" + t + ")";
  std::string kernel = rhs_name + "[" + join(ri) + "]";
  if (rhs.dtype != result.dtype)
    kernel += ".cast(" + t + ")";
  return target + "[" + join(out) + "] +=! " + read + " * " + kernel + " where " + join(where);
}

} // namespace teval::ops::detail
