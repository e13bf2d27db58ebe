// Seeded random inputs, valid by construction.
//
// Distribution (documented in docs/SEMANTICS.md, stable across platforms
// because it uses its own generator, SplitMix64): floating values uniform in
// [-1, 1) rounded to the dtype; integers uniform in [-10, 10] (uint8 [0,
// 10]); bool 0 or 1. An integer input whose values are used directly as an
// index of a tensor dimension of extent E (a gather, or a scatter target
// index), or compared for equality with an axis of extent E, is drawn
// uniformly in [0, E) instead, taking the smallest E over all such uses, so
// gathers, one-hots and scatters run without hand-made data.
#pragma once

#include "core/graph.h"
#include "core/kernel.h"
#include "core/tensor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace teval::interp {

/// For each input tensor id whose values serve as indices: the exclusive
/// upper bound E of the values that keep every such use in range.
std::map<int, int64_t> index_bounds(const core::Kernel& kernel);

/// A tensor of \p dtype and \p shape drawn from \p seed and \p name (each
/// name gets its own stream, so adding an input changes no other). With
/// \p index_bound, integers are drawn from [0, index_bound).
core::Tensor random_tensor(core::DType dtype, const core::Shape& shape, uint64_t seed,
                           const std::string& name,
                           std::optional<int64_t> index_bound = std::nullopt);

/// The values random_tensor_in() draws: integer and bool dtypes the
/// integers in [int_lo, int_hi] (both included) uniformly; floating dtypes
/// lo + u * (hi - lo) for u uniform in [0, 1) (53 random bits), rounded to
/// the dtype, drawn again when that rounds up to hi.
struct RandomBounds {
  int64_t int_lo = -10;
  int64_t int_hi = 10;
  double lo = -1;
  double hi = 1;
};

/// random_tensor() for a value of an MLIR function of type \p t: of a
/// quantized type, stored integers within its storage range.
core::Tensor random_value(const core::ValueType& t, uint64_t seed, const std::string& name);

/// A tensor of \p dtype and \p shape drawn from \p seed and \p name within
/// \p bounds, which the caller has checked: int_lo <= int_hi, both
/// representable in \p dtype; lo, rounded to the dtype, below hi.
core::Tensor random_tensor_in(core::DType dtype, const core::Shape& shape, uint64_t seed,
                              const std::string& name, const RandomBounds& bounds);

/// One tensor per input of \p kernel, in interp::input_ids() order: the
/// tensor of that name in \p given, else random_tensor() data from \p seed,
/// drawn in range where index_bounds() says the values serve as indices.
std::vector<core::Tensor> make_inputs(const core::Kernel& kernel,
                                      const std::map<std::string, core::Tensor>& given,
                                      uint64_t seed);

} // namespace teval::interp
