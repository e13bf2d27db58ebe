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
#include "tests/support/programs.h"
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
RC_GTEST_PROP(Transform, SplitRangePreservesResults, ()) {
  check_steps(*transform_steps(TransformStep::SplitRange));
}
RC_GTEST_PROP(Transform, PaddingGuardedReadsPreservesResults, ()) {
  check_steps(*transform_steps(TransformStep::PadGuardedReads));
}
RC_GTEST_PROP(Transform, DroppingDeadFillsPreservesResults, ()) {
  check_steps(*transform_steps(TransformStep::DropDeadFills));
}

// A 1-D convolution over 7 points with a 3-wide window and one element of
// padding each side; \p when is its read's condition and default.
core::LoopNest padded_convolution(const std::string& when, const std::string& index = "X + K - 1",
                                  const std::string& input = "[2, 7]") {
  return core::lower(test::elaborate(
      "- einstein_v2(\"output0[F, X] +=! input0[C, " + index + "].when(" + when +
      ") * input1[F, C, K] where X in 7\", {\"input0\": {\"dtype\": \"float32\", \"shape\": " +
      input + "}, \"input1\": {\"dtype\": \"float32\", \"shape\": [3, 2, 3]}})"));
}

int var_named(const core::LoopNest& n, const std::string& name) {
  for (size_t v = 0; v < n.vars.size(); ++v)
    if (n.vars[v].name == name)
      return static_cast<int>(v);
  return -1;
}

// Stores into buffer \p b in \p n.
int stores_into(const core::LoopNest& n, int b) {
  int count = 0;
  core::each_stmt(n.root, [&](const core::Stmt& s) {
    const auto* store = std::get_if<core::Store>(&s->node);
    count += store && store->buffer == b;
  });
  return count;
}

// The window is read from a copy over every index it takes ([-1, 8], so 9
// wide after the channel axis), without its condition and with its index's
// constant folded; the copy is filled with the default only when that is
// not all zero bits (-0.0 is not); and IREval computes the same bits.
TEST(Transform, AConvolutionsGuardedWindowIsReadFromAPaddedCopy) {
  for (const std::string pad : {"0.0", "-0.0", "2.5"}) {
    core::LoopNest n = padded_convolution("[X + K - 1 >= 0, X + K - 1 < 7], " + pad);
    std::string why;
    std::optional<core::LoopNest> p = core::pad_guarded_reads(n, var_named(n, "X"), 1000, &why);
    ASSERT_TRUE(p) << why;
    ASSERT_EQ(p->buffers.size(), n.buffers.size() + 1);
    const core::Buffer& copy = p->buffers.back();
    EXPECT_EQ(copy.name, "input0_padded");
    EXPECT_EQ(copy.kind, core::BufferKind::Temp);
    EXPECT_EQ(copy.shape, (core::Shape{2, 9}));
    std::string text = core::to_string(*p);
    EXPECT_NE(text.find("input0_padded[C][X +! K]"), std::string::npos) << text;
    // One statement writes all of the copy (its Allocate need not zero it):
    // the input inside, the default around; the window reads it unguarded.
    EXPECT_NE(text.find("input0_padded[2, 9] = allocate_unset();"), std::string::npos) << text;
    EXPECT_EQ(stores_into(*p, static_cast<int>(p->buffers.size()) - 1), 1) << text;
    const size_t select = text.find("select(");
    EXPECT_NE(select, std::string::npos) << text;
    EXPECT_EQ(text.rfind("input0_padded[", select), text.find("input0_padded[input0_p0]")) << text;
    EXPECT_EQ(text.find("select(", select + 1), std::string::npos) << text;
    std::vector<core::Tensor> inputs = {core::Tensor(core::DType::Float32, {2, 7}),
                                        core::Tensor(core::DType::Float32, {3, 2, 3})};
    for (int64_t i = 0; i < 14; ++i)
      inputs[0].set(i, core::Scalar::of_float(core::DType::Float32, i * 0.5 - 3));
    for (int64_t i = 0; i < 18; ++i)
      inputs[1].set(i, core::Scalar::of_float(core::DType::Float32, 1.0 / (i + 1)));
    EXPECT_TRUE(core::identical(interp::ireval(n, inputs)[0], interp::ireval(*p, inputs)[0]))
        << pad;
  }
}

