// What a compiled kernel holds (internal to jit/): its scheduled loop nest,
// its code and entry point, and the spare temps its runs reuse. Shared by
// the compiler (jit.cpp) and the run path (run.cpp).
#pragma once

#include "core/loopnest.h"
#include "core/tensor.h"
#include "jit/jit.h"
#include "jit/runtime.h"

#include <llvm/ExecutionEngine/Orc/Core.h>

#include <cstdint>
#include <mutex>
#include <vector>

namespace teval::jit {

struct CompiledKernel::State {
  core::LoopNest nest;
  bool watermarks = true;
  int threads = 1;
  std::vector<Site> sites;
  llvm::orc::ResourceTrackerSP tracker;
  int32_t (*entry)(void**, RunContext*) = nullptr;
  // Sets of temp buffers kept between runs (Spares).
  std::mutex scratch_mutex;
  std::vector<std::vector<core::Tensor>> scratch;
};

} // namespace teval::jit
