// Tensor shapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace teval::core {

/// Extents, outermost first; rank 0 is a scalar. Every extent is >= 0.
using Shape = std::vector<int64_t>;

/// The largest tensor teval will allocate, in bytes. Larger shapes are a
/// Limit error rather than an allocation failure.
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 34;
/// The highest rank teval accepts (numpy's own limit): every walk over a
/// tensor's dimensions is then bounded.
inline constexpr size_t kMaxRank = 64;

/// Number of elements, or nothing when an extent is negative or the
/// nonzero extents multiply past int64 (a shape with a zero extent has no
/// element, but its strides are still computed).
std::optional<int64_t> checked_numel(const Shape& shape);
/// Row-major (C order) strides in elements.
std::vector<int64_t> strides(const Shape& shape);
/// "[2, 3]" — the shape as users write it.
std::string to_string(const Shape& shape);

} // namespace teval::core