// A stencil's shifted windows of one input, whose conditions bound
// different sides, share one copy over the union of their ranges (x - 1
// and x + 1 over x in [0, 7): [-1, 7], 9 elements); a window with another
// default gets its own; and the budget counts them all. IREval computes
// the same bits.
TEST(Transform, AStencilsWindowsShareOnePaddedCopy) {
  core::LoopNest n = core::lower(test::elaborate(
      "- einstein_v2(\"output0[X] = input0[X - 1].when([X - 1 >= 0], 0.0) + input0[X].when([X "
      ">= 0, X < 7], 0.0) + input0[X + 1].when([X + 1 < 7], 0.0) + input0[X + 1].when([X + 1 < "
      "7], 2.0)\", {\"input0\": {\"dtype\": \"float32\", \"shape\": [7]}})"));
  std::string why;
  std::optional<core::LoopNest> p = core::pad_guarded_reads(n, var_named(n, "X"), 100, &why);
  ASSERT_TRUE(p) << why;
  ASSERT_EQ(p->buffers.size(), n.buffers.size() + 2) << core::to_string(*p);
  EXPECT_EQ(p->buffers[n.buffers.size()].shape, (core::Shape{9}));
  EXPECT_EQ(p->buffers[n.buffers.size() + 1].shape, (core::Shape{7})); // x + 1: [1, 7]
  std::vector<core::Tensor> inputs = {core::Tensor(core::DType::Float32, {7})};
  for (int64_t i = 0; i < 7; ++i)
    inputs[0].set(i, core::Scalar::of_float(core::DType::Float32, i * 1.25 - 2));
  EXPECT_TRUE(core::identical(interp::ireval(n, inputs)[0], interp::ireval(*p, inputs)[0]));
  // 9 + 7 elements: over a budget of 15, the second copy is refused.
  std::optional<core::LoopNest> q = core::pad_guarded_reads(n, var_named(n, "X"), 15, &why);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->buffers.size(), n.buffers.size() + 1);
}

// What padding would change is left alone, with the reason: a conjunct
// that bounds no index, a condition that lets the read leave the input (an
// error padding would hide), a condition on another expression, a default
// that is not a constant, and copies over the limit or much larger than
// the input.
TEST(Transform, AGuardedReadIsPaddedOnlyWhereThatKeepsItsMeaning) {
  auto refusal = [](const core::LoopNest& n, int64_t most = 1000) {
    std::string why;
    EXPECT_FALSE(core::pad_guarded_reads(n, var_named(n, "X"), most, &why));
    return why;
  };
  EXPECT_EQ(refusal(padded_convolution("[X + K - 1 >= 0, X + K - 1 < 7, X != 2], 0.0")),
            "its condition is not bounds on input0's indices");
  EXPECT_EQ(refusal(padded_convolution("[X + K - 1 >= -1, X + K - 1 < 7], 0.0")),
            "where its condition holds, input0 may be read out of range");
  EXPECT_EQ(refusal(padded_convolution("[X >= 1, X + K - 1 < 7], 0.0")),
            "its condition is not bounds on input0's indices");
  EXPECT_EQ(refusal(padded_convolution("[X + K - 1 >= 0, X + K - 1 < 7], input0[C, 0]")),
            "no guarded read");
  EXPECT_EQ(refusal(padded_convolution("[X + K - 1 >= 0, X + K - 1 < 7], 0.0"), 10),
            "a padded input0 would have 18 elements (at most 10)");
  EXPECT_EQ(
      refusal(padded_convolution("[X * 1000 + K < 2], 0.0", "X * 1000 + K", "[2, 2]"), INT64_MAX),
      "a padded input0 would have 12006 elements (at most 4112)");
}

