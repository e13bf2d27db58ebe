// CHLO's ops that are StableHLO ops with sugar (the CHLO dialect's
// ChloOps.td, and its legalization to StableHLO): the broadcasting binary
// ops (chlo.broadcast_add ...), read as broadcast_in_dim of the operands
// that need it and then the StableHLO op, and chlo.square, chlo.conj,
// chlo.constant_like and chlo.ragged_dot, read as the compositions CHLO
// defines them as. So every engine, the oracle and --dump-values see the
// ops they stand for.
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"

#include <algorithm>
#include <utility>

namespace teval::parser::mlir_detail {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::GraphNode;
using core::GraphOp;
using core::ValueType;

int add_node(core::Graph& g, core::Span span, GraphOp op, std::vector<int> operands,
             const ValueType& t, const std::string& path,
             std::map<std::string, core::GraphAttr> attrs) {
  GraphNode n;
  n.op = op;
  n.operands = std::move(operands);
  n.attrs = std::move(attrs);
  n.span = span;
  const int id = g.add_value(t, path);
  g.value_paths.emplace(path, id);
  n.results.push_back(id);
  g.nodes.push_back(std::move(n));
  return id;
}

namespace {

const ValueType& type_of(const core::Graph& g, int v) {
  return g.values[static_cast<size_t>(v)];
}

} // namespace

void chlo_broadcast(OpSite& site, core::Graph& g, const std::string& prefix) {
  const size_t n = site.operands.size();
  if (n < 2)
    return; // the op's own reading reports the count
  std::vector<ValueType> in;
  for (int v : site.operands)
    in.push_back(type_of(g, v));
  size_t rank = 0;
  for (const ValueType& t : in)
    rank = std::max(rank, t.shape.size());
  // Where each operand's dimensions go in the result: broadcast_dimensions
  // for the operand of lower rank, else aligned to the trailing dimensions
  // ("numpy" rank broadcasting, ChloOps.td).
  std::vector<std::vector<int64_t>> where(n);
  std::optional<std::vector<int64_t>> explicit_dims;
  if (find(site, "broadcast_dimensions", false))
    explicit_dims = ints_attr(site, "broadcast_dimensions");
  const core::Span attr_span =
      explicit_dims ? find(site, "broadcast_dimensions", true)->span : site.attrs_span;
  if (explicit_dims && n != 2)
    throw Error(ErrorKind::Shape, attr_span, site.call->callee + " has no broadcast_dimensions");
  for (size_t i = 0; i < n; ++i) {
    const size_t r = in[i].shape.size();
    // The operand of lower rank takes the explicit mapping; of two of one
    // rank, the mapping must be the identity.
    const bool mapped = explicit_dims && (r < rank || in[0].shape.size() == in[1].shape.size());
    if (mapped && explicit_dims->size() != r)
      throw Error(ErrorKind::Shape, attr_span,
                  "broadcast_dimensions has " + std::to_string(explicit_dims->size()) +
                      " entries; it maps the dimensions of the operand of lower rank, " +
                      type_string(in[i]) + ", which has " + std::to_string(r));
    for (size_t k = 0; k < r; ++k)
      where[i].push_back(mapped ? (*explicit_dims)[k] : static_cast<int64_t>(rank - r + k));
    if (mapped && r == rank)
      for (size_t k = 0; k < r; ++k)
        if (where[i][k] != static_cast<int64_t>(k))
          throw Error(ErrorKind::Shape, attr_span,
                      "broadcast_dimensions of operands of one rank must be the identity");
    std::vector<int64_t> seen;
    for (int64_t d : where[i]) {
      if (d < 0 || d >= static_cast<int64_t>(rank) ||
          std::find(seen.begin(), seen.end(), d) != seen.end())
        throw Error(ErrorKind::Shape, attr_span,
                    "broadcast_dimensions must be distinct dimensions of the result's rank " +
                        std::to_string(rank) + ", not " + std::to_string(d));
      seen.push_back(d);
    }
  }
  // The result's extents: an extent of 1 stretches to the other's.
  core::Shape extents(rank, 1);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < where[i].size(); ++k) {
      const auto d = static_cast<size_t>(where[i][k]);
      const int64_t e = in[i].shape[k];
      if (extents[d] == 1) {
        extents[d] = e;
      } else if (e != 1 && e != extents[d]) {
        std::string all;
        for (const ValueType& t : in)
          all += (all.empty() ? "" : ", ") + type_string(t);
        throw Error(ErrorKind::Shape, site.span,
                    site.call->callee + "'s operands " + all + " do not broadcast: dimension " +
                        std::to_string(d) + " of the result is " + std::to_string(extents[d]) +
                        " in one and " + std::to_string(e) + " in another");
      }
    }
  static const char* const kNames[] = {"lhs", "rhs", "third"};
  static const char* const kSelectNames[] = {"pred", "on_true", "on_false"};
  for (size_t i = 0; i < n; ++i) {
    if (in[i].shape == extents)
      continue;
    ValueType t = in[i];
    t.shape = extents;
    const std::string name = (site.op == GraphOp::Select ? kSelectNames : kNames)[std::min(i, 2ul)];
    site.operands[i] = add_node(g, site.span, GraphOp::BroadcastInDim, {site.operands[i]}, t,
                                prefix + name + "_bcast", {{"dims", where[i]}});
    site.declared_ins[i] = t;
  }
  site.attrs.erase("broadcast_dimensions");
  site.attr_names.erase("broadcast_dimensions");
  // CHLO's compare_type NOTYPE is no type: the element type's (StableHLO
  // compare's (C3)).
  if (site.op == GraphOp::Compare &&
      enum_word(site, "compare_type", site.positional.size()) == "NOTYPE") { // by name only
    site.attrs.erase("compare_type");
    site.attr_names.erase("compare_type");
  }
}

