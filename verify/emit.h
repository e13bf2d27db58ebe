// What the emitters (teval emit --to c|mlir|torchscript|halide) share.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace teval::verify {

/// A program the target language cannot express as teval means it (MLIR's
/// linalg: a Tile constraint, a write that is not one element per point,
/// bfloat16; TorchScript: an int64 converted to bfloat16, ...). teval emit
/// exits with status 3.
struct Inexpressible : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Literals of the Python scripts the TorchScript and Halide emitters write.
namespace python {
/// \p v, INT64_MIN included.
std::string int_literal(int64_t v);
/// The exact value (%.17g, math.nan, math.inf) as a Python float.
std::string float_literal(double v);
} // namespace python

} // namespace teval::verify