// After a range split, each part's loops have variables of their own: a
// transformation that finds its loop by variable then changes one part, not
// both (a tile of the first part's loop was applied to the second's too,
// which then lost its range).
TEST(Transform, EachPartOfASplitRangeHasItsOwnVariables) {
  core::Kernel k = test::elaborate("- einstein_v2(\"output0[N, M] = input0[N, M] * 2.0\", "
                                   "{\"input0\": {\"dtype\": \"float32\", \"shape\": [4, 3]}})");
  core::LoopNest n = core::lower(k);
  int i = var_named(n, "N"), j = var_named(n, "M");
  std::optional<core::LoopNest> split = core::split_range(n, i, 1);
  ASSERT_TRUE(split);
  int loops_over_i = 0;
  core::each_stmt(split->root, [&](const core::Stmt& s) {
    const auto* f = std::get_if<core::For>(&s->node);
    loops_over_i += f && f->var == i;
  });
  EXPECT_EQ(loops_over_i, 1) << core::to_string(*split);
  std::optional<core::LoopNest> tiled = core::tile(*split, i, j, 1, 1);
  ASSERT_TRUE(tiled);
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, 3);
  EXPECT_TRUE(core::identical(interp::ireval(n, inputs)[0], interp::ireval(*tiled, inputs)[0]))
      << core::to_string(*tiled);
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
  n.root = core::make_block(
      {core::make_store(out, {core::int64(0)},
                        core::make_const(core::Scalar::of_float(core::DType::Float32, 0))),
       core::make_for(
           i, core::int64(0), core::int64(64),
           core::make_store(out, {core::int64(0)}, core::make_apply(core::Op::Add, {acc, x})))});
  std::optional<core::LoopNest> v = core::vectorize(n, i);
  ASSERT_TRUE(v);
  std::vector<core::Tensor> values;
  values.emplace_back(core::DType::Float32, core::Shape{64});
  for (int k = 0; k < 64; ++k)
    values[0].set(k, core::Scalar::of_float(core::DType::Float32, k == 0 ? 1e8 : 2));
  std::vector<core::Tensor> r = shared_jit().compile(*v)->run(values);
  EXPECT_EQ(r[0].get(0).f, 1e8);
}

// A hand-built nest for the fill tests: int32 output `out` of \p shape,
// int32 input `in` of 2 x 3, loop variables i and j.
struct FillNest {
  core::LoopNest n;
  int out, in, i, j;
  explicit FillNest(core::Shape shape) {
    in = n.add_buffer({"in", core::DType::Int32, {2, 3}, core::BufferKind::Input, {}});
    out = n.add_buffer({"out", core::DType::Int32, std::move(shape), core::BufferKind::Output, {}});
    i = n.add_var("i", core::DType::Int64, true);
    j = n.add_var("j", core::DType::Int64, true);
    n.inputs = {in};
    n.outputs = {out};
  }
  core::Expr var(int v) const { return core::make_var(v, core::DType::Int64); }
  static core::Expr value(int64_t k) {
    return core::make_const(core::Scalar::of_int(core::DType::Int32, k));
  }
  core::Stmt loop(int v, int64_t begin, int64_t end, core::Stmt body) const {
    return core::make_for(v, core::int64(begin), core::int64(end), std::move(body));
  }
  // out = 7 everywhere (a 2 x 3 or a 3-element output).
  core::Stmt fill() const {
    const core::Shape& s = n.buffers[out].shape;
    if (s.size() == 1)
      return loop(i, 0, s[0], core::make_store(out, {var(i)}, value(7)));
    return loop(i, 0, s[0], loop(j, 0, s[1], core::make_store(out, {var(i), var(j)}, value(7))));
  }
  core::Expr in_at(core::Expr a, core::Expr b) const {
    return core::make_load(in, core::DType::Int32, {std::move(a), std::move(b)});
  }
  // The fill, then \p stmts; whether drop_dead_fills drops the fill, and
  // that IREval gives the same outputs either way.
  bool dead(std::vector<core::Stmt> stmts) {
    stmts.insert(stmts.begin(), fill());
    n.root = core::make_block(std::move(stmts));
    std::vector<int> dropped;
    core::LoopNest after = core::drop_dead_fills(n, &dropped);
    core::Tensor input(core::DType::Int32, {2, 3});
    for (int k = 0; k < 6; ++k)
      input.set(k, core::Scalar::of_int(core::DType::Int32, 10 + k));
    std::vector<core::Tensor> inputs{input};
    EXPECT_TRUE(core::identical(interp::ireval(n, inputs)[0], interp::ireval(after, inputs)[0]));
    return !dropped.empty();
  }
};