bool is_chlo_composition(const std::string& name) {
  return name == "chlo.square" || name == "chlo.conj" || name == "chlo.constant_like" ||
         name == "chlo.ragged_dot";
}

namespace {

// chlo.ragged_dot as CHLO's legalization defines it: mode 1 (the ragged
// dimension a non-contracting one of lhs, rhs with a group dimension) the
// sum over the groups g of dot_general(lhs masked to g's rows, rhs's group
// g); mode 2 (the ragged dimension a contracting one) the groups' dot
// products of lhs masked to g's part of it, stacked along a new leading
// dimension; mode 3 (a batching one) plain dot_general. A group's rows
// start where the previous group's end (group_sizes' prefix sums, per
// batch where group_sizes has batch dimensions: lhs's leading ones).
std::vector<int> ragged_dot(const OpSite& site, core::Graph& g, const std::string& prefix) {
  if (site.operands.size() != 3)
    throw Error(ErrorKind::Shape, site.span,
                "chlo.ragged_dot takes lhs, rhs and group_sizes, not " +
                    std::to_string(site.operands.size()) + " operands");
  only(site, {"ragged_dot_dimension_numbers", "precision_config"});
  if (site.declared_outs.size() != 1)
    throw Error(ErrorKind::Shape, site.span, "chlo.ragged_dot has one result");
  const int lhs = site.operands[0], rhs = site.operands[1], sizes = site.operands[2];
  const ValueType lt = type_of(g, lhs), rt = type_of(g, rhs), st = type_of(g, sizes);
  const ValueType& out = site.declared_outs[0];
  const ast::Expr* e = find(site, "ragged_dot_dimension_numbers", true);
  auto fields = dialect_fields(text(*e));
  auto fail = [&](const std::string& why) {
    return Error(ErrorKind::Shape, e->span,
                 "chlo.ragged_dot of " + type_string(lt) + " and " + type_string(rt) + ": " + why);
  };
  if (!fields)
    throw fail("its dimension numbers are written #chlo.ragged_dot<lhs_batching_dimensions = "
               "[...], ...>");
  for (const auto& [key, _] : *fields)
    if (key != "lhs_batching_dimensions" && key != "rhs_batching_dimensions" &&
        key != "lhs_contracting_dimensions" && key != "rhs_contracting_dimensions" &&
        key != "lhs_ragged_dimensions" && key != "rhs_group_dimensions")
      throw fail("`" + key + "` is not one of its dimension numbers");
  DotNumbers n{(*fields)["lhs_batching_dimensions"], (*fields)["rhs_batching_dimensions"],
               (*fields)["lhs_contracting_dimensions"], (*fields)["rhs_contracting_dimensions"]};
  const std::vector<int64_t> ragged = (*fields)["lhs_ragged_dimensions"];
  const std::vector<int64_t> group = (*fields)["rhs_group_dimensions"];
  const int mode = lt.shape.size() < rt.shape.size()    ? 1
                   : lt.shape.size() < out.shape.size() ? 2
                                                        : 3;
  if (ragged.size() != 1 || ragged[0] < 0 || ragged[0] >= static_cast<int64_t>(lt.shape.size()))
    throw fail("lhs_ragged_dimensions must name one dimension of lhs");
  if (group.size() != (mode == 1 ? 1u : 0u) ||
      (mode == 1 && (group[0] < 0 || group[0] >= static_cast<int64_t>(rt.shape.size()))))
    throw fail(mode == 1 ? "rhs, of a rank above lhs's, needs one rhs_group_dimensions"
                         : "rhs_group_dimensions is for an rhs of a rank above lhs's");
  if (!core::is_integer(st.dtype) || st.dtype == DType::Bool || st.shape.empty())
    throw Error(ErrorKind::Type, site.span,
                "chlo.ragged_dot's group_sizes must be an integer tensor of rank 1 or more, not " +
                    type_string(st));
  const size_t batch_rank = st.shape.size() - 1;
  const int64_t groups = st.shape.back();
  for (size_t d = 0; d < batch_rank; ++d)
    if (d >= lt.shape.size() || lt.shape[d] != st.shape[d])
      throw fail("group_sizes " + type_string(st) +
                 " has batch dimensions that are not lhs's leading ones");
  if (mode == 1 && rt.shape[static_cast<size_t>(group[0])] != groups)
    throw fail("rhs's group dimension has " +
               std::to_string(rt.shape[static_cast<size_t>(group[0])]) + " groups, group_sizes " +
               std::to_string(groups));
  const bool in_contract = std::count(n.lhs_contract.begin(), n.lhs_contract.end(), ragged[0]) != 0;
  const bool in_batch = std::count(n.lhs_batch.begin(), n.lhs_batch.end(), ragged[0]) != 0;
  if ((mode == 1 && (in_contract || in_batch)) || (mode == 2 && !in_contract) ||
      (mode == 3 && !in_batch))
    throw fail("the ragged dimension must be a non-contracting dimension of lhs (rhs with a group "
               "dimension), a contracting one (a result with a group dimension) or a batching "
               "one");
  // A dot_general node of \p a and \p b: its type as dot_general's own.
  auto dot = [&](int a, int b, const DotNumbers& numbers, const std::string& name) {
    OpSite dot_site = site;
    dot_site.op = GraphOp::DotGeneral;
    dot_site.attrs.clear();
    GraphNode typed;
    const ValueType t = dot_meaning(dot_site, type_of(g, a), type_of(g, b), typed, &numbers);
    return add_node(g, site.span, GraphOp::DotGeneral, {a, b}, t, prefix + name, typed.attrs);
  };
  if (mode == 3)
    return {dot(lhs, rhs, n, "dot")};
  const ValueType index{DType::Int64, lt.shape};
  core::Shape iota_shape(lt.shape.size(), 1);
  iota_shape[static_cast<size_t>(ragged[0])] = lt.shape[static_cast<size_t>(ragged[0])];
  std::vector<int64_t> all(lt.shape.size());
  for (size_t d = 0; d < all.size(); ++d)
    all[d] = static_cast<int64_t>(d);
  const int iota = add_node(g, site.span, GraphOp::BroadcastInDim,
                            {add_node(g, site.span, GraphOp::Iota, {}, {DType::Int64, iota_shape},
                                      prefix + "iota", {{"dimension", ragged[0]}})},
                            index, prefix + "iota_bcast", {{"dims", all}});
  const core::Shape batch(st.shape.begin(), st.shape.end() - 1);
  const std::vector<int64_t> batch_dims(all.begin(), all.begin() + static_cast<long>(batch_rank));
  auto zeros = [&](const ValueType& t, const std::string& name) {
    return add_node(g, site.span, GraphOp::Constant, {}, t, prefix + name,
                    {{"value", core::Tensor(t.dtype, t.shape)}});
  };
  const int zero = zeros({lt.dtype, lt.shape}, "zero");
  int start = zeros({DType::Int64, batch}, "start");
  DotNumbers group_numbers = n;
  if (mode == 1) // rhs without its group dimension
    for (std::vector<int64_t>* dims : {&group_numbers.rhs_batch, &group_numbers.rhs_contract})
      for (int64_t& d : *dims)
        d -= d > group[0] ? 1 : 0;
  int sum = -1;
  std::vector<int> stacked;
  for (int64_t i = 0; i < groups; ++i) {
    const std::string at = "group" + std::to_string(i) + "_";
    std::vector<int64_t> from(st.shape.size(), 0), one(st.shape.size(), 1);
    from.back() = i;
    core::Shape slice_shape = batch;
    slice_shape.push_back(1);
    int size = add_node(g, site.span, GraphOp::Reshape,
                        {add_node(g, site.span, GraphOp::Slice, {sizes}, {st.dtype, slice_shape},
                                  prefix + at + "size_slice", {{"start", from}, {"strides", one}})},
                        {st.dtype, batch}, prefix + at + "size_reshape");
    if (st.dtype != DType::Int64)
      size = add_node(g, site.span, GraphOp::Convert, {size}, {DType::Int64, batch},
                      prefix + at + "size");
    const int limit = add_node(g, site.span, GraphOp::Add, {start, size}, {DType::Int64, batch},
                               prefix + at + "limit");
    auto spread = [&](int v, const std::string& name) {
      return add_node(g, site.span, GraphOp::BroadcastInDim, {v}, index, prefix + at + name,
                      {{"dims", batch_dims}});
    };
    auto compare = [&](int a, int b, const char* direction, const std::string& name) {
      return add_node(
          g, site.span, GraphOp::Compare, {a, b}, {DType::Bool, lt.shape}, prefix + at + name,
          {{"direction", std::string(direction)}, {"compare_type", std::string("SIGNED")}});
    };
    const int mask = add_node(g, site.span, GraphOp::And,
                              {compare(iota, spread(start, "start_bcast"), "GE", "from"),
                               compare(iota, spread(limit, "limit_bcast"), "LT", "to")},
                              {DType::Bool, lt.shape}, prefix + at + "mask");
    const int masked = add_node(g, site.span, GraphOp::Select, {mask, lhs, zero},
                                {lt.dtype, lt.shape}, prefix + at + "lhs");
    if (mode == 1) {
      std::vector<int64_t> rfrom(rt.shape.size(), 0), rone(rt.shape.size(), 1);
      rfrom[static_cast<size_t>(group[0])] = i;
      core::Shape rslice = rt.shape, rshape;
      rslice[static_cast<size_t>(group[0])] = 1;
      for (size_t d = 0; d < rt.shape.size(); ++d)
        if (static_cast<int64_t>(d) != group[0])
          rshape.push_back(rt.shape[d]);
      const int rhs_g =
          add_node(g, site.span, GraphOp::Reshape,
                   {add_node(g, site.span, GraphOp::Slice, {rhs}, {rt.dtype, rslice},
                             prefix + at + "rhs_slice", {{"start", rfrom}, {"strides", rone}})},
                   {rt.dtype, rshape}, prefix + at + "rhs");
      const int d = dot(masked, rhs_g, group_numbers, at + "dot");
      sum = sum < 0 ? d
                    : add_node(g, site.span, GraphOp::Add, {sum, d}, type_of(g, d),
                               prefix + at + "sum");
    } else {
      const int d = dot(masked, rhs, n, at + "dot");
      ValueType one_more = type_of(g, d);
      one_more.shape.insert(one_more.shape.begin(), 1);
      stacked.push_back(
          add_node(g, site.span, GraphOp::Reshape, {d}, one_more, prefix + at + "dot_reshape"));
    }
    start = limit;
  }
  if (mode == 1) {
    if (sum < 0) // no group: nothing is multiplied
      return {zeros(out, "result")};
    return {sum};
  }
  if (stacked.empty())
    return {zeros(out, "result")};
  ValueType all_groups = type_of(g, stacked[0]);
  all_groups.shape[0] = groups;
  return {add_node(g, site.span, GraphOp::Concatenate, stacked, all_groups, prefix + "result",
                   {{"dimension", int64_t{0}}})};
}

} // namespace

