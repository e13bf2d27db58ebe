// Vector versions of teval's math functions for LLVM's loop vectorizer
// (internal to jit/). A loop that calls an opaque function stays scalar; a
// call marked with vector variants (the VFABI attribute
// "vector-function-abi-variant") lets the vectorizer call the variant of its
// width instead. Each variant computes, lane by lane, the bits the scalar
// function returns: the same IEEE operations in the same order, and the
// scalar function itself for the lanes its fast path leaves to it.
#pragma once

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <string>

namespace teval::jit::detail {

/// Marks \p call, a call of a function of teval's math library, pure: it
/// reads and writes no memory, returns and does not unwind, and the
/// optimiser may not take it for the C library's function of its name.
void mark_math_call(llvm::CallInst& call);

/// Marks \p call, a call of teval_expf (core/tmath.h), with vector
/// variants defined in its module (once per module) for the host's
/// \p cpu and \p features.
void add_vector_variants_of_expf(llvm::CallInst& call, const std::string& cpu,
                                 const std::string& features);

/// Removes the variants the vectorizer did not use (they are kept alive
/// for it until then), after optimisation.
void drop_unused_vector_variants(llvm::Module& m);

} // namespace teval::jit::detail
