// The values `teval check` judges a candidate by (see evaluate.h).
#include "oracle/evaluate.h"

#include "core/error.h"
#include "core/shape.h"
#include "interp/interpreter.h"
#include "oracle/exact_eval.h"
#include "oracle/fast_sum.h"

#include <algorithm>
#include <map>

namespace teval::oracle {

namespace {

// The walks; \p blocks lets the interpreter evaluate runs of points at once
// (the same values: interp::Options).
Evaluation walk(const core::Kernel& kernel, std::span<const core::Tensor> inputs,
                const BoundOptions& options, bool blocks) {
  Evaluation e;
  e.sequential = interp::run(kernel, inputs, {.blocks = blocks});
  e.exact = run_exact(kernel, inputs);
  e.bounds = bounds(kernel, inputs, options);
  return e;
}

// The bytes the three evaluations keep besides the program's tensors, at
// most: an exact value and an interval for every element the program
// computes, the accumulators of its largest reduction in both walks, and
// the fast check's copy of its inputs as doubles.
int64_t oracle_bytes(const core::Kernel& kernel) {
  const int64_t per_element = sizeof(core::Scalar) + sizeof(Interval);
  const int64_t per_accumulator = exact_accumulator_bytes() + bound_accumulator_bytes();
  int64_t total = 0, largest = 0;
  for (const core::TensorDecl& t : kernel.tensors) {
    int64_t n = core::checked_numel(t.shape).value_or(0);
    total += t.role == core::TensorRole::Input ? n * 8 : n * per_element;
  }
  for (const core::Statement& s : kernel.statements)
    if (s.aggregation != core::Aggregation::Assign)
      largest = std::max(largest, core::checked_numel(kernel.tensors[s.target].shape).value_or(0));
  return total + largest * per_accumulator;
}

// Throws Error(Limit) when the program's tensors and what the oracle keeps
// besides them take more than the memory budget.
void check_oracle_memory(const core::Kernel& kernel) {
  int64_t tensors = 0;
  const core::TensorDecl* widest = nullptr;
  for (const core::TensorDecl& t : kernel.tensors) {
    int64_t bytes = core::checked_numel(t.shape).value_or(0) * core::size_bytes(t.dtype);
    tensors += bytes;
    if (!widest ||
        core::checked_numel(t.shape).value_or(0) > core::checked_numel(widest->shape).value_or(0))
      widest = &t;
  }
  int64_t oracle = oracle_bytes(kernel), limit = core::memory_budget();
  if (widest && tensors + oracle > limit)
    throw core::Error(core::ErrorKind::Limit, widest->span,
                      "checking the program needs about " + std::to_string(oracle) +
                          " bytes for exact values and bounds besides its tensors' " +
                          std::to_string(tensors) + ", beyond the memory budget of " +
                          std::to_string(limit) + " bytes; --max-memory raises it");
}

} // namespace

Evaluation evaluate(const core::Kernel& kernel, std::span<const core::Tensor> inputs,
                    const BoundOptions& options, const EvaluateOptions& how) {
  check_oracle_memory(kernel);
  if (!how.fast)
    return walk(kernel, inputs, options, false);
  std::optional<std::map<int, SumValues>> computed =
      fast_statements(kernel, inputs, options, how.threads);
  if (!computed) // a read out of range: the walks report it
    return walk(kernel, inputs, options, true);
  std::map<int, SumValues>& fast = *computed;
  if (fast.empty())
    return walk(kernel, inputs, options, true);
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
