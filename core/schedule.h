// Schedules: a loop nest rearranged for speed by the transformations of
// core/transform.h, each of which keeps every result bit for bit (and
// whether the nest stops with an error). The reductions keep their order:
// what moves is the loop over an output's contiguous dimension, brought
// inside the reduction loops and vectorized, so that each vector lane
// accumulates one output in the program's sequential order; and large
// nests' outermost loops run their iterations (distinct outputs) on
// several threads.
#pragma once

#include "core/loopnest.h"

#include <string>

namespace teval::core {

struct ScheduleOptions {
  /// Bring each nest's contiguous output loop innermost and vectorize it.
  bool vectorize = true;
  /// Run each nest's outermost loop on several threads (core::parallelize)
  /// when the nest has at least this many points (and that loop is not the
  /// vectorized one); 0: never. (A 56-wide convolution's fill and padded
  /// copy, 2 * 10^5 points each, on both cores: 188 -> 195 G MAC/s.)
  int64_t parallel_points = int64_t{1} << 17;
  /// The code may add reductions in any order (JitOptions::any_order): a
  /// long innermost reduction loop that its loads read consecutively, where
  /// the output loop's loads do not, stays innermost for the compiler to
  /// sum in vector lanes, instead of giving way to the output loop.
  bool any_order = false;
  /// Register-tile a vectorized output loop below reduction loops
  /// (core::register_tile): up to 64 of its outputs, times 2 to 8 of
  /// another output loop's, accumulate in registers.
  bool register_tiles = true;
  /// Read guarded windows (a padded convolution's input) from padded
  /// copies (core::pad_guarded_reads), without their conditions, where a
  /// statement has at least this many points per element of the copy (its
  /// cost is then small beside the conditions it saves); 0: never.
  int64_t pad_points_per_element = 4;
  /// Walk the rows of a vectorized output row of partial vectors as one
  /// through its padded copies' row stride (core::coalesce_rows), where the
  /// statement has at least this many points per output element (the
  /// copy back then costs little beside them); 0: never.
  int64_t coalesce_points_per_element = 16;
  /// The target's vector registers, which register tiles and rows of
  /// whole vectors are sized for: their bytes and how many there are (the
  /// defaults: AVX-512's 32 registers of 64 bytes; AVX2 has 16 of 32). A
  /// tile keeps up to half of them as accumulators. The JIT sets them for
  /// its target and makes LLVM use vectors of this size.
  int64_t vector_bytes = 64;
  int64_t vector_registers = 32;
};

/// \p nest scheduled by \p options; \p log (when given) receives one line
/// per transformation applied or refused.
LoopNest schedule(const LoopNest& nest, const ScheduleOptions& options = {},
                  std::string* log = nullptr);

} // namespace teval::core
