// The random choices the program generators are made of: numbers, elements
// of lists, dtypes.
//
// RapidCheck scales inRange's range by the size parameter (0 to 99 in a
// property run, the case index modulo 100 in a campaign), so a plain
// inRange(0, 100) >= 100 - p is never true below size 100 - p and
// choices among kinds collapse to the first few at small sizes. These draw
// at the nominal size instead: every choice has the probability its call
// site states, whatever the size, and still shrinks toward its smallest
// value (the simplest program).
#pragma once

#include "core/dtype.h"

#include <rapidcheck.h>

#include <cstddef>
#include <string>
#include <vector>

namespace teval::verify {

/// An integer in [lo, hi], uniformly; shrinks toward lo.
inline int pick(int lo, int hi) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange(lo, hi + 1));
}

/// True with probability \p percent / 100; shrinks to false.
inline bool chance(int percent) {
  return pick(1, 100) > 100 - percent;
}

/// An element of \p items (not empty), uniformly; shrinks toward the first.
template <class T> const T& one_of(const std::vector<T>& items) {
  return items[static_cast<size_t>(pick(0, static_cast<int>(items.size()) - 1))];
}

/// Every dtype, simplest first (shrinking moves toward the front); the
/// float and the integer ones.
inline const std::vector<core::DType> kDTypes = {
    core::DType::Float32, core::DType::Int32,   core::DType::Float64,  core::DType::Int8,
    core::DType::Int64,   core::DType::Float16, core::DType::BFloat16, core::DType::Int16,
    core::DType::UInt8,   core::DType::UInt16,  core::DType::UInt32,   core::DType::Bool};

inline const std::vector<core::DType> kFloatDTypes = {core::DType::Float32, core::DType::Float64,
                                                      core::DType::Float16, core::DType::BFloat16};
inline const std::vector<core::DType> kIntegerDTypes = {
    core::DType::Int32, core::DType::Int8,   core::DType::Int64, core::DType::Int16,
    core::DType::UInt8, core::DType::UInt16, core::DType::UInt32};

/// Half the time float32, as in real kernels; otherwise any dtype.
inline core::DType float32_or_any_dtype() {
  if (!chance(50))
    return core::DType::Float32;
  return one_of(kDTypes);
}

/// The name programs spell \p t by (`float32`).
inline std::string dtype_name(core::DType t) {
  return std::string(core::name(t));
}

} // namespace teval::verify
