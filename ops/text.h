// Pieces of einstein_v2 text the decompositions share. Internal to ops/.
#pragma once

#include <cstdint>
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

/// The read of a padded, dilated input along one dimension, as convolution
/// and reduce_window make it: q = y·stride + w - low (\p y the output axis,
/// \p w the window position times its dilation, as text), the input index
/// q / base, and into \p conditions those its being one of the input's
/// \p extent elements needs that the window can break (\p q_max: the
/// largest q it reaches). Returns the index.
inline std::string window_index(const std::string& y, int64_t stride, const std::string& w,
                                int64_t low, int64_t base, int64_t extent, int64_t q_max,
                                std::vector<std::string>& conditions) {
  std::string q = stride == 1 ? y : y + " * " + std::to_string(stride);
  q += " + " + w;
  if (low > 0)
    q += " - " + std::to_string(low);
  else if (low < 0)
    q += " + " + std::to_string(-low);
  q = "(" + q + ")";
  std::string j = base == 1 ? q : "(" + q + " / " + std::to_string(base) + ")";
  if (low > 0)
    conditions.push_back(q + " >= 0");
  if (base > 1)
    conditions.push_back(q + " % " + std::to_string(base) + " == 0");
  if (q_max / base >= extent)
    conditions.push_back(j + " < " + std::to_string(extent));
  return j;
}

} // namespace teval::ops::detail
