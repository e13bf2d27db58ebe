// dot_general and dot (StableHLO specification, "dot_general" and "dot"):
// the dimension numbers in every spelling, checked as the specification's
// constraints (C1)-(C13) say.
//
//   generic  {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions
//            = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions
//            = [2], rhs_contracting_dimensions = [1]>} (#mhlo.dot<...> too,
//            or a dictionary of the four lists; empty lists omitted)
//   pretty   stablehlo.dot_general %a, %b, batching_dims = [0] x [0],
//            contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT]
//   dot      lhs of rank 1 or 2 contracted on its last dimension with rhs
//            of rank 1 or 2 on its first
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"
#include "core/format.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace teval::parser::mlir_detail {

namespace {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::ValueType;

std::vector<int64_t> list_of(const ast::Expr& e, const std::string& what) {
  Typed t = typed(e);
  std::vector<int64_t> out;
  const auto* list = std::get_if<ast::List>(&t.value->node);
  if (!list)
    throw Error(ErrorKind::Type, e.span, what + " must be a list of dimensions such as [0, 1]");
  for (const ast::ExprPtr& item : list->items) {
    std::optional<int64_t> v = integer_value(*item);
    if (!v)
      throw Error(ErrorKind::Type, item->span,
                  what + " must be a list of dimensions such as [0, 1]");
    out.push_back(*v);
  }
  return out;
}

// The four lists of `#stablehlo.dot<name = [..], ...>`, kept as written by
// the grammar (an attribute of a dialect teval does not register).
DotNumbers numbers_of_text(const ast::Expr& e, const std::string& written) {
  DotNumbers n;
  size_t at = written.find('<');
  size_t end = written.rfind('>');
  auto fail = [&]() -> Error {
    return Error(ErrorKind::Type, e.span,
                 "dot_dimension_numbers must be #stablehlo.dot<lhs_batching_dimensions = [...], "
                 "rhs_batching_dimensions = [...], lhs_contracting_dimensions = [...], "
                 "rhs_contracting_dimensions = [...]>, not `" +
                     written + "`");
  };
  if (at == std::string::npos || end == std::string::npos || end < at)
    throw fail();
  auto skip = [&] {
    while (at < end && std::isspace(static_cast<unsigned char>(written[at])))
      ++at;
  };
  ++at;
  for (skip(); at < end; skip()) {
    size_t from = at;
    while (at < end &&
           (std::isalnum(static_cast<unsigned char>(written[at])) || written[at] == '_'))
      ++at;
    std::string key = written.substr(from, at - from);
    skip();
    if (at >= end || written[at] != '=')
      throw fail();
    ++at;
    skip();
    if (at >= end || written[at] != '[')
      throw fail();
    size_t close = written.find(']', at);
    if (close == std::string::npos || close > end)
      throw fail();
    std::vector<int64_t> values;
    std::string items = written.substr(at + 1, close - at - 1);
    for (size_t p = 0; p < items.size();) {
      size_t comma = items.find(',', p);
      if (comma == std::string::npos)
        comma = items.size();
      std::string item = items.substr(p, comma - p);
      item.erase(std::remove_if(item.begin(), item.end(),
                                [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                 item.end());
      if (item.empty() || item.size() > 18 ||
          !std::all_of(item.begin() + (item[0] == '-'), item.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) ||
          item == "-")
        throw fail();
      values.push_back(std::stoll(item));
      p = comma + 1;
    }
    at = close + 1;
    if (key == "lhs_batching_dimensions")
      n.lhs_batch = values;
    else if (key == "rhs_batching_dimensions")
      n.rhs_batch = values;
    else if (key == "lhs_contracting_dimensions")
      n.lhs_contract = values;
    else if (key == "rhs_contracting_dimensions")
      n.rhs_contract = values;
    else
      throw fail();
    skip();
    if (at < end && written[at] == ',')
      ++at;
  }
  return n;
}

// The specification's DotAlgorithm (`algorithm = <lhs_precision_type = tf32,
// ...>`, or `#stablehlo.dot_algorithm<...>`), checked (C21)-(C24) and
// recorded on \p node: of float operands, the precision types each operand
// is rounded to and the type products and sums are computed in; algorithms
// of several components are the implementation's own (not read).
void read_algorithm(const OpSite& site, const ast::Expr& e, const char* op, core::GraphNode& node) {
  const std::string written = text(e);
  const size_t open = written.find('<'), close = written.rfind('>');
  auto fail = [&](const std::string& why) {
    return Error(ErrorKind::Type, e.span, std::string(op) + "'s algorithm: " + why);
  };
  if (open == std::string::npos || close == std::string::npos || close < open)
    throw fail("write it <lhs_precision_type = T, rhs_precision_type = T, accumulation_type = "
               "T, lhs_component_count = N, rhs_component_count = N, num_primitive_operations = "
               "N, allow_imprecise_accumulation = B>");
  std::map<std::string, std::string> fields;
  const std::string body = written.substr(open + 1, close - open - 1);
  for (size_t at = 0; at <= body.size();) {
    size_t comma = std::min(body.find(',', at), body.size());
    std::string item = body.substr(at, comma - at);
    at = comma + 1;
    const size_t eq = item.find('=');
    auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(" \t\n"));
      s.erase(s.find_last_not_of(" \t\n") + 1);
      return s;
    };
    if (trim(item).empty())
      continue;
    if (eq == std::string::npos)
      throw fail("`" + trim(item) + "` is not `field = value`");
    fields[trim(item.substr(0, eq))] = trim(item.substr(eq + 1));
  }
  static const char* const kFields[] = {"lhs_precision_type",          "rhs_precision_type",
                                        "accumulation_type",           "lhs_component_count",
                                        "rhs_component_count",         "num_primitive_operations",
                                        "allow_imprecise_accumulation"};
  for (const auto& [key, value] : fields)
    if (std::none_of(std::begin(kFields), std::end(kFields),
                     [&](const char* f) { return key == f; }))
      throw fail("`" + key + "` is not one of its fields");
  for (const char* f : kFields)
    if (!fields.count(f))
      throw fail(std::string("`") + f + "` is not given");
  // (C21): with an algorithm, the precision config is DEFAULT.
  for (const char* name : {"precision", "precision_config"})
    if (const ast::Expr* p = find(site, name, false))
      if (text(*p).find("HIGH") != std::string::npos)
        throw Error(ErrorKind::Type, p->span,
                    std::string(op) + " with an algorithm takes precision DEFAULT (C21)");
  for (const auto& [count, c] :
       {std::pair{"lhs_component_count", "C22"}, std::pair{"rhs_component_count", "C23"},
        std::pair{"num_primitive_operations", "C24"}}) {
    const std::string& v = fields[count];
    if (v.empty() || !std::all_of(v.begin(), v.end(), [](char ch) { return std::isdigit(ch); }) ||
        v.size() > 9 || std::stoll(v) <= 0)
      throw fail(std::string(count) + " is " + v + "; it must be above 0 (" + c + ")");
  }
  if (fields["lhs_component_count"] != "1" || fields["rhs_component_count"] != "1" ||
      fields["num_primitive_operations"] != "1")
    throw Error(ErrorKind::Unsupported, e.span,
                std::string(op) +
                    "'s algorithm splits its operands into several components: how is the "
                    "implementation's own (bf16_3x, tf32_3x, ...), not read");
  const std::string& imprecise = fields["allow_imprecise_accumulation"];
  if (imprecise != "true" && imprecise != "false")
    throw fail("allow_imprecise_accumulation is " + imprecise + ", not true or false");
  for (const char* f : {"lhs_precision_type", "rhs_precision_type", "accumulation_type"}) {
    const std::string& v = fields[f];
    std::optional<DType> t = element_type(v);
    const bool accumulation = std::string(f) == "accumulation_type";
    if (v == "tf32" && !accumulation) {
      node.attrs[f] = v;
      continue;
    }
    if (!t || !core::is_float(*t) || core::is_complex(*t) ||
        (accumulation && !core::kernel_dtype(*t)))
      throw fail(std::string(f) + " is " + v + "; teval reads " +
                 (accumulation ? "f16, bf16, f32 and f64" : "tf32 and the float types"));
    node.attrs[f] = v;
  }
}

DotNumbers numbers_of(const OpSite& site) {
  DotNumbers n;
  if (find(site, "contracting_dims", false) || find(site, "batching_dims", false)) {
    // The pretty form: `NAME = [lhs] x [rhs]`, the grammar's list of two.
    auto pair = [&](const char* name, std::vector<int64_t>& lhs, std::vector<int64_t>& rhs) {
      const ast::Expr* e = find(site, name, false);
      if (!e)
        return;
      const auto* list = std::get_if<ast::List>(&e->node);
      if (!list || list->items.size() != 2 ||
          !std::holds_alternative<ast::List>(list->items[0]->node))
        throw Error(ErrorKind::Type, e->span,
                    std::string("`") + name +
                        "` must be written [lhs dimensions] x [rhs dimensions]");
      lhs = list_of(*list->items[0], name);
      rhs = list_of(*list->items[1], name);
    };
    pair("batching_dims", n.lhs_batch, n.rhs_batch);
    pair("contracting_dims", n.lhs_contract, n.rhs_contract);
    return n;
  }
  const ast::Expr* e = find(site, "dot_dimension_numbers", true);
  if (const auto* dict = std::get_if<ast::Dict>(&e->node)) {
    for (const auto& [key, value] : dict->items) {
      const std::string& k = ast::as_name(*key)->id;
      std::vector<int64_t>* into = k == "lhs_batching_dimensions"      ? &n.lhs_batch
                                   : k == "rhs_batching_dimensions"    ? &n.rhs_batch
                                   : k == "lhs_contracting_dimensions" ? &n.lhs_contract
                                   : k == "rhs_contracting_dimensions" ? &n.rhs_contract
                                                                       : nullptr;
      if (!into)
        throw Error(ErrorKind::Type, key->span,
                    "`" + k + "` is not one of dot_dimension_numbers' lists");
      OpSite one = site;
      one.attrs = {{k, value.get()}};
      *into = ints_attr(one, k);
    }
    return n;
  }
  const ast::Name* name = ast::as_name(*e);
  return numbers_of_text(*e, name ? name->id : text(*e));
}

} // namespace

