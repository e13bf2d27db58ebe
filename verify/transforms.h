// Random sequences of loop transformations for the properties.
#pragma once

#include "core/loopnest.h"

#include <rapidcheck.h>

#include <optional>
#include <string>
#include <vector>

namespace teval::verify {

/// One transformation, with its loop given as a position in the nest's
/// current loop list (taken modulo its length when applied).
struct TransformStep {
  enum Kind {
    Split,
    SplitMasked,
    Reorder,
    Tile,
    Unroll,
    Vectorize,
    Fuse,
    RegisterTile,
    DropDeadFills, ///< the whole nest (the loop is not used)
    SplitRange,    ///< at the loop's begin + factor
    PadGuardedReads,
  } kind;
  int loop = 0;
  int factor = 1;       ///< split, tile (outer)
  int other_factor = 1; ///< tile (inner)
};

void showValue(const TransformStep& s, std::ostream& os);

/// 1 to 5 random steps, of any kind or only of \p kind.
rc::Gen<std::vector<TransformStep>> transform_steps(std::optional<TransformStep::Kind> kind = {});

/// \p nest with every step applied that applies (the others are skipped);
/// \p log receives one line per step saying what happened.
core::LoopNest apply_steps(const core::LoopNest& nest, const std::vector<TransformStep>& steps,
                           std::string* log = nullptr);

} // namespace teval::verify
