// A run's outcome in property tests: the outputs, or the rendered error.
// An interruption (a hang under run_within()) is not an outcome: it
// propagates.
#pragma once

#include "core/error.h"
#include "core/tensor.h"

#include <string>
#include <vector>

namespace teval::test {

struct Outcome {
  std::vector<core::Tensor> out;
  std::string error;
};

template <class F> Outcome outcome(F run) {
  Outcome o;
  try {
    o.out = run();
  } catch (const core::Error& e) {
    if (e.kind() == core::ErrorKind::Interrupted)
      throw; // a hang, which run_within() reports
    o.error = e.render();
  }
  return o;
}

/// The same outputs, bit for bit (errors not compared).
inline bool same_outputs(const Outcome& a, const Outcome& b) {
  if (a.out.size() != b.out.size())
    return false;
  for (size_t i = 0; i < a.out.size(); ++i)
    if (!core::identical(a.out[i], b.out[i]))
      return false;
  return true;
}

/// The same outputs and the same error message.
inline bool identical(const Outcome& a, const Outcome& b) {
  return a.error == b.error && same_outputs(a, b);
}

} // namespace teval::test