ValueType dot_meaning(const OpSite& site, const ValueType& lhs, const ValueType& rhs,
                      core::GraphNode& node, const DotNumbers* numbers) {
  const bool general = site.op == core::GraphOp::DotGeneral;
  const char* op = general ? "dot_general" : "dot";
  if (const ast::Expr* e = find(site, "algorithm", false)) {
    if (!general)
      throw Error(ErrorKind::Type, e->span, "dot has no algorithm; dot_general has");
    if (lhs.quant || rhs.quant)
      throw Error(ErrorKind::Unsupported, e->span,
                  "dot_general of quantized operands with an algorithm is not read");
    read_algorithm(site, *e, op, node);
  }
  if (general)
    only(site, {"dot_dimension_numbers", "precision_config", "batching_dims", "contracting_dims",
                "precision", "algorithm"});
  else
    only(site, {"precision_config", "precision"});
  if (lhs.dtype != rhs.dtype)
    throw Error(ErrorKind::Type, site.span,
                std::string(op) + " takes operands of one element type; they are " +
                    type_string(lhs) + " and " + type_string(rhs));
  if (lhs.dtype == DType::Bool)
    throw Error(ErrorKind::Unsupported, site.span,
                std::string(op) +
                    " of i1 values is not read (its sum is an or, its product an and)");
  DotNumbers n;
  if (numbers) {
    n = *numbers;
  } else if (general) {
    n = numbers_of(site);
  } else {
    if (lhs.shape.empty() || lhs.shape.size() > 2 || rhs.shape.empty() || rhs.shape.size() > 2)
      throw Error(ErrorKind::Shape, site.span,
                  "dot takes operands of rank 1 or 2; they are " + type_string(lhs) + " and " +
                      type_string(rhs));
    n.lhs_contract = {static_cast<int64_t>(lhs.shape.size()) - 1};
    n.rhs_contract = {0};
  }
  auto fail = [&](const std::string& why) -> Error {
    return Error(ErrorKind::Shape, general ? site.attrs_span : site.span,
                 std::string(op) + " of " + type_string(lhs) + " and " + type_string(rhs) + ": " +
                     why);
  };
  if (n.lhs_batch.size() != n.rhs_batch.size())
    throw fail("lhs and rhs list different numbers of batching dimensions");
  if (n.lhs_contract.size() != n.rhs_contract.size())
    throw fail("lhs and rhs list different numbers of contracting dimensions");
  auto check = [&](const std::vector<int64_t>& batch, const std::vector<int64_t>& contract,
                   const ValueType& t, const char* side) {
    std::vector<int64_t> all = batch;
    all.insert(all.end(), contract.begin(), contract.end());
    for (int64_t d : all) {
      if (d < 0 || d >= static_cast<int64_t>(t.shape.size()))
        throw fail(std::string(side) + " dimension " + std::to_string(d) + " is outside [0, " +
                   std::to_string(t.shape.size()) + ")");
      if (std::count(all.begin(), all.end(), d) > 1)
        throw fail(std::string(side) + " dimension " + std::to_string(d) +
                   " is listed twice among the batching and contracting dimensions");
    }
  };
  check(n.lhs_batch, n.lhs_contract, lhs, "lhs");
  check(n.rhs_batch, n.rhs_contract, rhs, "rhs");
  auto extents = [&](const std::vector<int64_t>& l, const std::vector<int64_t>& r,
                     const char* what) {
    for (size_t i = 0; i < l.size(); ++i)
      if (lhs.shape[static_cast<size_t>(l[i])] != rhs.shape[static_cast<size_t>(r[i])])
        throw fail(std::string(what) + " dimensions " + std::to_string(l[i]) + " of lhs and " +
                   std::to_string(r[i]) + " of rhs have different extents (" +
                   std::to_string(lhs.shape[static_cast<size_t>(l[i])]) + " and " +
                   std::to_string(rhs.shape[static_cast<size_t>(r[i])]) + ")");
  };
  extents(n.lhs_batch, n.rhs_batch, "the batching");
  extents(n.lhs_contract, n.rhs_contract, "the contracting");
  if (site.declared_outs.size() != 1)
    throw Error(ErrorKind::Shape, site.span, std::string(op) + " has one result");
  ValueType out{site.declared_outs[0].dtype, {}};
  if (out.dtype == DType::Bool)
    throw Error(ErrorKind::Unsupported, site.span,
                std::string(op) + " with an i1 result is not read");
  if (core::is_float(out.dtype) != core::is_float(lhs.dtype))
    throw Error(ErrorKind::Type, site.span,
                std::string(op) + " of " + type_string(lhs) + " operands declares a " +
                    core::to_string(out.dtype) +
                    " result: teval converts the operands to a wider or narrower type of their "
                    "kind, not between floats and integers");
  for (int64_t d : n.lhs_batch)
    out.shape.push_back(lhs.shape[static_cast<size_t>(d)]);
  for (const auto& [t, batch, contract] : {std::tuple{&lhs, &n.lhs_batch, &n.lhs_contract},
                                           std::tuple{&rhs, &n.rhs_batch, &n.rhs_contract}})
    for (size_t d = 0; d < t->shape.size(); ++d)
      if (!std::count(batch->begin(), batch->end(), static_cast<int64_t>(d)) &&
          !std::count(contract->begin(), contract->end(), static_cast<int64_t>(d)))
        out.shape.push_back(t->shape[d]);
  node.attrs["lhs_batch"] = n.lhs_batch;
  node.attrs["rhs_batch"] = n.rhs_batch;
  node.attrs["lhs_contract"] = n.lhs_contract;
  node.attrs["rhs_contract"] = n.rhs_contract;
  return out;
}

} // namespace teval::parser::mlir_detail
