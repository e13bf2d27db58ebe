// The meaning of StableHLO's layout, selection and comparison ops
// (docs/SEMANTICS.md, "StableHLO's layout, selection and comparison ops"):
// the OpMeaning methods mlir_meaning.h lists for them.
#include "parser/mlir/mlir_meaning.h"

#include "core/format.h"
#include "core/kernel.h"

#include <algorithm>

namespace teval::parser::mlir_detail {

// bitcast_convert's result type (spec (C1)): the declared one, its
// shape the operand's, with a trailing dimension of as many narrower
// elements as one operand element holds, or without the operand's
// trailing dimension of narrower elements making one.
ValueType OpMeaning::bitcast_type(const OpSite& site, const ValueType& x) {
  if (site.declared_outs.size() != 1)
    throw Error(ErrorKind::Shape, site.span, "bitcast_convert has one result");
  const ValueType& out = site.declared_outs[0];
  // In bits; an i1 is one (spec "bitcast_convert").
  auto bits = [](DType t) {
    return t == DType::Bool ? int64_t{1} : 8 * static_cast<int64_t>(core::size_bytes(t));
  };
  const int64_t from = bits(x.dtype), to = bits(out.dtype);
  core::Shape shape = x.shape;
  if (to < from) {
    shape.push_back(from / to);
  } else if (to > from) {
    if (shape.empty() || shape.back() * from != to)
      throw Error(ErrorKind::Shape, site.span,
                  "bitcast_convert of " + type_string(x) + " to " + core::to_string(out.dtype) +
                      " needs a trailing dimension of " + std::to_string(to / from) +
                      " elements (C1)");
    shape.pop_back();
  }
  return ValueType{out.dtype, shape};
}

// Rank-0 or the same shape as operand \p like: select's pred, clamp's
// bounds.
void OpMeaning::scalar_or_same(const OpSite& site, size_t i, size_t like, const char* what) {
  const Shape& s = operand(site, i).shape;
  if (!s.empty() && s != operand(site, like).shape)
    throw Error(ErrorKind::Shape, site.span,
                std::string(core::graph_op_name(site.op)) + "'s " + what + " is " +
                    type_string(operand(site, i)) + ": a rank-0 tensor or one of shape " +
                    core::to_string(operand(site, like).shape) + " is needed");
}

std::vector<ValueType> OpMeaning::compare(const OpSite& site, GraphNode& node) {
  arity(site, 2);
  only(site, {"comparison_direction", "compare_type"});
  const ValueType& a = one_type(site);
  std::optional<std::string> direction = enum_word(site, "comparison_direction", 0);
  if (!direction)
    throw Error(ErrorKind::Type, site.attrs_span, "compare needs its comparison_direction");
  static const std::array<const char*, 6> kDirections = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  if (std::find(kDirections.begin(), kDirections.end(), *direction) == kDirections.end())
    throw Error(ErrorKind::Type, site.attrs_span,
                "comparison_direction " + *direction + "; it is one of EQ, NE, GE, GT, LE, LT");
  // The spec's (C3): the type follows the element type; floats may ask
  // for TOTALORDER.
  std::string fixed = core::is_float(a.dtype) || core::is_complex(a.dtype) ? "FLOAT"
                      : core::kind(a.dtype) == core::DTypeKind::Signed     ? "SIGNED"
                                                                           : "UNSIGNED";
  std::string type = enum_word(site, "compare_type", 1).value_or(fixed);
  if (type != fixed && !(core::is_float(a.dtype) && type == "TOTALORDER"))
    throw Error(ErrorKind::Type, site.attrs_span,
                "compare_type " + type + " does not fit " + type_string(a) + ": it is " + fixed +
                    (core::is_float(a.dtype) ? " or TOTALORDER" : ""));
  node.attrs["direction"] = *direction;
  node.attrs["compare_type"] = type;
  return {ValueType{DType::Bool, a.shape}};
}

// select(pred, on_true, on_false) and clamp(min, operand, max): the
// result is operand 1's type.
std::vector<ValueType> OpMeaning::select_or_clamp(const OpSite& site) {
  arity(site, 3);
  only(site, {});
  const ValueType& v = operand(site, 1);
  if (site.op == GraphOp::Select) {
    if (operand(site, 0).dtype != DType::Bool)
      throw Error(ErrorKind::Type, site.span,
                  "select's predicate is " + type_string(operand(site, 0)) + ", not of i1");
    scalar_or_same(site, 0, 1, "predicate");
    if (operand(site, 2).dtype != v.dtype || operand(site, 2).shape != v.shape)
      throw Error(ErrorKind::Shape, site.span,
                  "select's branches are " + type_string(v) + " and " +
                      type_string(operand(site, 2)) + ": they must be of one type");
    return {v};
  }
  for (size_t bound : {size_t{0}, size_t{2}}) {
    if (operand(site, bound).dtype != v.dtype)
      throw Error(ErrorKind::Type, site.span,
                  "clamp's bounds must be of the operand's element type: " +
                      type_string(operand(site, bound)) + " against " + type_string(v));
    scalar_or_same(site, bound, 1, bound == 0 ? "minimum" : "maximum");
  }
  return {v};
}

// A dimension of a tensor of rank \p rank (concatenate's, iota's).
int64_t OpMeaning::dimension_attr(const OpSite& site, const std::string& name, size_t rank) {
  int64_t d = int_attr(site, name);
  if (d < 0 || d >= static_cast<int64_t>(rank))
    throw Error(ErrorKind::Shape, find(site, name, true)->span,
                std::string(core::graph_op_name(site.op)) + "'s `" + name + "` is " +
                    std::to_string(d) + ", outside [0, " + std::to_string(rank) +
                    "): the dimensions of its rank-" + std::to_string(rank) + " tensors");
  return d;
}

// A list attribute under its generic or its pretty name.
std::vector<int64_t> OpMeaning::list_attr(const OpSite& site, const char* generic,
                                          const char* pretty) {
  bool has_pretty = site.attrs.count(pretty);
  only(site, {has_pretty ? pretty : generic});
  return ints_attr(site, has_pretty ? pretty : generic);
}

std::vector<ValueType> OpMeaning::transpose(const OpSite& site, GraphNode& node) {
  arity(site, 1);
  std::vector<int64_t> perm = list_attr(site, "permutation", "dims");
  const ValueType& in = operand(site, 0);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t d = 0; d < sorted.size(); ++d)
    if (sorted[d] != static_cast<int64_t>(d) || sorted.size() != in.shape.size())
      throw Error(ErrorKind::Shape, site.attrs_span,
                  "transpose's permutation must hold each dimension of the operand's rank " +
                      std::to_string(in.shape.size()) + " once");
  ValueType t{in.dtype, {}};
  for (int64_t p : perm)
    t.shape.push_back(in.shape[static_cast<size_t>(p)]);
  node.attrs["permutation"] = perm;
  return {t};
}

