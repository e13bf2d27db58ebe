// The built-in backends of teval fuzz: shell commands that teval writes
// itself, from teval emit to another compiler and back (docs/CAMPAIGNS.md).
#pragma once

#include <optional>
#include <string>

namespace teval::tools {

/// The command of built-in backend \p name: "cc:gcc" and "cc:clang" (the
/// case as C, teval emit --to c, compiled at -O3 -march=native, its
/// vectorizers on); "mlir:loops", "mlir:affine" and "mlir:vector" (the
/// case as linalg on tensors, teval emit --to mlir, lowered by mlir-opt-19
/// and run by mlir-cpu-runner-19; a program linalg cannot express is
/// declined); "torchscript" and "torchscript:nofuse" (the case as a
/// TorchScript function, teval emit --to torchscript, run by Debian's
/// python3 with the NNC fuser on or with no fuser); "halide" (the case as
/// a Halide pipeline, teval emit --to halide, scheduled from the program's
/// seed and JIT-compiled by Debian's python3-halide). Empty for another
/// name; a UsageError when what it needs is not installed.
std::string builtin_backend(const std::string& name);

/// The generator profile built-in backend \p name campaigns with unless
/// told (Profile::parse's words), or nothing.
std::optional<std::string> backend_profile(const std::string& name);

} // namespace teval::tools
