// The MLIR generator's layout, slicing, contraction and reduction ops
// (see mlir_builder.h).
#include "verify/mlir_builder.h"

namespace teval::verify::mlir_gen {

// transpose, slice, reverse, concatenate, pad: any element type, rank >= 1.
void MlirBuilder::layout() {
  Val x = operand(std::nullopt, nullptr, 1);
  const size_t rank = x.shape.size();
  const bool pretty = chance(50);
  Val to = x;
  switch (pick(0, 6)) {
  case 6:
    return gather(x);
  case 4:
    return pad(x);
  case 5:
    return dynamic_slice(x);
  case 0: {
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    for (size_t i = rank; i > 1; --i)
      std::swap(perm[i - 1], perm[static_cast<size_t>(pick(0, static_cast<int>(i) - 1))]);
    for (size_t d = 0; d < rank; ++d)
      to.shape[d] = x.shape[static_cast<size_t>(perm[d])];
    define((pretty ? "stablehlo.transpose " + x.name + ", dims = " + ints(perm, true)
                   : "\"" + dialect() + "transpose\"(" + x.name +
                         ") {permutation = " + ints(perm, false) + "}") +
               " : (" + type_of(x) + ") -> " + type_of(to),
           {to});
    return;
  }
  case 1: {
    std::vector<int64_t> start(rank), limit(rank), stride(rank);
    std::string ranges;
    for (size_t d = 0; d < rank; ++d) {
      int e = static_cast<int>(x.shape[d]);
      start[d] = pick(0, e);
      limit[d] = pick(static_cast<int>(start[d]), e);
      stride[d] = pick(1, 3);
      to.shape[d] = (limit[d] - start[d] + stride[d] - 1) / stride[d];
      ranges += (d ? ", " : "") + std::to_string(start[d]) + ":" + std::to_string(limit[d]) +
                (stride[d] == 1 && chance(50) ? "" : ":" + std::to_string(stride[d]));
    }
    define((pretty ? "stablehlo.slice " + x.name + " [" + ranges + "]"
                   : "\"" + dialect() + "slice\"(" + x.name + ") {start_indices = " +
                         ints(start, false) + ", limit_indices = " + ints(limit, false) +
                         ", strides = " + ints(stride, false) + "}") +
               " : (" + type_of(x) + ") -> " + type_of(to),
           {to});
    return;
  }
  case 2: {
    std::vector<int64_t> dims;
    for (size_t d = 0; d < rank; ++d)
      if (chance(50))
        dims.push_back(static_cast<int64_t>(d));
    if (chance(50))
      std::reverse(dims.begin(), dims.end());
    define(pretty
               ? "stablehlo.reverse " + x.name + ", dims = " + ints(dims, true) + " : " + type_of(x)
               : "\"" + dialect() + "reverse\"(" + x.name + ") {dimensions = " + ints(dims, false) +
                     "} : (" + type_of(x) + ") -> " + type_of(x),
           {x});
    return;
  }
  default: { // concatenate 1 to 3 values along one dimension
    size_t along = static_cast<size_t>(pick(0, static_cast<int>(rank) - 1));
    std::string operands = x.name, types = type_of(x);
    for (int i = pick(1, 3); i > 1; --i) {
      core::Shape s = x.shape;
      s[along] = pick(0, 3);
      Val y = operand(x.dtype, &s);
      operands += ", " + y.name;
      types += ", " + type_of(y);
      to.shape[along] += s[along];
    }
    std::string d = std::to_string(along);
    define((pretty ? "stablehlo.concatenate " + operands + ", dim = " + d
                   : "\"" + dialect() + "concatenate\"(" + operands + ") {dimension = " + d +
                         " : i64}") +
               " : (" + types + ") -> " + type_of(to),
           {to});
    return;
  }
  }
}

// dynamic_slice (sizes up to the operand's extents) or
// dynamic_update_slice (an update no larger than the operand), the start
// indices rank-0 integers of one type drawn anywhere: clamped when out of
// range.
void MlirBuilder::gather(const Val& x) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  std::iota(dims.begin(), dims.end(), 0);
  for (size_t i = dims.size(); i > 1; --i)
    std::swap(dims[i - 1], dims[static_cast<size_t>(pick(0, static_cast<int>(i) - 1))]);
  // The first `vector` shuffled dimensions are indexed; one other may be a
  // batching dimension; the rest are kept whole or in part.
  const size_t vector = static_cast<size_t>(pick(chance(10) ? 0 : 1, static_cast<int>(rank)));
  std::vector<int64_t> map(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(vector));
  std::vector<int64_t> sizes(static_cast<size_t>(rank)), collapsed, operand_batching;
  for (int64_t d = 0; d < rank; ++d)
    sizes[static_cast<size_t>(d)] = pick(0, static_cast<int>(x.shape[static_cast<size_t>(d)]));
  for (int64_t d : map)
    if (x.shape[static_cast<size_t>(d)] > 0 && chance(60)) {
      collapsed.push_back(d);
      sizes[static_cast<size_t>(d)] = 1;
    }
  if (vector < dims.size() && x.shape[static_cast<size_t>(dims[vector])] > 0 && chance(50)) {
    operand_batching.push_back(dims[vector]);
    sizes[static_cast<size_t>(dims[vector])] = 1;
  }
  std::sort(collapsed.begin(), collapsed.end());
  // The start indices: batch dimensions (a batching one first), the index
  // vector dimension inserted anywhere, or implicit for a vector of one.
  core::Shape indices;
  if (!operand_batching.empty())
    indices.push_back(x.shape[static_cast<size_t>(operand_batching[0])]);
  for (int i = pick(0, 2); i > 0; --i)
    indices.push_back(pick(0, 3));
  std::vector<int64_t> indices_batching;
  const bool implicit = vector == 1 && chance(30);
  int64_t index_vector_dim = pick(0, static_cast<int>(indices.size()));
  if (implicit)
    index_vector_dim = static_cast<int64_t>(indices.size());
  else
    indices.insert(indices.begin() + index_vector_dim, static_cast<int64_t>(vector));
  if (!operand_batching.empty())
    indices_batching.push_back(index_vector_dim == 0 && !implicit ? 1 : 0);
  // The result: the start indices' batch extents, the kept slice sizes at
  // sorted random offset dimensions.
  std::vector<int64_t> batch_sizes, offset_sizes;
  for (size_t d = 0; d < indices.size(); ++d)
    if (static_cast<int64_t>(d) != index_vector_dim)
      batch_sizes.push_back(indices[d]);
  for (int64_t d = 0; d < rank; ++d)
    if (!std::count(collapsed.begin(), collapsed.end(), d) &&
        !std::count(operand_batching.begin(), operand_batching.end(), d))
      offset_sizes.push_back(sizes[static_cast<size_t>(d)]);
  const size_t result_rank = batch_sizes.size() + offset_sizes.size();
  std::vector<int64_t> offset_dims(result_rank);
  std::iota(offset_dims.begin(), offset_dims.end(), 0);
  for (size_t i = offset_dims.size(); i > 1; --i)
    std::swap(offset_dims[i - 1],
              offset_dims[static_cast<size_t>(pick(0, static_cast<int>(i) - 1))]);
  offset_dims.resize(offset_sizes.size());
  std::sort(offset_dims.begin(), offset_dims.end());
  Val to{"", x.dtype, {}};
  for (size_t d = 0, b = 0, o = 0; d < result_rank; ++d)
    to.shape.push_back(std::count(offset_dims.begin(), offset_dims.end(), int64_t(d))
                           ? offset_sizes[o++]
                           : batch_sizes[b++]);
  Val idx = operand(one_of(kIntegerDTypes), &indices);
  std::string d = dialect(), prefix = d.substr(0, d.size() - 1);
  std::string numbers;
  auto field = [&](const char* name, const std::vector<int64_t>& v) {
    if (!v.empty() || chance(30))
      numbers += std::string(name) + " = " + ints(v, true) + ", ";
  };
  field("offset_dims", offset_dims);
  field("collapsed_slice_dims", collapsed);
  field("operand_batching_dims", operand_batching);
  field("start_indices_batching_dims", indices_batching);
  field("start_index_map", map);
  numbers += "index_vector_dim = " + std::to_string(index_vector_dim);
  std::string attrs = "dimension_numbers = #" + prefix + ".gather<" + numbers + ">" +
                      (chance(30) ? ", indices_are_sorted = false" : "");
  std::string types = type_of(x) + ", " + type_of(idx);
  if (chance(25)) { // dynamic_gather: the slice sizes a constant operand
    std::string c = shape_constant(core::Shape(sizes.begin(), sizes.end()));
    define("\"stablehlo.dynamic_gather\"(" + x.name + ", " + idx.name + ", " + c + ") {" + attrs +
               "} : (" + types + ", " + type_of(DType::Int64, {rank}) + ") -> " + type_of(to),
           {to});
    return;
  }
  define("\"" + d + "gather\"(" + x.name + ", " + idx.name + ") {" + attrs + ", slice_sizes = " +
             (chance(50)
                  ? ints(sizes, false)
                  : "dense<" + ints(sizes, true) + "> : tensor<" + std::to_string(rank) + "xi64>") +
             "} : (" + types + ") -> " + type_of(to),
         {to});
}