std::vector<ValueType> OpMeaning::slice(const OpSite& site, GraphNode& node) {
  arity(site, 1);
  only(site, {"start_indices", "limit_indices", "strides"});
  const ValueType& in = operand(site, 0);
  std::vector<int64_t> start = ints_attr(site, "start_indices");
  std::vector<int64_t> limit = ints_attr(site, "limit_indices");
  std::vector<int64_t> strides = find(site, "strides", false)
                                     ? ints_attr(site, "strides")
                                     : std::vector<int64_t>(in.shape.size(), 1);
  const size_t rank = in.shape.size();
  if (start.size() != rank || limit.size() != rank || strides.size() != rank)
    throw Error(ErrorKind::Shape, site.attrs_span,
                "slice needs a start, a limit and a stride for each of the operand's " +
                    std::to_string(rank) + " dimensions");
  ValueType t{in.dtype, {}};
  for (size_t d = 0; d < rank; ++d) {
    if (start[d] < 0 || start[d] > limit[d] || limit[d] > in.shape[d] || strides[d] <= 0)
      throw Error(ErrorKind::Shape, site.attrs_span,
                  "slice of dimension " + std::to_string(d) + " (extent " +
                      std::to_string(in.shape[d]) + ") from " + std::to_string(start[d]) + " to " +
                      std::to_string(limit[d]) + " by " + std::to_string(strides[d]) +
                      ": 0 <= start <= limit <= extent and a positive stride are needed");
    t.shape.push_back((limit[d] - start[d] + strides[d] - 1) / strides[d]);
  }
  node.attrs["start"] = start;
  node.attrs["strides"] = strides;
  return {t};
}

std::vector<ValueType> OpMeaning::concatenate(const OpSite& site, GraphNode& node) {
  if (site.operands.empty())
    throw Error(ErrorKind::Shape, site.span, "concatenate takes one operand or more");
  bool pretty = site.attrs.count("dim");
  only(site, {pretty ? "dim" : "dimension"});
  const ValueType& first = operand(site, 0);
  int64_t axis = dimension_attr(site, pretty ? "dim" : "dimension", first.shape.size());
  ValueType t = first;
  t.shape[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < site.operands.size(); ++i) {
    const ValueType& x = operand(site, i);
    bool fits = x.dtype == first.dtype && x.shape.size() == first.shape.size();
    for (size_t d = 0; fits && d < x.shape.size(); ++d)
      fits = d == static_cast<size_t>(axis) || x.shape[d] == first.shape[d];
    if (!fits)
      throw Error(ErrorKind::Shape, site.span,
                  "concatenate along dimension " + std::to_string(axis) + " of " +
                      type_string(first) + " and " + type_string(x) +
                      ": the other dimensions and the element type must agree");
    t.shape[static_cast<size_t>(axis)] += x.shape[static_cast<size_t>(axis)];
  }
  node.attrs["dimension"] = axis;
  return {t};
}

std::vector<ValueType> OpMeaning::iota(const OpSite& site, GraphNode& node) {
  arity(site, 0);
  bool pretty = site.attrs.count("dim");
  only(site, {pretty ? "dim" : "iota_dimension"});
  ValueType t = site.declared_outs.at(0);
  if (std::count(t.shape.begin(), t.shape.end(), kDynamic))
    throw Error(ErrorKind::Shape, site.span, "iota needs a static result type");
  if (t.dtype == DType::Bool)
    throw Error(ErrorKind::Type, site.span, "iota of i1 values is not defined");
  node.attrs["dimension"] = dimension_attr(site, pretty ? "dim" : "iota_dimension", t.shape.size());
  return {t};
}

std::vector<ValueType> OpMeaning::reverse(const OpSite& site, GraphNode& node) {
  arity(site, 1);
  std::vector<int64_t> dims = list_attr(site, "dimensions", "dims");
  const ValueType& in = operand(site, 0);
  std::vector<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= static_cast<int64_t>(in.shape.size()) ||
        std::count(seen.begin(), seen.end(), d))
      throw Error(ErrorKind::Shape, site.attrs_span,
                  "reverse's dimensions must be distinct dimensions of the operand's rank " +
                      std::to_string(in.shape.size()));
    seen.push_back(d);
  }
  node.attrs["dimensions"] = dims;
  return {in};
}

} // namespace teval::parser::mlir_detail
