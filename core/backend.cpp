// Running a backend under a time budget (see backend.h).
#include "core/backend.h"

#include "core/error.h"
#include "core/interrupt.h"

#include <algorithm>
#include <cmath>

namespace teval::core {

Outcome evaluate(Backend& backend, const Kernel& kernel, std::span<const Tensor> inputs,
                 std::optional<std::chrono::milliseconds> budget) {
  Outcome o;
  std::unique_ptr<Executable> executable;
  try {
    executable = backend.prepare(kernel);
  } catch (const Error& e) {
    o.error = e.render();
    o.unsupported = e.kind() == ErrorKind::Unsupported;
    return o;
  }
  auto start = std::chrono::steady_clock::now();
  try {
    auto run = [&] { o.outputs = executable->run(inputs); };
    if (budget)
      o.hang = !run_within(*budget, run);
    else
      run();
  } catch (const Error& e) {
    o.outputs.clear();
    o.error = e.render();
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return o;
}

std::chrono::milliseconds hang_budget(double reference_seconds) {
  double ms = std::max(1000.0, 50.0 * reference_seconds * 1000.0);
  return std::chrono::milliseconds(static_cast<int64_t>(std::min(ms, 1e12)));
}

} // namespace teval::core
