// Polynomials over index variables with exact rational coefficients.
#include "parser/tile/tile_values.h"

#include "core/error.h"

#include <algorithm>
#include <numeric>

namespace teval::parser::tile {

using core::Expr;
using core::Op;

namespace {

using Integer = boost::multiprecision::cpp_int;

std::optional<int64_t> to_int64(const Integer& v) {
  if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max())
    return std::nullopt;
  return static_cast<int64_t>(v);
}

Integer common_denominator(const Poly& p) {
  Integer d = 1;
  for (const auto& [m, c] : p.terms())
    d = boost::multiprecision::lcm(d, boost::multiprecision::denominator(c));
  return d;
}

} // namespace

void Poly::add(const Monomial& m, const Rational& c) {
  if (c == 0)
    return;
  auto [it, fresh] = terms_.emplace(m, c);
  if (fresh)
    return;
  it->second += c;
  if (it->second == 0)
    terms_.erase(it);
}

Poly Poly::constant(const Rational& c) {
  Poly p;
  p.add({}, c);
  return p;
}

Poly Poly::variable(int v) {
  Poly p;
  p.add({v}, 1);
  return p;
}

Poly Poly::operator+(const Poly& o) const {
  Poly p = *this;
  for (const auto& [m, c] : o.terms_)
    p.add(m, c);
  return p;
}

Poly Poly::operator-() const {
  Poly p;
  for (const auto& [m, c] : terms_)
    p.add(m, -c);
  return p;
}

Poly Poly::operator-(const Poly& o) const {
  return *this + (-o);
}

Poly Poly::operator*(const Poly& o) const {
  Poly p;
  for (const auto& [m1, c1] : terms_)
    for (const auto& [m2, c2] : o.terms_) {
      Monomial m = m1;
      m.insert(m.end(), m2.begin(), m2.end());
      std::sort(m.begin(), m.end());
      p.add(m, c1 * c2);
    }
  return p;
}

Poly Poly::divided_by(const Rational& d) const {
  TEVAL_ASSERT(d != 0, "division of a polynomial by zero");
  Poly p;
  for (const auto& [m, c] : terms_)
    p.add(m, c / d);
  return p;
}

bool Poly::is_constant() const {
  return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty());
}

Rational Poly::constant_term() const {
  auto it = terms_.find({});
  return it == terms_.end() ? Rational(0) : it->second;
}

bool Poly::is_linear() const {
  return std::all_of(terms_.begin(), terms_.end(),
                     [](const auto& t) { return t.first.size() <= 1; });
}

Rational Poly::coefficient(int v) const {
  auto it = terms_.find({v});
  return it == terms_.end() ? Rational(0) : it->second;
}

std::vector<int> Poly::variables() const {
  std::vector<int> vs;
  for (const auto& [m, c] : terms_)
    vs.insert(vs.end(), m.begin(), m.end());
  std::sort(vs.begin(), vs.end());
  vs.erase(std::unique(vs.begin(), vs.end()), vs.end());
  return vs;
}

Expr to_expr(const Poly& p, const std::map<int, int>& var, core::Span span) {
  using core::DType;
  Integer d = common_denominator(p);
  auto constant = [&](const Integer& v) -> Expr {
    std::optional<int64_t> x = to_int64(v);
    if (!x)
      throw core::Error(core::ErrorKind::Limit, span,
                        "a coefficient of this index expression does not fit int64");
    return core::make_const(core::Scalar::of_int(DType::Int64, *x), span);
  };
  auto apply = [&](Op op, Expr a, Expr b) {
    return core::make_apply(op, {std::move(a), std::move(b)}, span, std::nullopt,
                            core::Overflow::Trap);
  };
  Expr sum;
  for (const auto& [m, c] : p.terms()) {
    Integer n = boost::multiprecision::numerator(c) * (d / boost::multiprecision::denominator(c));
    Expr term;
    for (int v : m) {
      Expr x = core::make_var(var.at(v), DType::Int64, span);
      term = term ? apply(Op::Mul, term, x) : x;
    }
    if (!term)
      term = constant(n);
    else if (n != 1)
      term = apply(Op::Mul, constant(n), term);
    sum = sum ? apply(Op::Add, sum, term) : term;
  }
  if (!sum)
    sum = constant(0);
  if (d != 1)
    sum = apply(Op::ExactDiv, sum, constant(d));
  return sum;
}

std::optional<ScaledLinear> scaled(const Poly& p, const std::map<int, int>& var) {
  TEVAL_ASSERT(p.is_linear(), "scaling a non-linear polynomial");
  Integer d = common_denominator(p);
  ScaledLinear out;
  out.coeffs.assign(var.size(), 0);
  std::optional<int64_t> den = to_int64(d);
  if (!den)
    return std::nullopt;
  out.denominator = *den;
  for (const auto& [m, c] : p.terms()) {
    std::optional<int64_t> n =
        to_int64(boost::multiprecision::numerator(c) * (d / boost::multiprecision::denominator(c)));
    if (!n)
      return std::nullopt;
    if (m.empty())
      out.constant = *n;
    else
      out.coeffs[var.at(m[0])] = *n;
  }
  return out;
}

std::string to_string(const Rational& r) {
  if (boost::multiprecision::denominator(r) == 1)
    return boost::multiprecision::numerator(r).str();
  return boost::multiprecision::numerator(r).str() + "/" +
         boost::multiprecision::denominator(r).str();
}

} // namespace teval::parser::tile
