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

/// The LLVM IR of \p nest as function
/// `int32_t entry(void** buffers, RunContext* ctx)`, where buffers holds one
/// data pointer per loop-nest buffer; it returns 0, or 1 after reporting an
/// error through teval_rt_fail. The function computes bit for bit what IREval computes
/// (docs/SEMANTICS.md, "Compiled code"). \p cpu and \p features become the
/// function attributes the optimiser and the vectorizers see. The nest's
/// top-level statements go into functions of at most \p statements_per_function
/// each (JitOptions).
Generated generate(const core::LoopNest& nest, const std::string& entry, llvm::LLVMContext& context,
                   const std::string& cpu, const std::string& features,
                   size_t statements_per_function = 16);

} // namespace teval::jit
