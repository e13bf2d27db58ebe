// `teval emit --to halide`: a program as a Python script that builds one
// Halide pipeline (Halide 14's Python bindings, docs/EMIT.md): each
// statement a Func computed at the root with one update folding its values,
// a schedule drawn from a seed (inline or root values, vectorize, parallel,
// split, unroll, rfactor), and a main that reads one NAME.npy per input from
// a directory, JIT-compiles and realizes the outputs, and writes one
// NAME.npy per output to another.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"
#include "verify/emit.h"

#include <map>
#include <string>

namespace teval::verify {

/// \p k as a Python script for Halide 14 and numpy; Inexpressible when it
/// cannot be (bfloat16, which Halide's Python bindings lack; `%` of floats,
/// erf of float64 and normcdf, which Halide does not define). \p constants:
/// inputs that are the program's own values (an MLIR function's), written
/// into the script. \p origin names the program in the header comment; the
/// default schedule seed is a hash of \p k's JSON form, so that a program
/// always gets the same schedule.
std::string emit_halide(const core::Kernel& k, const std::string& origin,
                        const std::map<std::string, core::Tensor>& constants = {});

} // namespace teval::verify
