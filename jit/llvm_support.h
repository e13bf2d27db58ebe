// What the host JIT and the Hexagon target share once a module is
// generated (internal to jit/): LLVM's errors at the edge of jit/, the
// optimisation pipeline, and emitting a module as text or an object.
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include "core/error.h"
#include "core/loopnest.h"

#include <string>

namespace teval::jit {

// llvm::Error at the edge of jit/: a failure here is teval's bug or a
// broken LLVM installation, never the user's program.
template <class T> T check(llvm::Expected<T> value, const char* what) {
  if (!value)
    TEVAL_UNREACHABLE(std::string(what) + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}
template <class T> T& check(llvm::Expected<T&> value, const char* what) {
  if (!value)
    TEVAL_UNREACHABLE(std::string(what) + ": " + llvm::toString(value.takeError()));
  return *value;
}
inline void check(llvm::Error error, const char* what) {
  if (error)
    TEVAL_UNREACHABLE(std::string(what) + ": " + llvm::toString(std::move(error)));
}

/// The vector registers of an x86-64 target with LLVM's \p features
/// ("+avx512f,..."): 32 of 64 bytes with AVX-512, 16 of 32 with AVX, 16 of
/// 16 otherwise. The schedule sizes register tiles for them
/// (core::ScheduleOptions::vector_bytes), and the code generator makes LLVM
/// use vectors of that size: on Intel's server cores LLVM prefers 256-bit
/// vectors, which doubled a tile's vectors past the registers (a padded
/// 56-wide convolution spilled: 15 G MAC/s on one core, 35 with 512-bit).
struct VectorRegisters {
  int64_t bytes;
  int64_t count;
};
VectorRegisters x86_vector_registers(const std::string& features);

/// Runs the new pass manager's O0-O3 pipeline (\p opt_level) on \p m for
/// \p target, with loop vectorization from O2 unless \p vectorize is false,
/// and SLP vectorization too unless \p slp is false.
void optimize(llvm::Module& m, llvm::TargetMachine& target, int opt_level, bool vectorize = true,
              bool slp = true);

/// Whether \p nest's code may be SLP-vectorized. LLVM 19's SLP vectorizer
/// narrows integer operations to the fewest bits it believes their values
/// need, and believes wrongly for values that reach an unsigned conversion
/// to float or an integer comparison: `(uint32(x) - 5u).cast(float32)` of
/// a uint8 x, two elements wide, became a 16-bit subtraction converted as
/// unsigned (65535.0 where 4294967295 rounds to 4294967296.0). So a nest
/// that computes with integer values (an integer or bool buffer, an
/// unsigned value, a conversion between integers and floats) is compiled
/// without it; loops are still vectorized (the loop vectorizer narrows by
/// the bits a value's users demand). Float nests keep it: it makes the
/// scalar calls a vectorized loop leaves into calls of vector_math's
/// variants. Their integer arithmetic is index arithmetic, signed and
/// never converted to float.
bool slp_is_sound(const core::LoopNest& nest);

/// \p m as \p target's assembly or object file.
std::string emit_file(llvm::Module& m, llvm::TargetMachine& target, llvm::CodeGenFileType type);

/// \p m as LLVM IR text.
std::string print_module(const llvm::Module& m);

} // namespace teval::jit
