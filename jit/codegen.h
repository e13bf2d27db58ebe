// LLVM IR generation for a loop nest (internal to jit/).
#pragma once

#include "core/loopnest.h"
#include "jit/runtime.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <vector>

namespace teval::jit {

/// A module holding the kernel, and the error sites its code refers to.
struct Generated {
  std::unique_ptr<llvm::Module> module;
  std::vector<Site> sites;
};

/// Freedoms the code may take with float arithmetic beyond the
/// interpreter's bits (JitOptions::any_order and fma).
struct FloatFreedom {
  bool any_order = false;
  bool fma = false;
};

/// The LLVM IR of \p nest as function
/// `int32_t entry(void** buffers, RunContext* ctx)`, where buffers holds one
/// data pointer per loop-nest buffer; it returns 0, or 1 after reporting an
/// error through teval_rt_fail. The function computes bit for bit what IREval computes
/// (docs/SEMANTICS.md, "Compiled code"). \p cpu and \p features become the
/// function attributes the optimiser and the vectorizers see. The nest's
/// top-level statements go into functions of at most \p statements_per_function
/// each (JitOptions). With \p freedom, results are no longer bit for bit
/// IREval's but within teval check's bound (docs/SEMANTICS.md, "Relaxed
/// float arithmetic").
Generated generate(const core::LoopNest& nest, const std::string& entry, llvm::LLVMContext& context,
                   const std::string& cpu, const std::string& features,
                   size_t statements_per_function = 16, FloatFreedom freedom = {});

/// A module in a context of its own: one piece of a kernel, which can be
/// optimised and compiled on a thread of its own.
struct Piece {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
};

/// A kernel's code in pieces, and the error sites of all of them.
struct GeneratedPieces {
  std::vector<Piece> pieces;
  std::vector<Site> sites;
};

/// generate(), where a kernel has a heavy top-level statement (two vector
/// loops or more, as a register tile's copies are) among others: each
/// heavy statement and each parallel one in a piece of its own, an
/// external function named after \p entry that the first piece, which
/// holds the entry and the other statements, calls. The pieces are linked
/// by name.
GeneratedPieces generate_pieces(const core::LoopNest& nest, const std::string& entry,
                                const std::string& cpu, const std::string& features,
                                size_t statements_per_function = 16, FloatFreedom freedom = {});

} // namespace teval::jit
