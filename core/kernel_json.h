// The Kernel IR as JSON (`teval lower --json`): the typed, elaborated
// program an adapter translates to another compiler's input without
// re-deriving the notation's semantics. The schema is docs/KERNEL_JSON.md;
// its version is kKernelJsonVersion, raised on any change an existing
// reader could misread.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"

#include <map>
#include <string>
#include <string_view>

namespace teval::core {

inline constexpr int kKernelJsonVersion = 1;

/// \p k as one JSON document (schema "teval-kernel", kKernelJsonVersion).
/// Inputs named in \p constants are the program's own values (an MLIR
/// function's dense constants): their elements are written out, in C order.
std::string kernel_json(const Kernel& k, const std::map<std::string, Tensor>& constants = {});

/// The JSON name of \p op ("add", "exp", "lt", ...): one word per
/// operator, stable across versions of the schema.
std::string_view json_name(Op op);

} // namespace teval::core
