// clang-format off
// verify ops: standard
// verify flags: --passes
// A rule matching a move to or from TCM, verified with the file's passes:
// HTP's own TCM migration inserts the moves after the package's early
// passes, so what those passes do to the drawn graph claims nothing.
#include "HTP/core/optimize.h"

// Sound: an early rewrite into QNN's name behind a layout marker.
DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Neg", "x"), OK,
  Op("ElementWiseNeg", WITH_SAME_OUTPUT("x", Op("ForceFormat_Flat", "x"))))

// Sound, not unreachable: the early rule above rewrites the drawn graph's
// Neg away, but on HTP the move from TCM arrives later, with the TCM
// migration.
DEF_PACKAGE_OPTIMIZATION(LATE, Op("ElementWiseNeg", Op("flat_from_vtcm", "x")), OK,
  Op("flat_from_vtcm", Op("ElementWiseNeg", "x")))
DEF_PACKAGE_OPTIMIZATION(LATE + 1, Op("Neg", Op("flat_from_vtcm", "x")), OK,
  Op("flat_from_vtcm", Op("Neg", "x")))
