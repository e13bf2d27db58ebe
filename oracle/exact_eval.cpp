// The exact mode of evaluation (see exact_eval.h).
#include "oracle/exact_eval.h"

#include "oracle/dyadic.h"
#include "oracle/exact_math.h"
#include "oracle/fast_sum.h"
#include "oracle/walk.h"

namespace teval::oracle {

namespace {

/// Values are the dtype's own; float sums and products accumulate exactly.
class ExactDomain {
public:
  using Value = core::Scalar;
  struct Acc {
    core::Aggregation aggregation;
    core::DType dtype;
    bool first_value; // Start::FirstValue and nothing written yet
    core::Scalar value;
    std::optional<Dyadic> exact; // float Sum and Product
    core::Span span;             // the statement's, for a product too long to keep
  };
  static constexpr bool kUncertain = false;

  Value constant(const core::Scalar& v) { return v; }
  Value index_value(core::DType t, int64_t v) { return core::Scalar::of_int(t, v); }
  std::optional<int64_t> index(const Value& v) { return v.i; }
  Truth truth(const Value& v) { return v.truthy() ? Truth::True : Truth::False; }
  Value apply(const core::ExprNode& e, const core::Apply& a, const Value* args, bool) {
    if (is_math_function(a.op))
      return core::Scalar::of_float(
          e.dtype, correctly_rounded(a.op, e.dtype, args[0].f, a.args.size() > 1 ? args[1].f : 0));
    return core::apply(a.op, args, e.dtype, a.overflow);
  }
  Value cast(const Value& v, core::DType t) { return core::cast(v, t); }
  Value join(const Value&, const Value& b) { return b; }
  Value unknown(core::DType t) { return core::constant(t, 0); }

  Acc accumulator(const core::Statement& s, core::DType t, const Value& fill) {
    Acc acc{s.aggregation, t, s.start == core::Start::FirstValue, fill, std::nullopt, s.span};
    if (!acc.first_value)
      start_exact(acc, fill);
    return acc;
  }
  void add(Acc& acc, const Value& v) {
    if (acc.first_value) {
      acc.first_value = false;
      acc.value = v;
      start_exact(acc, v);
      return;
    }
    if (!acc.exact) {
      acc.value = core::combine(acc.aggregation, acc.value, v);
    } else if (acc.aggregation == core::Aggregation::Sum) {
      acc.exact->add(v.f);
    } else {
      try {
        acc.exact->multiply(v.f);
      } catch (const core::Error& e) {
        throw core::Error(e.kind(), acc.span, e.message());
      }
    }
  }
  Value finish(const Acc& acc) {
    if (!acc.exact)
      return acc.value;
    return core::Scalar::of_float(acc.dtype, acc.exact->round_to(acc.dtype));
  }

private:
  static void start_exact(Acc& acc, const Value& first) {
    if (!core::is_float(acc.dtype))
      return;
    if (acc.aggregation == core::Aggregation::Sum) {
      acc.exact = Dyadic::of(first.f);
    } else if (acc.aggregation == core::Aggregation::Product) {
      acc.exact = Dyadic::one();
      acc.exact->multiply(first.f);
    }
  }
};

} // namespace

size_t exact_accumulator_bytes() {
  return sizeof(ExactDomain::Acc) + Dyadic::typical_heap_bytes();
}

std::vector<core::Tensor> run_exact(const core::Kernel& kernel,
                                    std::span<const core::Tensor> inputs) {
  ExactDomain domain;
  std::vector<std::vector<core::Scalar>> outs = Walk<ExactDomain>(kernel, domain).run(inputs);
  std::vector<core::Tensor> result;
  for (size_t o = 0; o < outs.size(); ++o) {
    const core::TensorDecl& d = kernel.tensors[kernel.outputs[o]];
    core::Tensor t(d.dtype, d.shape);
    for (size_t i = 0; i < outs[o].size(); ++i)
      t.set(static_cast<int64_t>(i), outs[o][i]);
    result.push_back(std::move(t));
  }
  return result;
}

std::pair<std::vector<Dependency>, int64_t> dependencies(const core::Kernel& kernel,
                                                         std::span<const core::Tensor> inputs,
                                                         size_t output, int64_t flat,
                                                         size_t limit) {
  ExactDomain domain;
  Walk<ExactDomain> walk(kernel, domain);
  int traced = kernel.outputs.at(output);
  walk.trace(traced, flat, limit);
  // The contractions before the traced statement, computed fast; the walk
  // visits only the points that write the traced element.
  if (auto fast = fast_statements(kernel, inputs, {}, 0, traced))
    for (auto& [id, v] : *fast) {
      std::vector<core::Scalar> values(static_cast<size_t>(v.exact.numel()));
      for (int64_t i = 0; i < v.exact.numel(); ++i)
        values[static_cast<size_t>(i)] = v.exact.get(i);
      walk.provide(id, std::move(values));
    }
  walk.run(inputs);
  std::vector<Dependency> deps;
  for (const Read<core::Scalar>& r : walk.reads())
    deps.push_back({kernel.tensors[r.tensor].name, r.index, r.value});
  return {deps, walk.read_count()};
}

} // namespace teval::oracle