void MlirBuilder::dynamic_slice(const Val& x) {
  const bool pretty = chance(50), update = chance(50);
  Val to = x;
  std::vector<int64_t> sizes;
  for (int64_t e : x.shape)
    sizes.push_back(pick(0, static_cast<int>(e)));
  DType index = one_of(kIntegerDTypes);
  std::string operands = x.name, types = type_of(x);
  if (update) {
    Val u = operand(x.dtype, nullptr);
    if (u.shape.size() != x.shape.size() ||
        !std::equal(u.shape.begin(), u.shape.end(), x.shape.begin(), std::less_equal<>()))
      u = argument(x.dtype, core::Shape(sizes.begin(), sizes.end()));
    operands += ", " + u.name;
    types += ", " + type_of(u);
  } else {
    to.shape = core::Shape(sizes.begin(), sizes.end());
  }
  for (size_t d = 0; d < x.shape.size(); ++d) {
    operands += ", " + operand(index, &kScalar).name;
    types += ", " + type_of(index, {});
  }
  std::string op = update ? "dynamic_update_slice" : "dynamic_slice";
  std::string attrs = update   ? ""
                      : pretty ? ", sizes = " + ints(sizes, true)
                               : " {slice_sizes = " + ints(sizes, false) + "}";
  define((pretty ? "stablehlo." + op + " " + operands + (update ? "" : attrs)
                 : "\"" + dialect() + op + "\"(" + operands + ")" + attrs) +
             " : (" + types + ") -> " + type_of(to),
         {to});
}

