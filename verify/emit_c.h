// `teval emit --to c`: a program as a complete C program that computes the
// interpreter's bits (docs/EMIT.md): a main that reads one NAME.npy per
// input from a directory and writes one NAME.npy per output to another,
// and on the program's error (an out-of-range read, integer division by
// zero, ...) prints it and exits 1, writing nothing.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"

#include <map>
#include <string>

namespace teval::verify {

/// \p k as C source (GNU C: GCC or Clang). \p constants: inputs that are
/// the program's own values (an MLIR function's), written into the code.
/// \p origin names the program in the header comment.
std::string emit_c(const core::Kernel& k, const std::string& origin,
                   const std::map<std::string, core::Tensor>& constants = {});

} // namespace teval::verify
