// The constraint's hints for the verifier's graphs (see htp_hints.h).
#include "verify/htp_hints.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace teval::verify::htp {

namespace {

// The value of a constant integer expression (literals and + - * /).
std::optional<int64_t> constant_value(const ast::Expr& e) {
  if (const auto* i = std::get_if<ast::IntLit>(&e.node))
    return i->value > uint64_t(INT32_MAX) ? std::nullopt
                                          : std::optional<int64_t>(int64_t(i->value));
  const ast::Call* c = as_call(e);
  if (!c || c->args.size() < 1)
    return std::nullopt;
  std::vector<int64_t> v;
  for (const ast::ExprPtr& a : c->args) {
    std::optional<int64_t> x = constant_value(*a);
    if (!x)
      return std::nullopt;
    v.push_back(*x);
  }
  if (v.size() == 1)
    return c->callee == "UINT" || c->callee == "INT" ? std::optional(v[0]) : std::nullopt;
  int64_t out = v[0];
  for (size_t k = 1; k < v.size(); ++k) {
    if (c->callee == "ADD")
      out += v[k];
    else if (c->callee == "SUB" && v.size() == 2)
      out -= v[k];
    else if (c->callee == "MUL")
      out *= v[k];
    else if (c->callee == "DIV" && v.size() == 2 && v[k] != 0)
      out /= v[k];
    else
      return std::nullopt;
    if (out < -(int64_t{1} << 40) || out > (int64_t{1} << 40))
      return std::nullopt;
  }
  return out;
}

// An extent seen through a linear expression: scale * DIM_OF(tag, dim) +
// offset.
struct Linear {
  std::string tag;
  size_t dim = 0;
  int64_t scale = 1;
  int64_t offset = 0;
};

std::optional<Linear> linear_dim(const ast::Expr& e) {
  const ast::Call* c = as_call(e);
  if (!c)
    return std::nullopt;
  if (c->callee == "DIM_OF" && c->args.size() == 2 && as_string(*c->args[0])) {
    std::optional<int64_t> d = constant_value(*c->args[1]);
    if (!d || *d < 0 || *d > 3)
      return std::nullopt;
    return Linear{as_string(*c->args[0])->value, size_t(*d), 1, 0};
  }
  if ((c->callee == "UINT" || c->callee == "INT") && c->args.size() == 1)
    return linear_dim(*c->args[0]);
  if ((c->callee == "ADD" || c->callee == "SUB" || c->callee == "MUL") && c->args.size() == 2) {
    for (size_t side = 0; side < 2; ++side) {
      std::optional<Linear> l = linear_dim(*c->args[side]);
      const ast::Expr& other = *c->args[1 - side];
      std::optional<int64_t> k = constant_value(other);
      if (!l || !k || (c->callee == "SUB" && side == 1))
        continue;
      if (c->callee == "MUL") {
        if (*k == 0)
          return std::nullopt;
        l->scale *= *k;
        l->offset *= *k;
      } else {
        l->offset += c->callee == "ADD" ? *k : -*k;
      }
      return l;
    }
  }
  return std::nullopt;
}

void collect_hints(const ast::Expr& e, std::vector<DimHint>& out) {
  const ast::Call* c = as_call(e);
  if (!c)
    return;
  static const std::set<std::string> kCompare = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  if (kCompare.count(c->callee) && c->args.size() == 2) {
    for (size_t side = 0; side < 2; ++side) {
      std::optional<Linear> l = linear_dim(*c->args[side]);
      const ast::Expr& other = *c->args[1 - side];
      std::optional<int64_t> k = constant_value(other);
      if (!l || !k)
        continue;
      // scale * D + offset OP k, solved for D: extents that satisfy it,
      // the boundary first.
      std::string op = c->callee;
      if (side == 1) // k OP x is x OP' k
        op = op == "LT" ? "GT" : op == "GT" ? "LT" : op == "LE" ? "GE" : op == "GE" ? "LE" : op;
      if (l->scale < 0)
        op = op == "LT" ? "GT" : op == "GT" ? "LT" : op == "LE" ? "GE" : op == "GE" ? "LE" : op;
      double r = double(*k - l->offset) / double(l->scale);
      auto lo = [&](int64_t from) {
        return std::vector<int64_t>{from, from + 1, from + 3, 2 * from};
      };
      auto hi = [&](int64_t to) { return std::vector<int64_t>{to, to - 1, to / 2, 1}; };
      std::vector<int64_t> candidates =
          op == "GT"   ? lo(int64_t(std::floor(r)) + 1)
          : op == "GE" ? lo(int64_t(std::ceil(r)))
          : op == "LT" ? hi(int64_t(std::ceil(r)) - 1)
          : op == "LE" ? hi(int64_t(std::floor(r)))
          : op == "EQ"
              ? (r == std::floor(r) ? std::vector<int64_t>{int64_t(r)} : std::vector<int64_t>{})
              : std::vector<int64_t>{int64_t(std::floor(r)) + 1, int64_t(std::floor(r)) - 1};
      DimHint h{l->tag, l->dim, {}, op, r};
      for (int64_t v : candidates)
        if (v >= 1 && v <= 4096 && std::find(h.values.begin(), h.values.end(), v) == h.values.end())
          h.values.push_back(v);
      if (!h.values.empty())
        out.push_back(std::move(h));
    }
  }
  for (const ast::ExprPtr& a : c->args)
    collect_hints(*a, out);
}

} // namespace