// pad of \p x by a constant or an argument: edge paddings in [-2, 2]
// (none removing more than the dimension has), interior in [0, 2].
void MlirBuilder::pad(const Val& x) {
  const size_t rank = x.shape.size();
  std::vector<int64_t> low(rank), high(rank), interior(rank);
  Val to = x;
  for (size_t d = 0; d < rank; ++d) {
    interior[d] = chance(50) ? 0 : pick(1, 2);
    int64_t spread = x.shape[d] + std::max<int64_t>(x.shape[d] - 1, 0) * interior[d];
    low[d] = pick(-2, 2);
    high[d] = pick(-2, 2);
    while (spread + low[d] + high[d] < 0)
      low[d] < 0 ? ++low[d] : ++high[d];
    to.shape[d] = spread + low[d] + high[d];
  }
  Val value{"", x.dtype, {}};
  if (chance(30)) {
    value = operand(x.dtype, &kScalar);
  } else {
    value.name = define("stablehlo.constant dense<" +
                            std::string(x.dtype == DType::Bool       ? "true"
                                        : core::is_float(x.dtype)    ? "-1.5"
                                        : core::is_unsigned(x.dtype) ? "7"
                                                                     : "-3") +
                            "> : " + type_of(value),
                        {value})[0];
    values_.back().read = true;
  }
  std::string types = " : (" + type_of(x) + ", " + type_of(value) + ") -> " + type_of(to);
  if (chance(20)) { // the dynamic form, its amounts constants
    std::string amounts = shape_constant(core::Shape(low.begin(), low.end())) + ", " +
                          shape_constant(core::Shape(high.begin(), high.end())) + ", " +
                          shape_constant(core::Shape(interior.begin(), interior.end()));
    std::string list = shape_type(to.shape);
    define((chance(50) ? "stablehlo.dynamic_pad " + x.name + ", " + value.name + ", " + amounts
                       : "\"" + dialect() + "dynamic_pad\"(" + x.name + ", " + value.name + ", " +
                             amounts + ")") +
               " : (" + type_of(x) + ", " + type_of(value) + ", " + list + ", " + list + ", " +
               list + ") -> " + type_of(to),
           {to});
    return;
  }
  if (chance(50))
    define("stablehlo.pad " + x.name + ", " + value.name + ", low = " + ints(low, true) +
               ", high = " + ints(high, true) + ", interior = " + ints(interior, true) + types,
           {to});
  else
    define("\"" + dialect() + "pad\"(" + x.name + ", " + value.name + ") {edge_padding_low = " +
               ints(low, false) + ", edge_padding_high = " + ints(high, false) +
               ", interior_padding = " + ints(interior, false) + "}" + types,
           {to});
}

