// Exact bounds of integer index variables under linear constraints.
#include "core/affine.h"

#include "core/error.h"

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <set>

namespace teval::core {

namespace {

using Integer = boost::multiprecision::cpp_int;
using Rational = boost::multiprecision::cpp_rational;

// a . x + c >= 0 with integer coefficients, kept primitive (coefficients
// and constant divided by their gcd) so duplicates compare equal.
struct Row {
  std::vector<Integer> a;
  Integer c;

  bool operator<(const Row& o) const { return std::tie(a, c) < std::tie(o.a, o.c); }
};

void normalise(Row& r) {
  Integer g = abs(r.c);
  for (const Integer& v : r.a)
    g = gcd(g, abs(v));
  if (g <= 1)
    return;
  for (Integer& v : r.a)
    v /= g;
  r.c /= g;
}

// Eliminates variable v from the system (Fourier-Motzkin): every pair of a
// lower and an upper bound on v combines into one constraint without v.
// Returns false when a constant constraint is violated (no solution).
bool eliminate(std::set<Row>& rows, size_t v) {
  std::vector<Row> lower, upper, rest;
  for (const Row& r : rows) {
    if (r.a[v] > 0)
      lower.push_back(r);
    else if (r.a[v] < 0)
      upper.push_back(r);
    else
      rest.push_back(r);
  }
  std::set<Row> out(rest.begin(), rest.end());
  for (const Row& l : lower)
    for (const Row& u : upper) {
      Row r;
      Integer pl = -u.a[v], pu = l.a[v]; // both positive
      r.a.resize(l.a.size());
      for (size_t i = 0; i < r.a.size(); ++i)
        r.a[i] = pl * l.a[i] + pu * u.a[i];
      r.c = pl * l.c + pu * u.c;
      normalise(r);
      out.insert(std::move(r));
    }
  for (const Row& r : out)
    if (std::all_of(r.a.begin(), r.a.end(), [](const Integer& x) { return x == 0; }) && r.c < 0)
      return false;
  rows = std::move(out);
  return true;
}

std::optional<int64_t> to_int64(const Integer& v) {
  if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max())
    return std::nullopt;
  return static_cast<int64_t>(v);
}

Integer floor_div(const Integer& a, const Integer& b) { // b > 0
  Integer q = a / b;
  if (q * b > a)
    q -= 1;
  return q;
}

Integer ceil_div(const Integer& a, const Integer& b) { // b > 0
  Integer q = a / b;
  if (q * b < a)
    q += 1;
  return q;
}

} // namespace

std::optional<std::vector<IntegerRange>>
bounding_box(size_t nvars, const std::vector<LinearConstraint>& constraints) {
  std::set<Row> system;
  for (const LinearConstraint& c : constraints) {
    TEVAL_ASSERT(c.coeffs.size() == nvars, "constraint of the wrong width");
    Row r;
    for (int64_t a : c.coeffs)
      r.a.push_back(a);
    r.c = c.constant;
    normalise(r);
    system.insert(std::move(r));
  }
  for (const Row& r : system)
    if (std::all_of(r.a.begin(), r.a.end(), [](const Integer& x) { return x == 0; }) && r.c < 0)
      return std::nullopt;
  std::vector<IntegerRange> box(nvars);
  for (size_t v = 0; v < nvars; ++v) {
    std::set<Row> rows = system;
    // Eliminate the other variables, cheapest first (fewest new rows).
    std::vector<bool> gone(nvars, false);
    gone[v] = true;
    for (size_t step = 1; step < nvars; ++step) {
      size_t best = nvars;
      size_t best_cost = 0;
      for (size_t u = 0; u < nvars; ++u) {
        if (gone[u])
          continue;
        size_t lo = 0, hi = 0;
        for (const Row& r : rows) {
          lo += r.a[u] > 0;
          hi += r.a[u] < 0;
        }
        size_t cost = lo * hi;
        if (best == nvars || cost < best_cost) {
          best = u;
          best_cost = cost;
        }
      }
      gone[best] = true;
      if (!eliminate(rows, best))
        return std::nullopt;
    }
    // What remains bounds v alone: a*v + c >= 0.
    std::optional<Integer> lo, hi;
    for (const Row& r : rows) {
      const Integer& a = r.a[v];
      if (a > 0) { // v >= -c / a
        Integer b = ceil_div(-r.c, a);
        if (!lo || b > *lo)
          lo = b;
      } else if (a < 0) { // v <= c / -a
        Integer b = floor_div(r.c, -a);
        if (!hi || b < *hi)
          hi = b;
      }
    }
    if (lo && hi && *lo > *hi) // no integer value fits: no point at all
      return std::nullopt;
    if (lo)
      box[v].lo = to_int64(*lo);
    if (hi)
      box[v].hi = to_int64(*hi);
  }
  return box;
}

} // namespace teval::core
