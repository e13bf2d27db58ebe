// rng_bit_generator (StableHLO specification, "rng_bit_generator"): the
// random bits of a counter-based generator and its new state. The
// specification leaves the bits to the implementation; teval gives them
// as XLA's bit generators compute them (docs/SEMANTICS.md, "StableHLO's
// rng_bit_generator"), so that a compiler following XLA can be checked
// bit for bit: THREE_FRY (Threefry-2x32 of 20 rounds) and PHILOX
// (Philox-4x32 of 10 rounds), DEFAULT read as THREE_FRY. A native
// reference only: the Kernel IR has no unsigned 64-bit carries to spell
// the generators in. Internal to ops/.
#pragma once

#include "core/graph.h"
#include "core/tensor.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace teval::ops::detail {

/// Threefry-2x32 with 20 rounds (Salmon et al., "Parallel random numbers:
/// as easy as 1, 2, 3", SC 2011) of the counter \p x under the key \p k.
std::array<uint32_t, 2> threefry2x32_20(std::array<uint32_t, 2> x, std::array<uint32_t, 2> k);

/// The results of rng_bit_generator \p n: the new state (of \p state's
/// type) and the bits as a tensor of type \p output.
std::vector<core::Tensor> rng_bit_generator(const core::GraphNode& n, const core::Tensor& state,
                                            const core::ValueType& output);

} // namespace teval::ops::detail
