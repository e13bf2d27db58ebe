// What the libFuzzer harnesses share: a reader's errors are diagnostics
// (rendered, to exercise the renderer too); anything else (a crash, a
// sanitizer report, another exception, an assertion) is a finding.
#pragma once

#include "core/error.h"
#include "core/kernel.h"
#include "core/loopnest.h"
#include "core/lower.h"
#include "interp/interpreter.h"
#include "interp/random_inputs.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace teval::fuzz {

/// The fuzzer's bytes as text.
inline std::string text_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Runs \p f; a core::Error is an expected outcome.
template <class F> void guarded(F&& f) {
  try {
    f();
  } catch (const core::Error& e) {
    volatile size_t n = e.render().size();
    (void)n;
  }
}

/// Whether \p k is small enough to evaluate within a fuzzer's time per
/// input: every statement walks at most 2^14 points, every tensor holds at
/// most 2^16 elements.
inline bool small_enough(const core::Kernel& k) {
  for (const core::TensorDecl& t : k.tensors) {
    int64_t n = 1;
    for (int64_t d : t.shape)
      if (d < 0 || (n *= std::max<int64_t>(d, 1)) > (1 << 16))
        return false;
  }
  for (const core::Statement& s : k.statements) {
    int64_t n = 1;
    for (const core::IndexVar& v : s.vars) {
      int64_t e = v.end - v.begin;
      if (e < 0 || e > (1 << 14) || (n *= std::max<int64_t>(e, 1)) > (1 << 14))
        return false;
    }
  }
  return true;
}

/// Lowers \p k and, when it is small, evaluates it on seeded inputs.
inline void exercise(const core::Kernel& k) {
  volatile size_t n = core::to_string(core::lower(k)).size();
  (void)n;
  if (!small_enough(k))
    return;
  guarded([&] { interp::run(k, interp::make_inputs(k, {}, 1)); });
}

} // namespace teval::fuzz
