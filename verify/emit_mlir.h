// `teval emit --to mlir`: a program as one MLIR module (docs/EMIT.md): each
// statement a linalg.generic on tensors, and a main that reads one NAME.npy
// per input and writes one NAME.npy per output through the C library, so
// that mlir-opt and mlir-cpu-runner (MLIR 19) compile and run it as it is.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"
#include "verify/emit.h"

#include <map>
#include <string>

namespace teval::verify {

/// Where the emitted main finds its inputs and puts its outputs, and
/// whether the module carries a schedule that vectorizes its generics.
struct MlirOptions {
  std::string inputs = ".";
  std::string outputs = ".";
  /// A transform-dialect script (@__transform_main, for mlir-opt's
  /// --transform-interpreter) that tiles each generic by up to 8 in its
  /// last dimension and 4 in the one before, 1 in the others, and
  /// vectorizes the tile; a generic with an scf.if or a call is only tiled.
  bool vectorize = false;
};

/// The mlir-opt-19 options that lower an emitted module to the LLVM
/// dialect: "loops" (linalg to scf loops), "affine" (to affine loops, then
/// loop fusion, scalar replacement and super-vectorization by 8), or
/// "vector" (the module's own transform script, for --vectorize modules).
std::string mlir_pipeline(const std::string& variant);
/// The runtime library mlir-cpu-runner-19 loads (Debian's libmlir-19), for
/// the memref copies bufferization makes.
inline constexpr const char* kMlirRunnerLibrary =
    "/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so.19.1";
/// The command running a lowered module, without the module's file.
inline constexpr const char* kMlirRunner =
    "mlir-cpu-runner-19 -shared-libs=/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so.19.1 "
    "-e main -entry-point-result=void";

/// \p k as an MLIR module; Inexpressible when it cannot be. \p constants:
/// inputs that are the program's own values, written into the code.
/// \p origin names the program in the header comment.
std::string emit_mlir(const core::Kernel& k, const std::string& origin, const MlirOptions& options,
                      const std::map<std::string, core::Tensor>& constants = {});

} // namespace teval::verify
