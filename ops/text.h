// Pieces of einstein_v2 text the decompositions share. Internal to ops/.
#pragma once

#include <string>
#include <vector>

namespace teval::ops::detail {

/// The axes D0, D1, ... of a statement over \p rank dimensions.
inline std::vector<std::string> axes(size_t rank) {
  std::vector<std::string> a;
  for (size_t i = 0; i < rank; ++i)
    a.push_back("D" + std::to_string(i));
  return a;
}

/// \p items joined by ", " (an index list, a where clause).
inline std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i)
    s += (i ? ", " : "") + items[i];
  return s;
}

} // namespace teval::ops::detail
