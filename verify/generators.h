// RapidCheck generators of random, well-typed programs, size-bounded and
// shrinking toward smaller programs: fewer statements, shallower
// expressions, smaller extents, simpler dtypes.
#pragma once

#include "verify/program.h"

#include <rapidcheck.h>

namespace teval::verify {

/// Antares einstein_v2 programs: 1 to 4 statements over ranks 0 to 4 (every
/// axis bound in the where clause, extents 0 to 5), each statement one of
/// = += *= >= <= &= |=, reading new inputs of every dtype and earlier
/// statements' outputs through affine and non-affine indices (+ - * by
/// constants, // and % by constants, gathers through int32 tensors), with
/// reads that may fall outside their tensor, some guarded by .when; casts,
/// math calls, comparisons, logical operators, shifts, max/min.
rc::Gen<Program> antares_program();

} // namespace teval::verify
