// The values `teval check` judges a candidate by (see evaluate.h).
#include "oracle/evaluate.h"

#include "interp/interpreter.h"
#include "oracle/exact_eval.h"
#include "oracle/fast_sum.h"

#include <map>

namespace teval::oracle {

namespace {

Evaluation walk(const core::Kernel& kernel, std::span<const core::Tensor> inputs,
                const BoundOptions& options) {
  Evaluation e;
  e.sequential = interp::run(kernel, inputs);
  e.exact = run_exact(kernel, inputs);
  e.bounds = bounds(kernel, inputs, options);
  return e;
}

} // namespace

Evaluation evaluate(const core::Kernel& kernel, std::span<const core::Tensor> inputs,
                    const BoundOptions& options, const EvaluateOptions& how) {
  if (!how.fast)
    return walk(kernel, inputs, options);
  std::optional<std::map<int, SumValues>> computed =
      fast_statements(kernel, inputs, options, how.threads);
  if (!computed) // a read out of range: the walks report it
    return walk(kernel, inputs, options);
  std::map<int, SumValues>& fast = *computed;
  if (fast.empty())
    return walk(kernel, inputs, options);
  // The rest of the program, with those tensors given: as inputs to the
  // interpreter and the exact walk, as provided bounds to the bound walk.
  core::Kernel rest = kernel;
  rest.statements.clear();
  for (const core::Statement& s : kernel.statements)
    if (!fast.count(s.target))
      rest.statements.push_back(s);
  for (auto& [id, v] : fast)
    rest.tensors[static_cast<size_t>(id)].role = core::TensorRole::Input;
  std::vector<core::Tensor> sequential_inputs, exact_inputs;
  size_t next = 0;
  for (int id : interp::input_ids(rest)) {
    auto it = fast.find(id);
    sequential_inputs.push_back(it == fast.end() ? inputs[next] : it->second.sequential);
    exact_inputs.push_back(it == fast.end() ? inputs[next] : it->second.exact);
    if (it == fast.end())
      ++next;
  }
  Evaluation e;
  e.sequential = interp::run(rest, sequential_inputs);
  e.exact = run_exact(rest, exact_inputs);
  std::map<int, std::vector<Interval>> provided;
  for (auto& [id, v] : fast)
    provided.emplace(id, std::move(v.bound));
  e.bounds = bounds(kernel, inputs, options, std::move(provided));
  return e;
}

} // namespace teval::oracle
