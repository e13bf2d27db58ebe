// What the emitters (teval emit --to c|mlir|torchscript) share.
#pragma once

#include <stdexcept>

namespace teval::verify {

/// A program the target language cannot express as teval means it (MLIR's
/// linalg: a Tile constraint, a write that is not one element per point,
/// bfloat16; TorchScript: an int64 converted to bfloat16, ...). teval emit
/// exits with status 3.
struct Inexpressible : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace teval::verify
