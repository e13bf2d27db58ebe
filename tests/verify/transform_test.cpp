// Loop transformations preserve results: on random programs, a randomly
// transformed loop nest computes what the lowered nest computes (IREval),
// and compiled code computes what IREval computes on the transformed nest.
#include "core/backend.h"
#include "core/interrupt.h"
#include "core/lower.h"
#include "core/transform.h"
#include "interp/ireval.h"
#include "interp/random_inputs.h"
#include "jit/jit.h"
#include "tests/support/outcome.h"
#include "verify/generators.h"
#include "verify/transforms.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <chrono>

namespace teval::verify {
namespace {

using test::Outcome;
using test::outcome;
using test::same_outputs;

jit::Jit& shared_jit() {
  static jit::Jit j;
  return j;
}

// Checks that \p steps applied to a random program's loop nest preserve
// its results under IREval, and that the JIT agrees with IREval on the
// transformed nest. Tags the number of steps that applied.
void check_steps(const std::vector<TransformStep>& steps) {
  Program p = *antares_program();
  uint32_t seed = *rc::gen::arbitrary<uint32_t>();
  std::shared_ptr<const core::SourceFile> keep;
  core::Kernel k = elaborate(p, keep);
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, seed);
  core::LoopNest nest = core::lower(k);
  std::string log;
  core::LoopNest transformed = apply_steps(nest, steps, &log);
  size_t applied = 0;
  for (size_t at = log.find(": applied"); at != std::string::npos;
       at = log.find(": applied", at + 1))
    ++applied;
  RC_TAG(applied);
  RC_LOG() << "program: " << p.text << "\nsteps:\n"
           << log << "transformed:\n"
           << core::to_string(transformed);
  auto start = std::chrono::steady_clock::now();
  Outcome before = outcome([&] { return interp::ireval(nest, inputs); });
  std::chrono::milliseconds budget = core::hang_budget(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  // The transformed nest and its compiled code run under a time budget: a
  // transformation or code generation bug that loops forever fails the case.
  Outcome after, compiled;
  bool finished = core::run_within(
      budget, [&] { after = outcome([&] { return interp::ireval(transformed, inputs); }); });
  RC_ASSERT_FALSE(!finished && "IREval of the transformed nest hangs");
  // Errors: whether one happens is preserved; which one may change with
  // the iteration order.
  RC_ASSERT(before.error.empty() == after.error.empty());
  RC_ASSERT(same_outputs(before, after));
  std::unique_ptr<jit::CompiledKernel> kernel = shared_jit().compile(transformed);
  finished =
      core::run_within(budget, [&] { compiled = outcome([&] { return kernel->run(inputs); }); });
  RC_ASSERT_FALSE(!finished && "the compiled transformed nest hangs");
  RC_ASSERT(compiled.error == after.error);
  RC_ASSERT(same_outputs(compiled, after));
}

RC_GTEST_PROP(Transform, RandomTransformationsPreserveResults, ()) {
  check_steps(*transform_steps());
}

// One property per transformation, so each is exercised on its own.
RC_GTEST_PROP(Transform, SplitWithTailPreservesResults, ()) {
  check_steps(*transform_steps(TransformStep::Split));
}
RC_GTEST_PROP(Transform, SplitWithMaskPreservesResults, ()) {
  check_steps(*transform_steps(TransformStep::SplitMasked));
}
RC_GTEST_PROP(Transform, ReorderPreservesResults, ()) {
  check_steps(*transform_steps(TransformStep::Reorder));
}
RC_GTEST_PROP(Transform, TilePreservesResults, ()) {
  check_steps(*transform_steps(TransformStep::Tile));
}
RC_GTEST_PROP(Transform, UnrollPreservesResults, ()) {
  check_steps(*transform_steps(TransformStep::Unroll));
}
RC_GTEST_PROP(Transform, VectorizePreservesResults, ()) {
  check_steps(*transform_steps(TransformStep::Vectorize));
}
// Every loop marked at once: the vectorizer then meets every loop of the
// nest, reductions included, whichever ends up innermost.
RC_GTEST_PROP(Transform, VectorizingEveryLoopPreservesResults, ()) {
  std::vector<TransformStep> every;
  for (int loop = 0; loop < 8; ++loop)
    every.push_back({TransformStep::Vectorize, loop});
  check_steps(every);
}
RC_GTEST_PROP(Transform, RegisterTilePreservesResults, ()) {
  check_steps(*transform_steps(TransformStep::RegisterTile));
}
RC_GTEST_PROP(Transform, FusePreservesResults, ()) {
  check_steps(*transform_steps(TransformStep::Fuse));
}

TEST(Transform, SplitWithTailKeepsEveryIteration) {
  // A hand-built nest: out[i] = i for i in [0, 7), split by 3.
  core::LoopNest n;
  int out = n.add_buffer({"out", core::DType::Int32, {7}, core::BufferKind::Output, {}});
  int i = n.add_var("i", core::DType::Int32, true);
  n.outputs = {out};
  n.root = core::make_for(i, core::int64(0), core::int64(7),
                          core::make_store(out, {core::make_var(i, core::DType::Int32)},
                                           core::make_var(i, core::DType::Int32)));
  for (core::SplitTail tail : {core::SplitTail::Separate, core::SplitTail::Mask}) {
    std::optional<core::LoopNest> s = core::split(n, i, 3, tail);
    ASSERT_TRUE(s);
    std::vector<core::Tensor> r = interp::ireval(*s, {});
    for (int k = 0; k < 7; ++k)
      EXPECT_EQ(r[0].get(k).i, k);
  }
}

TEST(Transform, ReorderRefusesToReorderAReduction) {
  // out[0] += in[i][j] over i and j: swapping i and j would change the
  // order of float additions into one location.
  core::LoopNest n;
  int in = n.add_buffer({"in", core::DType::Float32, {2, 2}, core::BufferKind::Input, {}});
  int out = n.add_buffer({"out", core::DType::Float32, {1}, core::BufferKind::Output, {}});
  int i = n.add_var("i", core::DType::Int64, true), j = n.add_var("j", core::DType::Int64, true);
  n.inputs = {in};
  n.outputs = {out};
  core::Expr acc = core::make_load(out, core::DType::Float32, {core::int64(0)});
  core::Expr x = core::make_load(
      in, core::DType::Float32,
      {core::make_var(i, core::DType::Int64), core::make_var(j, core::DType::Int64)});
  n.root =
      core::make_for(i, core::int64(0), core::int64(2),
                     core::make_for(j, core::int64(0), core::int64(2),
                                    core::make_store(out, {core::int64(0)},
                                                     core::make_apply(core::Op::Add, {acc, x}))));
  std::string why;
  EXPECT_FALSE(core::reorder(n, i, j, &why));
  EXPECT_EQ(why, "a stored buffer's index does not separate the iterations");
}

TEST(Transform, AVectorizedReductionLoopKeepsItsOrder) {
  // out[0] += in[i] over 64 iterations of a loop marked Vectorized: the
  // mark may not license reordering the float sum. in = 1e8, 2, 2, ...: in
  // order every 2 is lost to rounding (the ulp of 1e8 in float32 is 8); in
  // lanes the twos add up to multiples of 8 before they meet 1e8.
  core::LoopNest n;
  int in = n.add_buffer({"in", core::DType::Float32, {64}, core::BufferKind::Input, {}});
  int out = n.add_buffer({"out", core::DType::Float32, {1}, core::BufferKind::Output, {}});
  int i = n.add_var("i", core::DType::Int64, true);
  n.inputs = {in};
  n.outputs = {out};
  core::Expr acc = core::make_load(out, core::DType::Float32, {core::int64(0)});
  core::Expr x = core::make_load(in, core::DType::Float32, {core::make_var(i, core::DType::Int64)});
  n.root = core::make_for(
      i, core::int64(0), core::int64(64),
      core::make_store(out, {core::int64(0)}, core::make_apply(core::Op::Add, {acc, x})));
  std::optional<core::LoopNest> v = core::vectorize(n, i);
  ASSERT_TRUE(v);
  std::vector<core::Tensor> values;
  values.emplace_back(core::DType::Float32, core::Shape{64});
  for (int k = 0; k < 64; ++k)
    values[0].set(k, core::Scalar::of_float(core::DType::Float32, k == 0 ? 1e8 : 2));
  std::vector<core::Tensor> r = shared_jit().compile(*v)->run(values);
  EXPECT_EQ(r[0].get(0).f, 1e8);
}

} // namespace
} // namespace teval::verify