// triangular_solve of floats: a batch of square matrices (extents 0 to
// 4), every side, triangle, diagonal and transposition.
void MlirBuilder::triangular_solve() {
  DType t = float_dtype();
  core::Shape batch(static_cast<size_t>(pick(0, 1)), pick(1, 2));
  int64_t n = chance(8) ? 0 : pick(1, 4), k = chance(8) ? 0 : pick(1, 3);
  const bool left = chance(50);
  core::Shape as = batch, bs = batch;
  as.insert(as.end(), {n, n});
  bs.insert(bs.end(), {left ? n : k, left ? k : n});
  Val a = operand(t, &as), b = operand(t, &bs);
  const char* transposes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
  std::string d = dialect();
  auto flag = [](bool v) { return v ? "true" : "false"; };
  define("\"" + d + "triangular_solve\"(" + a.name + ", " + b.name +
             ") {left_side = " + flag(left) + ", lower = " + flag(chance(50)) +
             ", unit_diagonal = " + flag(chance(30)) + ", transpose_a = #" +
             d.substr(0, d.size() - 1) + "<transpose " + transposes[pick(0, 2)] + ">} : (" +
             type_of(a) + ", " + type_of(b) + ") -> " + type_of(b),
         {b});
}

// dot_general (the generic form's #stablehlo.dot or #mhlo.dot, or the
// pretty `batching_dims = [..] x [..]`) over operands whose batching,
// contracting and free dimensions are in random places, sometimes with a
// result type of its own; or dot of ranks 1 and 2; or triangular_solve.
void MlirBuilder::contraction() {
  if (chance(15))
    return triangular_solve();
  if (chance(25))
    return convolution();
  DType t = number_dtype();
  DType out = t;
  if (chance(20))
    out = core::is_float(t) ? float_dtype() : one_of(kIntegerDTypes);
  const bool pretty = chance(50);
  auto extent = [] { return static_cast<int64_t>(chance(8) ? 0 : pick(1, 4)); };
  if (chance(25)) {
    int64_t k = extent();
    core::Shape ls{k}, rs{k};
    Val to{"", out, {}};
    if (chance(50)) {
      ls.insert(ls.begin(), extent());
      to.shape.push_back(ls[0]);
    }
    if (chance(50)) {
      rs.push_back(extent());
      to.shape.push_back(rs[1]);
    }
    Val a = operand(t, &ls), b = operand(t, &rs);
    std::string types = " : (" + type_of(a) + ", " + type_of(b) + ") -> " + type_of(to);
    define((pretty ? "stablehlo.dot " + a.name + ", " + b.name
                   : "\"" + dialect() + "dot\"(" + a.name + ", " + b.name + ")") +
               types,
           {to});
    return;
  }
  // Roles: 0 batching, 1 contracting, 2 free.
  std::vector<int> lroles, rroles;
  std::vector<int64_t> batch(static_cast<size_t>(pick(0, 1))),
      contract(static_cast<size_t>(pick(0, 2)));
  for (int64_t& e : batch)
    e = extent();
  for (int64_t& e : contract)
    e = extent();
  auto side = [&](int free) {
    std::vector<std::pair<int, size_t>> dims; // role, which
    for (size_t i = 0; i < batch.size(); ++i)
      dims.push_back({0, i});
    for (size_t i = 0; i < contract.size(); ++i)
      dims.push_back({1, i});
    for (int i = 0; i < free; ++i)
      dims.push_back({2, static_cast<size_t>(i)});
    for (size_t i = dims.size(); i > 1; --i)
      std::swap(dims[i - 1], dims[static_cast<size_t>(pick(0, static_cast<int>(i) - 1))]);
    return dims;
  };
  auto ldims = side(pick(0, 2)), rdims = side(pick(0, 1));
  // The contracting dimensions pair up in a random order of their own.
  std::vector<size_t> order(contract.size());
  std::iota(order.begin(), order.end(), 0);
  if (order.size() == 2 && chance(50))
    std::swap(order[0], order[1]);
  Val to{"", out, {}};
  for (int64_t e : batch)
    to.shape.push_back(e);
  auto build = [&](const std::vector<std::pair<int, size_t>>& dims, std::vector<int64_t>& b,
                   std::vector<int64_t>& c) {
    core::Shape s;
    b.assign(batch.size(), 0);
    c.assign(contract.size(), 0);
    for (size_t d = 0; d < dims.size(); ++d) {
      auto [role, which] = dims[d];
      if (role == 0) {
        s.push_back(batch[which]);
        b[which] = static_cast<int64_t>(d);
      } else if (role == 1) {
        s.push_back(contract[which]);
        c[which] = static_cast<int64_t>(d);
      } else {
        s.push_back(extent());
        to.shape.push_back(s.back());
      }
    }
    std::vector<int64_t> ordered;
    for (size_t i : order)
      ordered.push_back(c[i]);
    c = ordered;
    return s;
  };
  std::vector<int64_t> lb, lc, rb, rc;
  core::Shape ls = build(ldims, lb, lc), rs = build(rdims, rb, rc);
  Val a = operand(t, &ls), b = operand(t, &rs);
  std::string types = " : (" + type_of(a) + ", " + type_of(b) + ") -> " + type_of(to);
  if (pretty) {
    std::string dims;
    if (!lb.empty() || chance(20))
      dims += ", batching_dims = " + ints(lb, true) + " x " + ints(rb, true);
    if (!lc.empty() || dims.empty())
      dims += ", contracting_dims = " + ints(lc, true) + " x " + ints(rc, true);
    define("stablehlo.dot_general " + a.name + ", " + b.name + dims +
               (chance(50) ? ", precision = [DEFAULT, DEFAULT]" : "") + types,
           {to});
    return;
  }
  std::string numbers;
  auto list = [&](const char* name, const std::vector<int64_t>& v) {
    if (!v.empty() || chance(20))
      numbers += (numbers.empty() ? "" : ", ") + std::string(name) + " = " + ints(v, true);
  };
  list("lhs_batching_dimensions", lb);
  list("rhs_batching_dimensions", rb);
  list("lhs_contracting_dimensions", lc);
  list("rhs_contracting_dimensions", rc);
  std::string d = dialect();
  define("\"" + d + "dot_general\"(" + a.name + ", " + b.name + ") {dot_dimension_numbers = #" +
             d.substr(0, d.size() - 1) + ".dot<" + numbers + ">" +
             (chance(50) ? ", precision_config = [#" + d.substr(0, d.size() - 1) +
                               "<precision DEFAULT>, #" + d.substr(0, d.size() - 1) +
                               "<precision HIGHEST>]"
                         : "") +
             "}" + types,
         {to});
}

