// `teval emit --to torchscript`: a program as a Python script whose kernel
// is one TorchScript function (docs/EMIT.md), and a main that reads one
// NAME.npy per input from a directory, runs the kernel with or without
// TorchScript's NNC fuser, and writes one NAME.npy per output to another;
// on the program's error it prints it and exits 1, writing nothing.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"
#include "verify/emit.h"

#include <map>
#include <string>

namespace teval::verify {

/// \p k as a Python script (PyTorch 1.13 or later, numpy); Inexpressible
/// when it cannot be (an int64 converted to bfloat16). \p constants: inputs
/// that are the program's own values (an MLIR function's), written into
/// the script. \p origin names the program in the header comment.
std::string emit_torchscript(const core::Kernel& k, const std::string& origin,
                             const std::map<std::string, core::Tensor>& constants = {});

} // namespace teval::verify
