// convolution (StableHLO specification, "convolution"): the window and the
// dimension numbers in every spelling, checked as the specification's
// constraints (C1)-(C27) say.
//
//   generic  {window_strides = array<i64: 1, 1>, padding = dense<0> :
//            tensor<2x2xi64>, lhs_dilation = ..., rhs_dilation = ...,
//            window_reversal = array<i1: false, false>, dimension_numbers =
//            #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]> (or
//            #stablehlo.conv<raw input_batch_dimension = 0, ...>),
//            feature_group_count = 1 : i64, batch_group_count = 1 : i64}
//   pretty   stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, 0, 1,
//            f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [..], pad =
//            [[lo, hi], ..], lhs_dilate = [..], rhs_dilate = [..], reverse =
//            [..]} {feature_group_count = 1 : i64, ...}
// Every window attribute may be left out: strides and dilations 1, padding
// 0, no reversal.
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"

#include <algorithm>
#include <cctype>

namespace teval::parser::mlir_detail {

namespace {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::ValueType;

struct ConvNumbers {
  int64_t input_batch = -1, input_feature = -1, kernel_in = -1, kernel_out = -1, output_batch = -1,
          output_feature = -1;
  std::vector<int64_t> input_spatial, kernel_spatial, output_spatial;
};

// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`, or `raw input_batch_dimension =
// 0, ...`, inside `#stablehlo.conv<...>` or as the pretty form's text.
ConvNumbers numbers_of(const ast::Expr& e, std::string written) {
  auto fail = [&](const std::string& why) -> Error {
    return Error(ErrorKind::Type, e.span,
                 "convolution's dimension numbers " + why +
                     "; they are written [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] (or "
                     "#stablehlo.conv<raw input_batch_dimension = 0, ...>), not `" +
                     written + "`");
  };
  std::string inner = written;
  if (!inner.empty() && inner[0] == '#') {
    size_t open = inner.find('<'), close = inner.rfind('>');
    if (open == std::string::npos || close == std::string::npos || close < open)
      throw fail("are missing");
    inner = inner.substr(open + 1, close - open - 1);
  }
  std::string compact;
  for (char ch : inner)
    if (!std::isspace(static_cast<unsigned char>(ch)))
      compact += ch;
  ConvNumbers n;
  auto number = [&](const std::string& s) {
    if (s.empty() || s.size() > 9 ||
        !std::all_of(s.begin(), s.end(), [](char ch) { return std::isdigit(uint8_t(ch)); }))
      throw fail("hold `" + s + "` where a dimension belongs");
    return static_cast<int64_t>(std::stoll(s));
  };
  if (compact.starts_with("raw")) {
    auto fields = dialect_fields(compact.substr(3));
    if (!fields)
      throw fail("are not `name = value` fields");
    for (const auto& [key, values] : *fields) {
      auto one = [&, &values = values, &key = key](int64_t& into) {
        if (values.size() != 1)
          throw fail("give `" + key + "` one dimension");
        into = values[0];
      };
      if (key == "input_batch_dimension")
        one(n.input_batch);
      else if (key == "input_feature_dimension")
        one(n.input_feature);
      else if (key == "input_spatial_dimensions")
        n.input_spatial = values;
      else if (key == "kernel_input_feature_dimension")
        one(n.kernel_in);
      else if (key == "kernel_output_feature_dimension")
        one(n.kernel_out);
      else if (key == "kernel_spatial_dimensions")
        n.kernel_spatial = values;
      else if (key == "output_batch_dimension")
        one(n.output_batch);
      else if (key == "output_feature_dimension")
        one(n.output_feature);
      else if (key == "output_spatial_dimensions")
        n.output_spatial = values;
      else
        throw fail("have no `" + key + "`");
    }
    return n;
  }
  // Three lists: each position names the dimension of the operand there.
  std::vector<std::vector<std::string>> lists;
  size_t at = 0;
  for (const char* sep : {"x", "->", ""}) {
    if (at >= compact.size() || compact[at] != '[')
      throw fail("are not three lists");
    size_t close = compact.find(']', at);
    if (close == std::string::npos)
      throw fail("have an unclosed list");
    std::vector<std::string> items;
    std::string body = compact.substr(at + 1, close - at - 1);
    for (size_t p = 0; p <= body.size() && !body.empty();) {
      size_t comma = std::min(body.find(',', p), body.size());
      items.push_back(body.substr(p, comma - p));
      p = comma + 1;
    }
    lists.push_back(items);
    at = close + 1;
    if (!compact.compare(at, std::string(sep).size(), sep))
      at += std::string(sep).size();
    else
      throw fail("are not three lists");
  }
  if (at != compact.size())
    throw fail("have text after the output's list");
  const char* letters[3][2] = {{"b", "f"}, {"i", "o"}, {"b", "f"}};
  int64_t* roles[3][2] = {{&n.input_batch, &n.input_feature},
                          {&n.kernel_in, &n.kernel_out},
                          {&n.output_batch, &n.output_feature}};
  std::vector<int64_t>* spatial[3] = {&n.input_spatial, &n.kernel_spatial, &n.output_spatial};
  for (size_t l = 0; l < 3; ++l) {
    const size_t rank = lists[l].size();
    spatial[l]->assign(rank >= 2 ? rank - 2 : 0, -1);
    for (size_t d = 0; d < rank; ++d) {
      const std::string& item = lists[l][d];
      if (item == letters[l][0] || item == letters[l][1]) {
        int64_t& role = *roles[l][item == letters[l][1]];
        if (role >= 0)
          throw fail("name `" + item + "` twice in one list");
        role = static_cast<int64_t>(d);
        continue;
      }
      int64_t s = number(item);
      if (s >= static_cast<int64_t>(spatial[l]->size()) || (*spatial[l])[size_t(s)] >= 0)
        throw fail("name spatial dimension " + item + " twice or past the list's rank");
      (*spatial[l])[static_cast<size_t>(s)] = static_cast<int64_t>(d);
    }
    for (int64_t* role : roles[l])
      if (*role < 0)
        throw fail(std::string("lack `") + letters[l][role == roles[l][1]] + "` in a list");
  }
  return n;
}

} // namespace

ValueType convolution_meaning(const OpSite& site, const ValueType& lhs, const ValueType& rhs,
                              core::GraphNode& node, const std::vector<int64_t>* padding_operand) {
  const bool pretty = find(site, "dim_numbers", false) != nullptr;
  const char* strides_name = pretty ? "stride" : "window_strides";
  const char* padding_name = pretty ? "pad" : "padding";
  const char* lhs_dilation_name = pretty ? "lhs_dilate" : "lhs_dilation";
  const char* rhs_dilation_name = pretty ? "rhs_dilate" : "rhs_dilation";
  const char* reversal_name = pretty ? "reverse" : "window_reversal";
  const char* numbers_name = pretty ? "dim_numbers" : "dimension_numbers";
  only(site,
       {strides_name, padding_name, lhs_dilation_name, rhs_dilation_name, reversal_name,
        numbers_name, "feature_group_count", "batch_group_count", "precision_config", "precision"});
  auto fail = [&](const std::string& why) -> Error {
    return Error(ErrorKind::Shape, site.attrs_span.valid() ? site.attrs_span : site.span,
                 "convolution of " + type_string(lhs) + " and " + type_string(rhs) + ": " + why);
  };
  if (lhs.dtype != rhs.dtype)
    throw Error(ErrorKind::Type, site.span,
                "convolution takes operands of one element type; they are " + type_string(lhs) +
                    " and " + type_string(rhs));
  if (lhs.dtype == DType::Bool)
    throw Error(ErrorKind::Unsupported, site.span,
                "convolution of i1 values is not read (its sum is an or, its product an and)");
  const ast::Expr* numbers_expr = find(site, numbers_name, true);
  std::string written;
  if (const ast::StringLit* s = ast::as_string(*numbers_expr))
    written = s->value;
  else if (const ast::Name* name = ast::as_name(*numbers_expr))
    written = name->id;
  else
    written = text(*numbers_expr);
  ConvNumbers n = numbers_of(*numbers_expr, written);
  // (C1), (C12), (C17), (C19): the ranks.
  const size_t rank = lhs.shape.size();
  if (rhs.shape.size() != rank)
    throw fail("lhs and rhs have different ranks");
  if (rank < 2)
    throw fail("the operands need a batch (or kernel input) and a feature dimension");
  const size_t spatial = rank - 2;
  if (n.input_spatial.size() != spatial || n.kernel_spatial.size() != spatial ||
      n.output_spatial.size() != spatial)
    throw fail("the dimension numbers name " + std::to_string(n.input_spatial.size()) + ", " +
               std::to_string(n.kernel_spatial.size()) + " and " +
               std::to_string(n.output_spatial.size()) + " spatial dimensions; operands of rank " +
               std::to_string(rank) + " have " + std::to_string(spatial));
  // (C13), (C18), (C20): each list a permutation of the dimensions.
  auto permutation = [&](std::vector<int64_t> dims, const char* which) {
    std::sort(dims.begin(), dims.end());
    for (size_t d = 0; d < dims.size(); ++d)
      if (dims[d] != static_cast<int64_t>(d))
        throw fail(std::string("the ") + which +
                   " dimension numbers do not name each dimension once");
  };
  std::vector<int64_t> in = n.input_spatial, kernel = n.kernel_spatial, out = n.output_spatial;
  in.insert(in.end(), {n.input_batch, n.input_feature});
  kernel.insert(kernel.end(), {n.kernel_in, n.kernel_out});
  out.insert(out.end(), {n.output_batch, n.output_feature});
  permutation(in, "input");
  permutation(kernel, "kernel");
  permutation(out, "output");
  // The window: (C2)-(C9).
  auto window = [&](const char* name, size_t count, int64_t fallback) {
    const ast::Expr* e = find(site, name, false);
    if (!e)
      return std::vector<int64_t>(count, fallback);
    std::vector<int64_t> v = flat_ints(*e, name);
    if (v.size() != count)
      throw Error(ErrorKind::Shape, e->span,
                  std::string("convolution's `") + name + "` has " + std::to_string(v.size()) +
                      " values; " + std::to_string(spatial) + " spatial dimensions need " +
                      std::to_string(count));
    return v;
  };
  std::vector<int64_t> strides = window(strides_name, spatial, 1);
  std::vector<int64_t> padding =
      padding_operand ? *padding_operand : window(padding_name, 2 * spatial, 0);
  std::vector<int64_t> lhs_dilation = window(lhs_dilation_name, spatial, 1);
  std::vector<int64_t> rhs_dilation = window(rhs_dilation_name, spatial, 1);
  std::vector<int64_t> reversal = window(reversal_name, spatial, 0);
  for (const auto& [v, name] : {std::pair{&strides, strides_name},
                                {&lhs_dilation, lhs_dilation_name},
                                {&rhs_dilation, rhs_dilation_name}})
    for (int64_t x : *v)
      if (x < 1 || x > INT32_MAX)
        throw Error(ErrorKind::Shape, find(site, name, true)->span,
                    std::string("convolution's `") + name + "` must be in [1, 2^31), not " +
                        std::to_string(x));
  for (int64_t p : padding)
    if (p < -INT32_MAX || p > INT32_MAX)
      throw Error(ErrorKind::Shape, find(site, padding_name, true)->span,
                  "convolution's padding must be in (-2^31, 2^31), not " + std::to_string(p));
  for (int64_t r : reversal)
    if (r != 0 && r != 1)
      throw Error(ErrorKind::Type, find(site, reversal_name, true)->span,
                  "convolution's window reversal must be booleans");
  // The groups: (C10), (C11), (C14)-(C16), (C21)-(C23).
  int64_t feature_groups =
      find(site, "feature_group_count", false) ? int_attr(site, "feature_group_count") : 1;
  int64_t batch_groups =
      find(site, "batch_group_count", false) ? int_attr(site, "batch_group_count") : 1;
  if (feature_groups < 1 || batch_groups < 1)
    throw fail("feature_group_count and batch_group_count must be positive");
  if (feature_groups > 1 && batch_groups > 1)
    throw fail("feature_group_count and batch_group_count are not both above 1");
  auto dim = [](const ValueType& t, int64_t d) { return t.shape[static_cast<size_t>(d)]; };
  const int64_t batch = dim(lhs, n.input_batch), features = dim(lhs, n.input_feature);
  const int64_t kernel_in = dim(rhs, n.kernel_in), kernel_out = dim(rhs, n.kernel_out);
  if (batch % batch_groups)
    throw fail("the batch extent " + std::to_string(batch) + " is not a multiple of " +
               "batch_group_count " + std::to_string(batch_groups));
  if (features % feature_groups)
    throw fail("the input feature extent " + std::to_string(features) +
               " is not a multiple of feature_group_count " + std::to_string(feature_groups));
  if (kernel_in != features / feature_groups)
    throw fail("the kernel's input feature extent is " + std::to_string(kernel_in) +
               "; the input's " + std::to_string(features) + " features in " +
               std::to_string(feature_groups) + " group(s) need " +
               std::to_string(features / feature_groups));
  if (kernel_out % batch_groups || kernel_out % feature_groups)
    throw fail("the kernel's output feature extent " + std::to_string(kernel_out) +
               " is not a multiple of the group count");
  // The result: (C25)-(C27).
  if (site.declared_outs.size() != 1)
    throw Error(ErrorKind::Shape, site.span, "convolution has one result");
  ValueType result{site.declared_outs[0].dtype, core::Shape(rank, 0)};
  if (result.dtype == DType::Bool || core::is_float(result.dtype) != core::is_float(lhs.dtype))
    throw Error(ErrorKind::Type, site.span,
                "convolution of " + type_string(lhs) + " operands declares a " +
                    core::to_string(result.dtype) +
                    " result: teval converts the operands to a wider or narrower type of their "
                    "kind, not between floats and integers or to i1");
  result.shape[static_cast<size_t>(n.output_batch)] = batch / batch_groups;
  result.shape[static_cast<size_t>(n.output_feature)] = kernel_out;
  for (size_t s = 0; s < spatial; ++s) {
    int64_t x = dim(lhs, n.input_spatial[s]), k = dim(rhs, n.kernel_spatial[s]);
    int64_t dilated = x == 0 ? 0 : (x - 1) * lhs_dilation[s] + 1;
    int64_t padded = padding[2 * s] + dilated + padding[2 * s + 1];
    int64_t window_extent = k == 0 ? 0 : (k - 1) * rhs_dilation[s] + 1;
    if (padded < 0)
      throw fail("spatial dimension " + std::to_string(s) +
                 "'s negative padding removes more than its " + std::to_string(dilated) +
                 " elements");
    int64_t windows =
        padded == 0 || window_extent > padded ? 0 : (padded - window_extent) / strides[s] + 1;
    result.shape[static_cast<size_t>(n.output_spatial[s])] = windows;
  }
  node.attrs["input_batch"] = n.input_batch;
  node.attrs["input_feature"] = n.input_feature;
  node.attrs["input_spatial"] = n.input_spatial;
  node.attrs["kernel_in"] = n.kernel_in;
  node.attrs["kernel_out"] = n.kernel_out;
  node.attrs["kernel_spatial"] = n.kernel_spatial;
  node.attrs["output_batch"] = n.output_batch;
  node.attrs["output_feature"] = n.output_feature;
  node.attrs["output_spatial"] = n.output_spatial;
  node.attrs["strides"] = strides;
  std::vector<int64_t> low, high;
  for (size_t s = 0; s < spatial; ++s) {
    low.push_back(padding[2 * s]);
    high.push_back(padding[2 * s + 1]);
  }
  node.attrs["pad_low"] = low;
  node.attrs["pad_high"] = high;
  node.attrs["lhs_dilation"] = lhs_dilation;
  node.attrs["rhs_dilation"] = rhs_dilation;
  node.attrs["reversal"] = reversal;
  node.attrs["feature_groups"] = feature_groups;
  node.attrs["batch_groups"] = batch_groups;
  return result;
}

} // namespace teval::parser::mlir_detail