std::vector<int> chlo_composition(const OpSite& site, core::Graph& g, const std::string& prefix) {
  if (site.name == "chlo.ragged_dot")
    return ragged_dot(site, g, prefix);
  if (site.operands.size() != 1)
    throw Error(ErrorKind::Shape, site.span,
                site.name + " takes one operand, not " + std::to_string(site.operands.size()));
  const int x = site.operands[0];
  const ValueType t = type_of(g, x);
  if (site.name == "chlo.constant_like") {
    // A splat of `value` (of the operand's element type) in the operand's
    // shape.
    only(site, {"value"});
    const ast::Expr* v = find(site, "value", true);
    const Typed written = typed(*v);
    if (written.type && element_type(text(*written.type)) != t.dtype)
      throw Error(ErrorKind::Type, v->span,
                  "chlo.constant_like's value is of " + text(*written.type) + "; its operand is " +
                      type_string(t));
    const core::Scalar s = element_value(*written.value, t.dtype);
    core::Tensor c(t.dtype, t.shape);
    for (int64_t i = 0; i < c.numel(); ++i)
      c.set(i, s);
    return {add_node(g, site.span, GraphOp::Constant, {}, {t.dtype, t.shape}, prefix + "value",
                     {{"value", std::move(c)}})};
  }
  only(site, {});
  if (t.quant || !(core::is_float(t.dtype) || core::is_complex(t.dtype)))
    throw Error(ErrorKind::Type, site.span,
                site.name + " takes float or complex values, not " + type_string(t));
  if (site.name == "chlo.square") {
    if (!core::is_complex(t.dtype)) // x * x
      return {add_node(g, site.span, GraphOp::Multiply, {x, x}, t, prefix + "square")};
    // complex((re - im) * (re + im), re * im * 2), as ChloOps.td defines it.
    const ValueType part{core::complex_part(t.dtype), t.shape};
    const int re = add_node(g, site.span, GraphOp::Real, {x}, part, prefix + "real");
    const int im = add_node(g, site.span, GraphOp::Imag, {x}, part, prefix + "imag");
    const int difference =
        add_node(g, site.span, GraphOp::Subtract, {re, im}, part, prefix + "difference");
    const int sum = add_node(g, site.span, GraphOp::Add, {re, im}, part, prefix + "sum");
    const int real =
        add_node(g, site.span, GraphOp::Multiply, {difference, sum}, part, prefix + "square_real");
    const int product =
        add_node(g, site.span, GraphOp::Multiply, {re, im}, part, prefix + "product");
    core::Tensor two(part.dtype, part.shape);
    for (int64_t i = 0; i < two.numel(); ++i)
      two.set(i, core::Scalar::of_float(part.dtype, 2.0));
    const int twos =
        add_node(g, site.span, GraphOp::Constant, {}, part, prefix + "two", {{"value", two}});
    const int imag =
        add_node(g, site.span, GraphOp::Multiply, {product, twos}, part, prefix + "square_imag");
    return {add_node(g, site.span, GraphOp::Complex, {real, imag}, t, prefix + "square")};
  }
  // chlo.conj: a float is its own conjugate; a complex value's imaginary
  // part is negated.
  if (!core::is_complex(t.dtype))
    return {x};
  const ValueType part{core::complex_part(t.dtype), t.shape};
  const int re = add_node(g, site.span, GraphOp::Real, {x}, part, prefix + "real");
  const int im = add_node(g, site.span, GraphOp::Imag, {x}, part, prefix + "imag");
  const int negated = add_node(g, site.span, GraphOp::Negate, {im}, part, prefix + "negated_imag");
  return {add_node(g, site.span, GraphOp::Complex, {re, negated}, t, prefix + "conj")};
}

} // namespace teval::parser::mlir_detail