namespace {

// The tag of \p e when it is CALLEE("tag").
std::optional<std::string> tag_of(const ast::Expr& e, const char* callee) {
  const ast::Call* c = as_call(e);
  if (!c || c->callee != callee || c->args.size() != 1 || !as_string(*c->args[0]))
    return std::nullopt;
  return as_string(*c->args[0])->value;
}

// k of a comparison with a constant element: an integer expression or a
// float literal.
std::optional<double> number(const ast::Expr& e) {
  if (const auto* f = std::get_if<ast::FloatLit>(&e.node))
    return f->value;
  if (std::optional<int64_t> k = constant_value(e))
    return double(*k);
  return std::nullopt;
}

// A constant expression of numbers and ADD, SUB, MUL, DIV, folded in double.
std::optional<double> folded(const ast::Expr& e) {
  if (std::optional<double> k = number(e))
    return k;
  const ast::Call* c = as_call(e);
  if (!c || c->args.size() != 2)
    return std::nullopt;
  std::optional<double> a = folded(*c->args[0]), b = folded(*c->args[1]);
  if (!a || !b)
    return std::nullopt;
  if (c->callee == "ADD")
    return *a + *b;
  if (c->callee == "SUB")
    return *a - *b;
  if (c->callee == "MUL")
    return *a * *b;
  if (c->callee == "DIV" && *b != 0)
    return *a / *b;
  return std::nullopt;
}

// The step a comparison of \p x with the constant \p bound sets: x is
// STEPSIZE_OF(tag), or it divided or multiplied by a constant.
void step_hint(const ast::Expr& x, double bound, EncodingHints& out) {
  if (std::optional<std::string> tag = tag_of(x, "STEPSIZE_OF")) {
    out.steps.push_back({*tag, bound});
    return;
  }
  const ast::Call* c = as_call(x);
  if (!c || c->args.size() != 2 || (c->callee != "DIV" && c->callee != "MUL"))
    return;
  for (size_t side = 0; side < 2; ++side) {
    std::optional<std::string> tag = tag_of(*c->args[side], "STEPSIZE_OF");
    std::optional<double> k = folded(*c->args[1 - side]);
    if (!tag || !k || *k == 0 || (c->callee == "DIV" && side == 1))
      continue;
    out.steps.push_back({*tag, c->callee == "DIV" ? bound * *k : bound / *k});
  }
}

void collect_encodings(const ast::Expr& e, EncodingHints& out) {
  const ast::Call* c = as_call(e);
  if (!c)
    return;
  if (c->callee == "EQ" && c->args.size() == 2) {
    for (size_t side = 0; side < 2; ++side) {
      const ast::Expr& x = *c->args[side];
      const ast::Expr& y = *c->args[1 - side];
      if (std::optional<std::string> tag = tag_of(x, "DTYPE_OF")) {
        const ast::Name* n = as_name(y);
        if (n && n->id.starts_with("DType::"))
          if (std::optional<rules::HtpType> t = rules::htp_type_from_name(n->id.substr(7)))
            out.dtypes.push_back({*tag, *t});
      }
      if (std::optional<std::string> tag = tag_of(x, "ZERO_OFFSET_OF")) {
        if (std::optional<int64_t> k = constant_value(y))
          out.zero_offsets.push_back({*tag, *k});
        else if (std::optional<std::string> other = tag_of(y, "ZERO_OFFSET_OF"); side == 0 && other)
          out.same.push_back({*tag, *other});
      }
      if (std::optional<std::string> tag = tag_of(x, "STEPSIZE_OF"))
        if (std::optional<std::string> other = tag_of(y, "STEPSIZE_OF"); side == 0 && other)
          out.same.push_back({*tag, *other});
    }
  }
  static const std::set<std::string> kComparisons = {"EQ", "GT", "GE", "LT", "LE"};
  if (kComparisons.count(c->callee) && c->args.size() == 2)
    for (size_t side = 0; side < 2; ++side)
      if (std::optional<double> bound = folded(*c->args[1 - side]); bound && *bound > 0)
        step_hint(*c->args[side], *bound, out);
  if (c->callee == "SAME_ENCODING" && c->args.size() == 2 && as_string(*c->args[0]) &&
      as_string(*c->args[1]))
    out.same.push_back({as_string(*c->args[0])->value, as_string(*c->args[1])->value});
  for (const ast::ExprPtr& a : c->args)
    collect_encodings(*a, out);
}

void collect_constants(const ast::Expr& e, ConstantHints& out) {
  const ast::Call* c = as_call(e);
  if (!c)
    return;
  auto reads = [](const ast::Call* r) {
    return r && r->callee.starts_with("CONSTVAL_") && r->args.size() == 2 && as_string(*r->args[0]);
  };
  if (reads(c))
    out.tags.insert(as_string(*c->args[0])->value);
  if (c->callee == "EQ" && c->args.size() == 2)
    for (size_t side = 0; side < 2; ++side) {
      const ast::Call* r = as_call(*c->args[side]);
      if (!reads(r) || r->callee.ends_with("_VALID"))
        continue;
      std::optional<int64_t> i = constant_value(*r->args[1]);
      std::optional<double> k = number(*c->args[1 - side]);
      if (i && k && *i >= 0 && *i < 64)
        out.values.push_back({as_string(*r->args[0])->value, *i, *k});
    }
  // A bound: an element compared with GE, GT, LE or LT is tried just past
  // a constant (GT(CONSTVAL_INT("n", 0), 5): 6), or far past anything else
  // (GE(MUL(STEPSIZE_OF("x"), ...), CONSTVAL_FLOAT("lo", 0)): -10^4), which
  // draws of small values never meet.
  static const std::map<std::string, int> kAbove = {{"GE", 0}, {"GT", 0}, {"LE", 1}, {"LT", 1}};
  if (auto cmp = kAbove.find(c->callee); cmp != kAbove.end() && c->args.size() == 2)
    for (size_t side = 0; side < 2; ++side) {
      const ast::Call* r = as_call(*c->args[side]);
      if (!reads(r) || r->callee.ends_with("_VALID"))
        continue;
      std::optional<int64_t> i = constant_value(*r->args[1]);
      if (!i || *i < 0 || *i >= 64)
        continue;
      // Whether the element must be the larger side.
      bool larger = (side == 0) == (cmp->second == 0);
      bool strict = c->callee == "GT" || c->callee == "LT";
      std::optional<double> k = number(*c->args[1 - side]);
      double v = k ? *k + (strict ? (larger ? 1 : -1) : 0) : (larger ? 1e4 : -1e4);
      out.values.push_back({as_string(*r->args[0])->value, *i, v});
    }
  for (const ast::ExprPtr& a : c->args)
    collect_constants(*a, out);
}

} // namespace

ConstantHints constant_hints(const ast::Expr& constraint, const ast::Expr& replacement) {
  ConstantHints out;
  collect_constants(constraint, out);
  ConstantHints read;
  collect_constants(replacement, read);
  out.tags.insert(read.tags.begin(), read.tags.end());
  return out;
}

EncodingHints encoding_hints(const ast::Expr& constraint) {
  EncodingHints out;
  collect_encodings(constraint, out);
  return out;
}

bool DimHint::admits(int64_t v) const {
  const double x = double(v);
  return op == "EQ"   ? x == bound
         : op == "NE" ? x != bound
         : op == "LT" ? x < bound
         : op == "LE" ? x <= bound
         : op == "GT" ? x > bound
                      : x >= bound;
}

std::vector<DimHint> dim_hints(const ast::Expr& constraint) {
  std::vector<DimHint> out;
  collect_hints(constraint, out);
  return out;
}

} // namespace teval::verify::htp