void MlirBuilder::convolution() {
  DType t = number_dtype();
  DType out = t;
  if (chance(20))
    out = core::is_float(t) ? float_dtype() : one_of(kIntegerDTypes);
  const size_t spatial = static_cast<size_t>(pick(0, 2)), rank = spatial + 2;
  // Each operand's dimensions: 0 batch (kernel input feature), 1 feature
  // (kernel output feature), 2 + s spatial s, in a random order.
  auto places = [&] {
    std::vector<int64_t> at(rank);
    std::iota(at.begin(), at.end(), 0);
    for (size_t i = rank; i > 1; --i)
      std::swap(at[i - 1], at[static_cast<size_t>(pick(0, static_cast<int>(i) - 1))]);
    return at; // at[role] = dimension
  };
  std::vector<int64_t> in = places(), kernel = places(), result = places();
  const int64_t feature_groups = chance(25) ? pick(2, 3) : 1;
  const int64_t batch_groups = feature_groups == 1 && chance(25) ? 2 : 1;
  auto small = [] { return static_cast<int64_t>(chance(8) ? 0 : pick(1, 3)); };
  const int64_t kernel_in = small(), out_features = feature_groups * batch_groups * pick(1, 2);
  core::Shape ls(rank), rs(rank), os(rank);
  ls[static_cast<size_t>(in[0])] = batch_groups * small();
  ls[static_cast<size_t>(in[1])] = feature_groups * kernel_in;
  rs[static_cast<size_t>(kernel[0])] = kernel_in;
  rs[static_cast<size_t>(kernel[1])] = out_features;
  os[static_cast<size_t>(result[0])] = ls[static_cast<size_t>(in[0])] / batch_groups;
  os[static_cast<size_t>(result[1])] = out_features;
  std::vector<int64_t> strides, low, high, lhs_dilation, rhs_dilation, reversal;
  for (size_t s = 0; s < spatial; ++s) {
    int64_t x = chance(8) ? 0 : pick(1, 5), k = chance(8) ? 0 : pick(1, 3);
    strides.push_back(pick(1, 3));
    lhs_dilation.push_back(chance(30) ? 2 : 1);
    rhs_dilation.push_back(chance(30) ? 2 : 1);
    reversal.push_back(chance(20));
    int64_t dilated = x == 0 ? 0 : (x - 1) * lhs_dilation.back() + 1;
    low.push_back(pick(-1, 2));
    high.push_back(pick(-1, 2));
    if (dilated + low.back() + high.back() < 0)
      low.back() = high.back() = 0;
    int64_t padded = dilated + low.back() + high.back();
    int64_t window = k == 0 ? 0 : (k - 1) * rhs_dilation.back() + 1;
    ls[static_cast<size_t>(in[2 + s])] = x;
    rs[static_cast<size_t>(kernel[2 + s])] = k;
    os[static_cast<size_t>(result[2 + s])] =
        padded == 0 || window > padded ? 0 : (padded - window) / strides.back() + 1;
  }
  Val a = operand(t, &ls), b = operand(t, &rs);
  Val to{"", out, os};
  std::string types = " : (" + type_of(a) + ", " + type_of(b) + ") -> " + type_of(to);
  // `[b, 0, 1, f]`: each dimension's role.
  auto letters = [&](const std::vector<int64_t>& at, const char* batch, const char* feature) {
    std::vector<std::string> item(rank);
    item[static_cast<size_t>(at[0])] = batch;
    item[static_cast<size_t>(at[1])] = feature;
    for (size_t s = 0; s < spatial; ++s)
      item[static_cast<size_t>(at[2 + s])] = std::to_string(s);
    std::string text;
    for (size_t d = 0; d < rank; ++d)
      text += (d ? ", " : "") + item[d];
    return "[" + text + "]";
  };
  std::string numbers =
      letters(in, "b", "f") + "x" + letters(kernel, "i", "o") + "->" + letters(result, "b", "f");
  std::vector<int64_t> padding;
  std::string pads; // [[low, high], ...]
  for (size_t s = 0; s < spatial; ++s) {
    padding.insert(padding.end(), {low[s], high[s]});
    pads += (s ? ", " : "") + ints({low[s], high[s]}, true);
  }
  auto bools = [](const std::vector<int64_t>& v, bool pretty) {
    std::string text;
    for (size_t i = 0; i < v.size(); ++i)
      text += (i ? ", " : "") + std::string(v[i] ? "true" : "false");
    return pretty ? "[" + text + "]" : "array<i1" + (v.empty() ? "" : ": " + text) + ">";
  };
  std::string groups = "feature_group_count = " + std::to_string(feature_groups) +
                       " : i64, batch_group_count = " + std::to_string(batch_groups) + " : i64";
  if (chance(50)) {
    std::string window;
    auto entry = [&](const char* name, const std::string& value, bool needed) {
      if (needed || chance(50))
        window += (window.empty() ? "" : ", ") + std::string(name) + " = " + value;
    };
    auto any = [](const std::vector<int64_t>& v, int64_t fallback) {
      return std::any_of(v.begin(), v.end(), [&](int64_t x) { return x != fallback; });
    };
    entry("stride", ints(strides, true), any(strides, 1));
    entry("pad", "[" + pads + "]", any(padding, 0));
    entry("lhs_dilate", ints(lhs_dilation, true), any(lhs_dilation, 1));
    entry("rhs_dilate", ints(rhs_dilation, true), any(rhs_dilation, 1));
    entry("reverse", bools(reversal, true), any(reversal, 0));
    define(std::string(chance(50) ? "stablehlo" : "mhlo") + ".convolution(" + a.name + ", " +
               b.name + ") dim_numbers = " + numbers + ", window = {" + window + "} {" + groups +
               "}" + types,
           {to});
    return;
  }
  std::string d = dialect(), prefix = d.substr(0, d.size() - 1);
  if (chance(25)) { // the raw spelling of the numbers
    auto list = [&](const std::vector<int64_t>& at) {
      return ints(std::vector<int64_t>(at.begin() + 2, at.end()), true);
    };
    numbers = "raw input_batch_dimension = " + std::to_string(in[0]) +
              ", input_feature_dimension = " + std::to_string(in[1]) +
              ", input_spatial_dimensions = " + list(in) +
              ", kernel_input_feature_dimension = " + std::to_string(kernel[0]) +
              ", kernel_output_feature_dimension = " + std::to_string(kernel[1]) +
              ", kernel_spatial_dimensions = " + list(kernel) +
              ", output_batch_dimension = " + std::to_string(result[0]) +
              ", output_feature_dimension = " + std::to_string(result[1]) +
              ", output_spatial_dimensions = " + list(result);
  }
  std::string attrs = "dimension_numbers = #" + prefix + ".conv<" + numbers + ">, " + groups;
  if (spatial > 0 || chance(50)) {
    attrs += ", window_strides = " + ints(strides, false) +
             ", lhs_dilation = " + ints(lhs_dilation, false) +
             ", rhs_dilation = " + ints(rhs_dilation, false);
    attrs += ", padding = dense<" + (spatial ? "[" + pads + "]" : "0") + "> : tensor<" +
             std::to_string(spatial) + "x2xi64>";
    if (chance(50))
      attrs += ", window_reversal = " + bools(reversal, false);
  }
  define("\"" + d + "convolution\"(" + a.name + ", " + b.name + ") {" + attrs + "}" + types, {to});
}

