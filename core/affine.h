// Exact bounds of integer index variables under linear constraints.
//
// Tile's valid index points are the integer points of a rational polyhedron
// (every access in range, every constraint satisfied). Its bounding box is
// computed exactly by Fourier-Motzkin elimination over arbitrary-precision
// rationals; the points of the box that are not valid are filtered point by
// point when the kernel runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace teval::core {

/// The constraint  coeffs[0]*x0 + coeffs[1]*x1 + ... + constant >= 0.
struct LinearConstraint {
  std::vector<int64_t> coeffs;
  int64_t constant = 0;
};

/// The integers a variable can take inside the polyhedron's rational hull:
/// [lo, hi], either end missing when unbounded.
struct IntegerRange {
  std::optional<int64_t> lo;
  std::optional<int64_t> hi;
};

/// For each of \p nvars variables, the smallest integer range holding its
/// value at every rational point that satisfies all \p constraints: the
/// ceiling of the exact rational minimum and the floor of the maximum.
/// Returns nothing when there is certainly no integer point: the rational
/// solutions are empty, or some variable's range holds no integer. Bounds
/// beyond int64 are reported as missing.
std::optional<std::vector<IntegerRange>>
bounding_box(size_t nvars, const std::vector<LinearConstraint>& constraints);

} // namespace teval::core
