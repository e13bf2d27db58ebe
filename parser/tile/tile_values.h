// Internal to the Tile elaboration: the values a Tile function computes
// with — integers (dimensions), polynomials over index variables with exact
// rational coefficients, and elementwise tensor expressions.
#pragma once

#include "core/kernel.h"
#include "core/source.h"

#include <boost/multiprecision/cpp_int.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace teval::parser::tile {

using Rational = boost::multiprecision::cpp_rational;

/// A polynomial over index variables (numbered per function) with exact
/// rational coefficients: sum of coefficient * product of variables. Index
/// expressions are polynomials; `(i - 1) / 2` has coefficients 1/2 and -1/2.
class Poly {
public:
  using Monomial = std::vector<int>; // sorted variable numbers; empty: the constant

  static Poly constant(const Rational& c);
  static Poly variable(int v);

  Poly operator+(const Poly& o) const;
  Poly operator-(const Poly& o) const;
  Poly operator*(const Poly& o) const;
  Poly operator-() const;
  /// Exact division by a nonzero rational.
  Poly divided_by(const Rational& d) const;

  bool operator==(const Poly& o) const { return terms_ == o.terms_; }
  bool is_constant() const;
  /// The constant term (the whole value when is_constant()).
  Rational constant_term() const;
  /// Degree at most one.
  bool is_linear() const;
  /// The coefficient of variable v in a linear polynomial.
  Rational coefficient(int v) const;
  /// The variables, in increasing order.
  std::vector<int> variables() const;
  const std::map<Monomial, Rational>& terms() const { return terms_; }

private:
  void add(const Monomial& m, const Rational& c);
  std::map<Monomial, Rational> terms_;
};

/// The integer-valued Kernel IR expression of \p p: the sum with integer
/// coefficients over a common denominator D, exactly divided by D
/// (ExactDiv, which has no value when the quotient is fractional). \p var
/// maps a function's index variable to the statement's variable number.
/// Arithmetic is int64 and traps on overflow.
core::Expr to_expr(const Poly& p, const std::map<int, int>& var, core::Span span);

/// For a linear \p p: integer coefficients a (indexed like \p var) and a
/// constant c with  p == (a . x + c) / denominator, denominator > 0.
struct ScaledLinear {
  std::vector<int64_t> coeffs;
  int64_t constant = 0;
  int64_t denominator = 1;
};
/// Nothing when a scaled coefficient does not fit int64.
std::optional<ScaledLinear> scaled(const Poly& p, const std::map<int, int>& var);

/// The text of \p r for messages: "3", "1/2".
std::string to_string(const Rational& r);

} // namespace teval::parser::tile
