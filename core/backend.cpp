// Running a backend under a time budget (see backend.h).
#include "core/backend.h"

#include "core/error.h"
#include "core/interrupt.h"

#include <algorithm>
#include <cmath>
#include <exception>

namespace teval::core {

namespace {

// Runs \p e on \p inputs into \p out; the Error it threw, if any.
std::exception_ptr run_once(Executable& e, std::span<const Tensor> inputs,
                            std::vector<Tensor>& out) {
  try {
    out = e.run(inputs);
    return nullptr;
  } catch (const Error&) {
    out.clear();
    return std::current_exception();
  }
}

std::string rendered(const std::exception_ptr& error) {
  if (!error)
    return "";
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    return e.render();
  }
}

} // namespace

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
    auto run = [&] {
      std::exception_ptr first = run_once(*executable, inputs, o.outputs);
      if (executable->keeps_state()) {
        std::vector<Tensor> again;
        std::string second = rendered(run_once(*executable, inputs, again));
        bool same = rendered(first) == second && again.size() == o.outputs.size();
        for (size_t i = 0; same && i < again.size(); ++i)
          same = identical(again[i], o.outputs[i]);
        if (!same)
          throw Error(ErrorKind::Range, "",
                      "internal error: a second run, on the buffers the first left, " +
                          (second.empty() ? std::string("gave other outputs")
                                          : "failed otherwise:\n" + second));
      }
      if (first)
        std::rethrow_exception(first);
    };
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
