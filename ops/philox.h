// Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror and
// Shaw ("Parallel random numbers: as easy as 1, 2, 3"), as ByteIR's linalg
// lowering of rng_uniform computes it: ten rounds of two 32x32 -> 64-bit
// multiplications, the keys bumped by the golden-ratio constants between
// rounds.
#pragma once

#include <array>
#include <cstdint>

namespace teval::ops {

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

} // namespace teval::ops
