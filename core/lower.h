// Lowering of the Kernel IR to the LoopNest IR.
#pragma once

#include "core/kernel.h"
#include "core/loopnest.h"

namespace teval::core {

/// The loop nest that computes exactly what the interpreter computes for
/// \p kernel, errors included (docs/SEMANTICS.md, "Lowering"):
/// - each statement fills its target (its init value, or a copy of its
///   init_from tensor), then walks its index variables' box with one For
///   per variable, outermost first, the reduce variables innermost;
/// - the constraints, and under OutOfRange::Skip the validity of the point
///   (every access in range, every exact division exact), become one lazy
///   guard, tested in the interpreter's order; conditions implied by the
///   loop bounds are left out;
/// - reductions become updates `T[o] = T[o] op value`; first-value starts
///   and write conflicts use a temp writer buffer holding the number of the
///   point that first wrote each location;
/// - intermediates are temp buffers, allocated before and freed after use.
LoopNest lower(const Kernel& kernel);

} // namespace teval::core
