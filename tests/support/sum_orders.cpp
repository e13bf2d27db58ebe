#include "tests/support/sum_orders.h"

#include "core/numeric.h"

#include <algorithm>

namespace teval::test {

std::vector<double> sum_orders(core::DType t, const std::vector<double>& terms) {
  // Two values of t (at most float32 here) add exactly in double.
  auto r = [t](double v) { return core::round_float(t, v); };
  std::vector<double> out;
  double s = 0;
  for (double x : terms)
    s = r(s + x);
  out.push_back(s);
  s = 0;
  for (auto it = terms.rbegin(); it != terms.rend(); ++it)
    s = r(s + *it);
  out.push_back(s);
  auto pairwise = [&](auto& self, size_t lo, size_t hi) -> double {
    if (hi - lo == 1)
      return terms[lo];
    size_t mid = lo + (hi - lo) / 2;
    return r(self(self, lo, mid) + self(self, mid, hi));
  };
  if (!terms.empty())
    out.push_back(pairwise(pairwise, 0, terms.size()));
  for (size_t block : {16, 128, 1000}) {
    double total = 0;
    for (size_t b = 0; b < terms.size(); b += block) {
      double part = 0;
      for (size_t i = b; i < std::min(terms.size(), b + block); ++i)
        part = r(part + terms[i]);
      total = r(total + part);
    }
    out.push_back(total);
  }
  float f = 0;
  double d = 0;
  for (double x : terms) {
    f += static_cast<float>(x);
    d += x;
  }
  out.push_back(r(f));
  out.push_back(r(d));
  return out;
}

} // namespace teval::test