TEST(Transform, AFillTheNextStatementOverwritesIsDead) {
  // Every element stored, unguarded, without reading out: dead.
  FillNest a({2, 3});
  EXPECT_TRUE(a.dead({a.loop(a.i, 0, 2,
                             a.loop(a.j, 0, 3,
                                    core::make_store(a.out, {a.var(a.i), a.var(a.j)},
                                                     a.in_at(a.var(a.i), a.var(a.j)))))}));
  // Transposed loops, a statement between that does not touch out: dead.
  FillNest b({2, 3});
  core::Stmt unrelated = b.loop(b.i, 0, 1, core::make_block({}));
  EXPECT_TRUE(b.dead(
      {unrelated,
       b.loop(b.j, 0, 3,
              b.loop(b.i, 0, 2, core::make_store(b.out, {b.var(b.i), b.var(b.j)}, b.value(1))))}));
  // A loop around the store that does not index it still stores everything.
  FillNest c({3});
  EXPECT_TRUE(c.dead({c.loop(
      c.j, 0, 2,
      c.loop(c.i, 0, 3, core::make_store(c.out, {c.var(c.i)}, c.in_at(c.var(c.j), c.var(c.i)))))}));
}

TEST(Transform, AFillSomethingCanSeeIsKept) {
  FillNest part({3}); // two of three elements stored
  EXPECT_FALSE(part.dead(
      {part.loop(part.i, 0, 2, core::make_store(part.out, {part.var(part.i)}, part.value(1)))}));
  FillNest guarded({3});
  EXPECT_FALSE(guarded.dead({guarded.loop(
      guarded.i, 0, 3,
      core::make_store(guarded.out, {guarded.var(guarded.i)}, guarded.value(1),
                       core::make_apply(core::Op::Lt, {guarded.var(guarded.i), core::int64(1)}, {},
                                        core::DType::Bool)))}));
  FillNest reads({3}); // out[i] = out[i] + 1
  EXPECT_FALSE(reads.dead({reads.loop(
      reads.i, 0, 3,
      core::make_store(
          reads.out, {reads.var(reads.i)},
          core::make_apply(core::Op::Add,
                           {core::make_load(reads.out, core::DType::Int32, {reads.var(reads.i)}),
                            reads.value(1)})))}));
  FillNest shifted({3}); // out[i + 1] for i in [-1, 2)
  EXPECT_FALSE(shifted.dead({shifted.loop(
      shifted.i, -1, 2,
      core::make_store(shifted.out,
                       {core::make_apply(core::Op::Add, {shifted.var(shifted.i), core::int64(1)})},
                       shifted.value(1)))}));
  FillNest empty({3}); // an outer loop of no iterations: nothing stored
  EXPECT_FALSE(empty.dead(
      {empty.loop(empty.j, 0, 0,
                  empty.loop(empty.i, 0, 3,
                             core::make_store(empty.out, {empty.var(empty.i)}, empty.value(1))))}));
  FillNest diagonal({3, 3}); // out[i][i]
  EXPECT_FALSE(diagonal.dead({diagonal.loop(
      diagonal.i, 0, 3,
      core::make_store(diagonal.out, {diagonal.var(diagonal.i), diagonal.var(diagonal.i)},
                       diagonal.value(1)))}));
  FillNest read_between({3}); // the fill is read before it is overwritten
  core::Stmt copy = read_between.loop(
      read_between.j, 0, 1,
      core::make_store(read_between.out, {core::int64(0)},
                       core::make_load(read_between.out, core::DType::Int32, {core::int64(2)})));
  EXPECT_FALSE(read_between.dead(
      {copy,
       read_between.loop(read_between.i, 0, 3,
                         core::make_store(read_between.out, {read_between.var(read_between.i)},
                                          read_between.value(1)))}));
}

} // namespace
} // namespace teval::verify