// reduce of one input over some of its dimensions (listed in any order)
// with a body of add, multiply, maximum, minimum (any type but i1 for
// add and multiply) or the logical and, or (i1), in the pretty `applies`
// form or with the body as a region; the initial value a constant (the
// body's identity, -0, infinities) or an argument.
void MlirBuilder::reduction() {
  const bool logical = chance(15);
  Val x = logical ? operand(DType::Bool) : operand(chance(30) ? DType::Bool : number_dtype());
  std::vector<std::string> bodies = {"maximum", "minimum"};
  if (x.dtype == DType::Bool)
    bodies.insert(bodies.end(), {"and", "or"});
  else
    bodies.insert(bodies.end(), {"add", "multiply"});
  const std::string body = one_of(bodies);
  std::vector<int64_t> dims;
  Val to{"", x.dtype, {}};
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (chance(50))
      dims.push_back(static_cast<int64_t>(d));
    else
      to.shape.push_back(x.shape[d]);
  for (size_t i = dims.size(); i > 1; --i)
    std::swap(dims[i - 1], dims[static_cast<size_t>(pick(0, static_cast<int>(i) - 1))]);
  Val init{"", x.dtype, {}};
  if (chance(30)) {
    init = operand(x.dtype, &kScalar);
  } else {
    std::string value = x.dtype == DType::Bool ? (body == "and" ? "true" : "false")
                        : core::is_float(x.dtype)
                            ? one_of(std::vector<std::string>{"0.0", "-0.0", "1.0", "0xFF800000",
                                                              "0x7F800000", "-2.5"})
                            : one_of(std::vector<std::string>{"0", "1", "-1"});
    if (value == "-1" && core::is_unsigned(x.dtype)) // the largest value
      value = std::to_string(core::int_max(x.dtype));
    if (value.starts_with("0x") && x.dtype != DType::Float32)
      value = value == "0xFF800000" ? "-1.0e+04" : "1.0e+04";
    init.name = define("stablehlo.constant dense<" + value + "> : " + type_of(init), {init})[0];
    values_.back().read = true;
  }
  std::string d = dialect(), scalar = type_of(x.dtype, {});
  bool swapped = chance(50);
  if (chance(30)) { // reduce_window: a window in every dimension
    std::vector<int64_t> window, strides, base, dilations, padding;
    to.shape.clear();
    for (int64_t e : x.shape) {
      window.push_back(pick(1, 3));
      strides.push_back(pick(1, 2));
      base.push_back(chance(25) ? 2 : 1);
      dilations.push_back(chance(25) ? 2 : 1);
      int64_t dilated = e == 0 ? 0 : (e - 1) * base.back() + 1;
      int64_t low = pick(-1, 2), high = pick(-1, 2);
      if (dilated + low + high < 0)
        low = high = 0;
      padding.insert(padding.end(), {low, high});
      int64_t padded = dilated + low + high, extent = (window.back() - 1) * dilations.back() + 1;
      to.shape.push_back(padded == 0 || extent > padded ? 0
                                                        : (padded - extent) / strides.back() + 1);
    }
    std::string pads;
    for (size_t i = 0; i < x.shape.size(); ++i)
      pads += (i ? ", " : "") + ints({padding[2 * i], padding[2 * i + 1]}, true);
    std::string attrs = "window_dimensions = " + ints(window, false);
    auto optional = [&](const char* name, const std::vector<int64_t>& v) {
      if (std::any_of(v.begin(), v.end(), [](int64_t a) { return a != 1; }) || chance(30))
        attrs += std::string(", ") + name + " = " + ints(v, false);
    };
    optional("window_strides", strides);
    optional("base_dilations", base);
    optional("window_dilations", dilations);
    if (std::any_of(padding.begin(), padding.end(), [](int64_t a) { return a != 0; }) || chance(30))
      attrs += ", padding = dense<" + (x.shape.empty() ? "0" : "[" + pads + "]") + "> : tensor<" +
               std::to_string(x.shape.size()) + "x2xi64>";
    define("\"" + d + "reduce_window\"(" + x.name + ", " + init.name +
               ") ({\n  ^bb0(%lhs: " + scalar + ", %rhs: " + scalar + "):\n    %r = \"" + d + body +
               "\"(" + (swapped ? "%rhs, %lhs" : "%lhs, %rhs") + ") : (" + scalar + ", " + scalar +
               ") -> " + scalar + "\n    \"" + d + "return\"(%r) : (" + scalar + ") -> ()\n  }) {" +
               attrs + "} : (" + type_of(x) + ", " + type_of(init) + ") -> " + type_of(to),
           {to});
    return;
  }
  std::string types = " : (" + type_of(x) + ", " + type_of(init) + ") -> " + type_of(to);
  switch (pick(0, 2)) {
  case 0:
    define("stablehlo.reduce(" + x.name + " init: " + init.name + ") applies " + d + body +
               " across dimensions = " + ints(dims, true) + types,
           {to});
    return;
  case 1:
    define("stablehlo.reduce(" + x.name + " init: " + init.name + ") across dimensions = " +
               ints(dims, true) + types + "\n   reducer(%lhs: " + scalar + ", %rhs: " + scalar +
               ") {\n    %r = stablehlo." + body + " " + (swapped ? "%rhs, %lhs" : "%lhs, %rhs") +
               " : " + scalar + "\n    stablehlo.return %r : " + scalar + "\n  }",
           {to});
    return;
  default:
    break;
  }
  define("\"" + d + "reduce\"(" + x.name + ", " + init.name + ") ({\n  ^bb0(%lhs: " + scalar +
             ", %rhs: " + scalar + "):\n    %r = \"" + d + body + "\"(" +
             (swapped ? "%rhs, %lhs" : "%lhs, %rhs") + ") : (" + scalar + ", " + scalar + ") -> " +
             scalar + "\n    \"" + d + "return\"(%r) : (" + scalar +
             ") -> ()\n  }) {dimensions = " + ints(dims, false) + "}" + types,
         {to});
}

} // namespace teval::verify::mlir_gen
