// Schedules keep every result and every error: on random programs, a nest
// the bounds analysis says cannot fail runs without an error, the scheduled
// nest computes what the lowered one does (the same bits, the same error
// message), and the JIT, which compiles scheduled nests with the range
// checks the analysis proved left out, agrees with IREval.
#include "core/bounds.h"
#include "core/interrupt.h"
#include "core/lower.h"
#include "core/schedule.h"
#include "interp/interpreter.h"
#include "interp/ireval.h"
#include "interp/random_inputs.h"
#include "jit/jit.h"
#include "tests/support/outcome.h"
#include "tests/support/programs.h"
#include "verify/generators.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <atomic>
#include <regex>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace teval::verify {
namespace {

using test::identical;
using test::Outcome;
using test::outcome;

struct Case {
  Program program;
  std::shared_ptr<const core::SourceFile> source; // the nest's spans point into it
  core::LoopNest nest;
  std::vector<core::Tensor> inputs;
  std::chrono::milliseconds budget;
  Outcome reference;
};

Case random_case() {
  Case c{*antares_program(), {}, {}, {}, {}, {}};
  uint32_t seed = *rc::gen::arbitrary<uint32_t>();
  core::Kernel k = elaborate(c.program, c.source);
  c.inputs = interp::make_inputs(k, {}, seed);
  c.nest = core::lower(k);
  auto start = std::chrono::steady_clock::now();
  c.reference = outcome([&] { return interp::ireval(c.nest, c.inputs); });
  c.budget = core::hang_budget(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  RC_LOG() << "program: " << c.program.text;
  return c;
}

RC_GTEST_PROP(Schedule, WhatCannotFailDoesNotFail, ()) {
  Case c = random_case();
  bool proved = core::cannot_fail(c.nest, c.nest.root);
  RC_TAG(proved ? "proved" : "not proved");
  if (proved)
    RC_ASSERT(c.reference.error.empty());
}

// Random schedule parameters: vectorization on or off, a parallel threshold
// from every nest to none, the loop choice of --order any (which by
// itself changes no result; only the code generator's freedoms do), and
// the thresholds of padded copies and of rows walked as one.
core::ScheduleOptions random_schedule() {
  core::ScheduleOptions o;
  o.vectorize = *rc::gen::arbitrary<bool>();
  o.parallel_points = *rc::gen::element<int64_t>(0, 1, 64, int64_t{1} << 17);
  o.any_order = *rc::gen::arbitrary<bool>();
  o.pad_points_per_element = *rc::gen::element<int64_t>(0, 1, 4);
  o.coalesce_points_per_element = *rc::gen::element<int64_t>(0, 1, 16);
  RC_LOG() << "schedule options: vectorize " << o.vectorize << ", parallel from "
           << o.parallel_points << " points, any order " << o.any_order << ", padding at "
           << o.pad_points_per_element << " points per element, rows walked at "
           << o.coalesce_points_per_element << "\n";
  return o;
}

RC_GTEST_PROP(Schedule, ScheduledNestsComputeTheSameResultsAndErrors, ()) {
  Case c = random_case();
  std::string log;
  core::LoopNest scheduled = core::schedule(c.nest, random_schedule(), &log);
  RC_TAG(log.find("interchange") != std::string::npos ? "interchanged" : "in order",
         log.find("register tile") != std::string::npos ? "register tile" : "no tile",
         log.find("split") != std::string::npos ? "row split" : "row whole");
  RC_LOG() << "schedule:\n" << log << core::to_string(scheduled);
  Outcome after;
  bool finished = core::run_within(
      c.budget, [&] { after = outcome([&] { return interp::ireval(scheduled, c.inputs); }); });
  RC_ASSERT(finished);
  RC_ASSERT(identical(c.reference, after));
}

// With every nest that may be parallel made so, on three threads.
jit::JitOptions parallel_jit_options() {
  jit::JitOptions o;
  o.scheduling.parallel_points = 1;
  o.threads = 3;
  return o;
}

jit::Jit& parallel_jit() {
  static jit::Jit j(parallel_jit_options());
  return j;
}

// The JIT compiling nests as given, parallel loops on three threads.
jit::Jit& unscheduled_jit() {
  static jit::Jit j(jit::JitOptions{.schedule = false, .threads = 3});
  return j;
}

RC_GTEST_PROP(Schedule, CompiledScheduledNestsEqualIREval, ()) {
  Case c = random_case();
  std::string log;
  core::LoopNest scheduled = core::schedule(c.nest, random_schedule(), &log);
  RC_TAG(log.find("parallel") != std::string::npos ? "parallel" : "one thread",
         log.find("register tile") != std::string::npos ? "register tile" : "no tile");
  RC_LOG() << "schedule:\n" << log;
  Outcome compiled;
  // Leaves out the checks proved unneeded, runs parallel loops.
  std::unique_ptr<jit::CompiledKernel> kernel = unscheduled_jit().compile(scheduled);
  bool finished = core::run_within(
      c.budget, [&] { compiled = outcome([&] { return kernel->run(c.inputs); }); });
  RC_ASSERT(finished);
  RC_ASSERT(identical(c.reference, compiled));
}

// The shapes the schedule's tiles act on, which random programs rarely
// reach: matmuls and padded 2-D convolutions with rows 1 to 70 wide (whole
// vectors, partial ones, whole ones and a remainder) in float32, float64
// and int32. Compiled scheduled code and the interpreter's blocks equal the
// interpreter's definitional walk bit for bit.
RC_GTEST_PROP(Schedule, TiledContractionsOfEveryWidthKeepEverySum, ()) {
  const std::string dtype = *rc::gen::element<std::string>("float32", "float64", "int32");
  auto extent = [](int lo, int hi) { return std::to_string(*rc::gen::inRange(lo, hi + 1)); };
  const std::string width = extent(1, 70), rows = extent(1, 9), depth = extent(1, 12);
  std::string program;
  if (*rc::gen::arbitrary<bool>()) {
    program = "- einstein_v2(\"output0[N, M] +=! input0[N, K] * input1[K, M]\", {\"input0\": "
              "{\"dtype\": \"" +
              dtype + "\", \"shape\": [" + rows + ", " + depth + "]}, \"input1\": {\"dtype\": \"" +
              dtype + "\", \"shape\": [" + depth + ", " + width + "]}})";
  } else {
    const std::string height = extent(1, 5), filters = extent(1, 8),
                      zero = "const(0, dtype=`" + dtype + "`)";
    program = "- einstein_v2(\"output0[F, HO, WO] +=! input0[C, HO + KH - 1, WO + KW - 1].when([HO "
              "+ KH - 1 >= 0, HO + KH - 1 < " +
              height + ", WO + KW - 1 >= 0, WO + KW - 1 < " + width + "], " + zero +
              ") * input1[F, C, KH, KW] where HO in " + height + ", WO in " + width +
              "\", {\"input0\": {\"dtype\": \"" + dtype + "\", \"shape\": [" + depth + ", " +
              height + ", " + width + "]}, \"input1\": {\"dtype\": \"" + dtype +
              "\", \"shape\": [" + filters + ", " + depth + ", 3, 3]}})";
  }
  RC_LOG() << program;
  core::Kernel k = test::elaborate(program);
  core::LoopNest nest = core::lower(k);
  std::string log;
  core::schedule(nest, {}, &log);
  RC_TAG(log.find("split") != std::string::npos           ? "row split"
         : log.find("register tile") != std::string::npos ? "register tile"
                                                          : "no tile");
  RC_LOG() << log;
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, *rc::gen::arbitrary<uint32_t>());
  Outcome want = outcome([&] { return interp::run(k, inputs, {.blocks = false}); });
  // The interpreter's blocks walk a matmul's rows of outputs together.
  RC_ASSERT(identical(want, outcome([&] { return interp::run(k, inputs); })));
  static jit::Jit j;
  Outcome got = outcome([&] { return j.compile(nest)->run(inputs); });
  RC_ASSERT(identical(want, got));
}

// What the analysis proves, on programs whose answer is known by hand.
bool proved(const std::string& program) {
  core::LoopNest n = core::lower(test::elaborate(program));
  return core::cannot_fail(n, n.root);
}

TEST(Schedule, TheBoundsAnalysisProvesWhatHolds) {
  // In range: the read of N + 1 up to 3 in a tensor of 4.
  EXPECT_TRUE(proved("- einstein_v2(\"output0[N] = input0[N + 1] where N in 3\", {\"input0\": "
                     "{\"dtype\": \"float32\", \"shape\": [4]}})"));
  // Out of range at N = 3.
  EXPECT_FALSE(proved("- einstein_v2(\"output0[N] = input0[N + 1] where N in 4\", {\"input0\": "
                      "{\"dtype\": \"float32\", \"shape\": [4]}})"));
  // A padded read guarded by .when: the guard bounds the index.
  EXPECT_TRUE(proved("- einstein_v2(\"output0[N] = input0[N - 1].when([N - 1 >= 0], 0.0) "
                     "where N in 4\", {\"input0\": {\"dtype\": \"float32\", \"shape\": [4]}})"));
  // Integer division by a loop variable that starts at 0, and at 1.
  EXPECT_FALSE(proved("- einstein_v2(\"output0[N] = 12 / N where N in 4\", {})"));
  EXPECT_TRUE(proved("- einstein_v2(\"output0[N] = 12 / (N + 1) where N in 4\", {})"));
  // A division by input data: any value, zero included.
  EXPECT_FALSE(proved("- einstein_v2(\"output0[N] = input0[N] / input0[N] where N in 4\", "
                      "{\"input0\": {\"dtype\": \"int32\", \"shape\": [4]}})"));
  // A matmul and a padded convolution.
  EXPECT_TRUE(proved("- einstein_v2(\"output0[N, M] +=! input0[N, K] * input1[K, M]\", "
                     "{\"input0\": {\"dtype\": \"float32\", \"shape\": [8, 5]}, \"input1\": "
                     "{\"dtype\": \"float32\", \"shape\": [5, 3]}})"));
  EXPECT_TRUE(proved("- einstein_v2(\"output0[F, H] +=! input0[C, H + K - 1].when([H + K - 1 >= 0, "
                     "H + K - 1 < 8], 0.0) * input1[F, C, K] where H in 8\", {\"input0\": "
                     "{\"dtype\": \"float32\", \"shape\": [2, 8]}, \"input1\": {\"dtype\": "
                     "\"float32\", \"shape\": [3, 2, 3]}})"));
}

// Overflow checks the analysis proves unneeded: the index arithmetic of a
// read over the loops' ranges, not arithmetic on input values.
TEST(Schedule, TheBoundsAnalysisProvesIndexArithmeticCannotOverflow) {
  core::LoopNest n = core::lower(test::elaborate(
      "- einstein_v2(\"output0[P, Q] = input0[P * 8 + Q] + input0[input1[P] * 3] where Q in 8\", "
      "{\"input0\": {\"dtype\": \"int32\", \"shape\": [64]}, \"input1\": {\"dtype\": "
      "\"int32\", \"shape\": [8]}})"));
  core::ProvenAccesses p = core::proven_accesses(n);
  std::vector<std::string> proven, unproven;
  core::each_stmt(n.root, [&](const core::Stmt& st) {
    for (const core::Expr& e : core::own_exprs(st))
      core::for_each_node(e, [&](const core::Expr& x) {
        const auto* a = std::get_if<core::Apply>(&x->node);
        if (a && a->overflow == core::Overflow::Trap && core::is_integer(x->dtype))
          (p.arithmetic.count(x.get()) ? proven : unproven).emplace_back(core::spelling(a->op));
      });
  });
  // P * 8 + Q and P * 8 are bounded by the loops; a gather's index
  // computed from an input value, input1[P] * 3, is not.
  EXPECT_EQ(proven, (std::vector<std::string>{"+", "*"}));
  EXPECT_EQ(unproven, (std::vector<std::string>{"*"}));
}

// A division or remainder whose dividend is proved >= 0 and divisor >= 1
// is unsigned division in compiled code (truncating and floored agree
// there); one whose dividend may be negative is not: the interpreter's
// bits either way.
TEST(Schedule, DivisionsOfNonNegativeIndicesAreProvedNatural) {
  const std::string program =
      "- einstein_v2(\"output0[P, Q] = input0[(P * 8 + Q) // 4] + input0[Q % 3] + input0[(P - 5) "
      "// 2 + 3] + input0[(Q - 4) % 5] where P in 8, Q in 8\", {\"input0\": {\"dtype\": "
      "\"int32\", \"shape\": [16]}})";
  core::Kernel k = test::elaborate(program);
  core::LoopNest n = core::lower(k);
  core::ProvenAccesses p = core::proven_accesses(n);
  std::vector<std::string> natural, other;
  core::each_stmt(n.root, [&](const core::Stmt& st) {
    for (const core::Expr& e : core::own_exprs(st))
      core::for_each_node(e, [&](const core::Expr& x) {
        const auto* a = std::get_if<core::Apply>(&x->node);
        if (a && (a->op == core::Op::Div || a->op == core::Op::Mod))
          (p.natural_divisions.count(x.get()) ? natural : other)
              .emplace_back(core::spelling(a->op));
      });
  });
  EXPECT_EQ(natural, (std::vector<std::string>{"/", "%"}));
  EXPECT_EQ(other, (std::vector<std::string>{"/", "%"}));
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, 4);
  Outcome want = outcome([&] { return interp::run(k, inputs, {.blocks = false}); });
  EXPECT_TRUE(identical(want, outcome([&] { return jit::Jit().compile(n)->run(inputs); })));
}

// The bounds analysis's range of x / d (truncating) and x % d (floored,
// the divisor's sign) over loops of x and d holds every value a plain loop
// computes, and is unknown where d can be zero: every pair of ranges in
// [-7, 7].
TEST(Schedule, TheRangesOfDivisionsAndRemaindersHoldEveryValue) {
  using core::DType;
  for (int64_t xl = -7; xl <= 7; ++xl)
    for (int64_t xh = xl; xh <= 7; xh += 3)
      for (int64_t dl = -7; dl <= 7; ++dl)
        for (int64_t dh = dl; dh <= 7; dh += 2)
          for (core::Op op : {core::Op::Div, core::Op::Mod}) {
            core::LoopNest n;
            const int x = n.add_var("x", DType::Int64), d = n.add_var("d", DType::Int64);
            const int out = n.add_buffer({"out", DType::Int64, {1}, core::BufferKind::Output, {}});
            core::Expr e = core::make_apply(
                op, {core::make_var(x, DType::Int64), core::make_var(d, DType::Int64)}, {},
                std::nullopt, core::Overflow::Trap);
            n.root = core::make_for(x, core::int64(xl), core::int64(xh + 1),
                                    core::make_for(d, core::int64(dl), core::int64(dh + 1),
                                                   core::make_store(out, {core::int64(0)}, e)));
            std::optional<core::IntRange> got;
            bool seen = false;
            core::each_node_in_scope(n, n.root,
                                     [&](const core::Expr& node, const core::RangeOf& range) {
                                       if (node == e) {
                                         got = range(e);
                                         seen = true;
                                       }
                                     });
            ASSERT_TRUE(seen);
            if (dl <= 0 && dh >= 0) {
              EXPECT_FALSE(got) << xl << " " << xh << " " << dl << " " << dh;
              continue;
            }
            ASSERT_TRUE(got) << xl << " " << xh << " " << dl << " " << dh;
            for (int64_t xv = xl; xv <= xh; ++xv)
              for (int64_t dv = dl; dv <= dh; ++dv) {
                int64_t v = xv / dv;
                if (op == core::Op::Mod) {
                  v = xv % dv;
                  if (v != 0 && (v < 0) != (dv < 0))
                    v += dv;
                }
                EXPECT_TRUE(got->lo <= v && v <= got->hi)
                    << core::spelling(op) << " " << xv << " " << dv << " -> " << v << " outside ["
                    << got->lo << ", " << got->hi << "]";
              }
          }
}

// Index arithmetic on a parallel loop's variable (P * 16, where each
// thread's chunk of P is unknown to LLVM) once kept its overflow checks,
// and their branches kept the loops inside from being vectorized (2.2 G
// MAC/s where the same tile with another loop parallel ran at 79). Proved
// unable to overflow, it is plain arithmetic: no check is left. Computed
// in 64 bits, it leaves the vectorizer nothing to check at run time
// either (a widened 32-bit index made it keep a scalar copy of each row,
// which kept the tile's accumulators in memory: 18 G MAC/s; now 89). The
// row is vector code only, with the interpreter's bits.
TEST(Schedule, IndexArithmeticOnAParallelLoopIsVectorized) {
  const std::string program =
      "- einstein_v2(\"output0[P, F, I] +=! input0[K, P * 16 + I + K] * input1[F, K] where P in "
      "32, I in 16\", {\"input0\": {\"dtype\": \"float32\", \"shape\": [3, 530]}, "
      "\"input1\": {\"dtype\": \"float32\", \"shape\": [8, 3]}})";
  core::Kernel k = test::elaborate(program);
  jit::Jit j(jit::JitOptions{.scheduling = {.parallel_points = 1}});
  std::string ir = j.emit_llvm(core::lower(k));
  EXPECT_NE(ir.find("teval_rt_parallel_for"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("with.overflow"), std::string::npos) << ir;
  EXPECT_NE(ir.find("fmul <"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("fmul float"), std::string::npos) << "a scalar copy of a row\n" << ir;
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, 3);
  Outcome want = outcome([&] { return interp::run(k, inputs, {.blocks = false}); });
  EXPECT_TRUE(identical(want, outcome([&] { return j.compile(core::lower(k))->run(inputs); })));
}

// A matmul is interchanged so that its columns vectorize, and computes the
// interpreter's bits; a nest whose reads can go out of range keeps its
// order, so that the error reported is the interpreter's first one.
TEST(Schedule, InterchangesOnlyWhatCannotFail) {
  core::LoopNest mm = core::lower(test::elaborate(
      "- einstein_v2(\"output0[N, M] +=! input0[N, K] * input1[K, M]\", {\"input0\": {\"dtype\": "
      "\"float32\", \"shape\": [9, 7]}, \"input1\": {\"dtype\": \"float32\", \"shape\": [7, "
      "33]}})"));
  std::string log;
  core::schedule(mm, {}, &log);
  EXPECT_NE(log.find("interchange M and K\nvectorize M\n"), std::string::npos) << log;
  std::string program = "- einstein_v2(\"output0[N, M] +=! input0[N, K] * input1[K, M + K] "
                        "where M in 4\", {\"input0\": {\"dtype\": \"float32\", \"shape\": [3, 4]}, "
                        "\"input1\": {\"dtype\": \"float32\", \"shape\": [4, 4]}})";
  core::LoopNest risky = core::lower(test::elaborate(program));
  log.clear();
  core::schedule(risky, {}, &log);
  EXPECT_NE(log.find("keep M in place: the loops may raise an error"), std::string::npos) << log;
  // Every engine (test::run checks them all) reports the interpreter's
  // first erroneous point.
  std::string error = test::error_of(program);
  EXPECT_NE(error.find("input1[3, 4] is outside shape [4, 4] (at N=0, M=1, K=3)"),
            std::string::npos)
      << error;
}

// A row sum's output loop reads a column of the input (strided) where its
// reduction loop reads a row (consecutive): it stays outside. Free to add in
// any order, the schedule keeps the reduction innermost for vector partial
// sums, and only then.
TEST(Schedule, StridedOutputLoopsStayOutside) {
  core::LoopNest sum = core::lower(test::elaborate(
      "- einstein_v2(\"output0[N] +=! input0[N, K]\", {\"input0\": {\"dtype\": \"float32\", "
      "\"shape\": [64, 1024]}})"));
  std::string log;
  core::schedule(sum, {}, &log);
  EXPECT_NE(log.find("keep N in place: its reads are strided, K's consecutive"), std::string::npos)
      << log;
  log.clear();
  core::schedule(sum, {.any_order = true}, &log);
  EXPECT_NE(log.find("keep K innermost: a reduction read contiguously, in any order"),
            std::string::npos)
      << log;
  // A matmul's reduction loop reads input1 down a column: the output loop
  // goes innermost, in any order as in sequence.
  core::LoopNest mm = core::lower(test::elaborate(
      "- einstein_v2(\"output0[N, M] +=! input0[N, K] * input1[K, M]\", {\"input0\": {\"dtype\": "
      "\"float32\", \"shape\": [9, 7]}, \"input1\": {\"dtype\": \"float32\", \"shape\": [7, "
      "33]}})"));
  log.clear();
  core::schedule(mm, {.any_order = true}, &log);
  EXPECT_NE(log.find("interchange M and K\nvectorize M\n"), std::string::npos) << log;
}

// A 3x3 convolution padded by 1 (with .when) of an n x c x hw x w float32
// input by f filters.
core::Kernel padded_convolution(int n, int c, int h, int w, int f) {
  auto i = [](int v) { return std::to_string(v); };
  return test::elaborate(
      "- einstein_v2(\"output0[N, F, HO, WO] +=! input0[N, C, HO + KH - 1, WO + KW - 1].when([HO + "
      "KH - 1 >= 0, HO + KH - 1 < " +
      i(h) + ", WO + KW - 1 >= 0, WO + KW - 1 < " + i(w) +
      "], 0.0) * input1[F, C, KH, KW] where HO in " + i(h) + ", WO in " + i(w) +
      "\", {\"input0\": {\"dtype\": \"float32\", \"shape\": [" + i(n) + ", " + i(c) + ", " + i(h) +
      ", " + i(w) + "]}, \"input1\": {\"dtype\": \"float32\", \"shape\": [" + i(f) + ", " + i(c) +
      ", 3, 3]}})");
}

// The schedule's log for \p k's nest, whose compiled code and scheduled
// nest under IREval must give the interpreter's bits on inputs of \p seed.
std::string schedule_checked(const core::Kernel& k, uint32_t seed,
                             core::LoopNest* scheduled = nullptr) {
  core::LoopNest nest = core::lower(k);
  std::string log;
  core::LoopNest s = core::schedule(nest, {}, &log);
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, seed);
  std::vector<core::Tensor> want = interp::run(k, inputs);
  std::vector<core::Tensor> got = jit::Jit().compile(nest)->run(inputs);
  EXPECT_EQ(got.size(), 1u);
  EXPECT_TRUE(!got.empty() && core::identical(got[0], want[0])) << log;
  EXPECT_TRUE(core::identical(interp::ireval(s, inputs)[0], want[0])) << log;
  if (scheduled)
    *scheduled = std::move(s);
  return log;
}

// A convolution's output columns are register-tiled with 4 output
// channels (the loop whose copies share the input's vector reads), inside
// the three reduction loops; the compiled code gives the interpreter's
// bits, each output still summed over C, KH, KW in order.
TEST(Schedule, ARegisterTiledConvolutionKeepsEverySum) {
  std::string log = schedule_checked(padded_convolution(2, 16, 16, 16, 8), 5);
  EXPECT_NE(log.find("register tile 16 WO x 4 F"), std::string::npos) << log;
}

// A row of two vectors (32 floats) jams 8 output channels: 16 accumulator
// vectors, the most the tiles keep (a 4x64x32x32 convolution ran at 110 G
// MAC/s on one core with 4 channels, 126 with 8), with the interpreter's
// bits.
TEST(Schedule, ATwoVectorRowJamsEightOutputChannels) {
  std::string log = schedule_checked(padded_convolution(1, 3, 5, 32, 16), 11);
  EXPECT_NE(log.find("register tile 32 WO x 8 F"), std::string::npos) << log;
}

// A row of whole vectors and a remainder (24 floats: one 64-byte vector and
// 8 floats; 28: one and 12; 56: three and 8) is split in two statements
// and each is tiled where its width allows; the sums stay the
// interpreter's, and the 8-float remainder is vector code too (it had been
// unrolled into scalar code before the vectorizer saw it).
TEST(Schedule, ARowOfPartialVectorsIsSplitAndTiled) {
  for (int width : {24, 28, 56}) {
    const std::string w = std::to_string(width);
    core::Kernel conv = test::elaborate(
        "- einstein_v2(\"output0[N, F, HO, WO] +=! input0[N, C, HO + KH - 1, WO + KW - 1].when([HO "
        "+ KH - 1 >= 0, HO + KH - 1 < 6, WO + KW - 1 >= 0, WO + KW - 1 < " +
        w + "], 0.0) * input1[F, C, KH, KW] where HO in 6, WO in " + w +
        "\", {\"input0\": {\"dtype\": \"float32\", \"shape\": [1, 5, 6, " + w +
        "]}, \"input1\": {\"dtype\": \"float32\", \"shape\": [8, 5, 3, 3]}})");
    core::LoopNest nest = core::lower(conv);
    std::string log;
    const core::ScheduleOptions split{.coalesce_points_per_element = 0}; // not walked as one
    core::schedule(nest, split, &log);
    const int64_t whole = width / 16 * 16;
    EXPECT_NE(log.find("split WO at " + std::to_string(whole)), std::string::npos) << log;
    // At most 16 accumulator vectors, 8 copies: one vector's row jams all
    // 8 filters, three vectors' 4 of them (5 does not divide 8).
    const std::string copies = whole == 16 ? "8" : "4";
    EXPECT_NE(log.find("register tile " + std::to_string(whole) + " WO x " + copies + " F"),
              std::string::npos)
        << log;
    EXPECT_EQ(log.find("register tile 8 WO x 8 F") != std::string::npos, width % 16 == 8) << log;
    std::vector<core::Tensor> inputs = interp::make_inputs(conv, {}, 7);
    std::vector<core::Tensor> want = interp::run(conv, inputs);
    jit::Jit j(jit::JitOptions{.scheduling = split});
    std::vector<core::Tensor> got = j.compile(nest)->run(inputs);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_TRUE(core::identical(got[0], want[0])) << width;
    if (width == 24 && j.target().find("avx512f") != std::string::npos) {
      std::string ir = j.emit_llvm(nest);
      EXPECT_TRUE(std::regex_search(ir, std::regex("fmul <8 x float>"))) << ir;
    }
  }
}

// The scheduled matmul is vector code across its columns, with no
// reordered reduction: each lane sums its own output in order.
TEST(Schedule, TheMatmulsColumnsAreVectorLanes) {
  core::LoopNest mm = core::lower(test::elaborate(
      "- einstein_v2(\"output0[N, M] +=! input0[N, K] * input1[K, M]\", {\"input0\": {\"dtype\": "
      "\"float32\", \"shape\": [64, 64]}, \"input1\": {\"dtype\": \"float32\", \"shape\": "
      "[64, 64]}})"));
  jit::Jit j;
  std::string ir = j.emit_llvm(mm);
  EXPECT_TRUE(std::regex_search(ir, std::regex("fmul <[0-9]+ x float>"))) << ir;
  EXPECT_TRUE(std::regex_search(ir, std::regex("fadd <[0-9]+ x float>"))) << ir;
  EXPECT_EQ(ir.find("reduce.fadd"), std::string::npos) << ir;
}

// Guarded windows, which the schedule reads from padded copies
// (core::pad_guarded_reads) where it can: 2-D windows with strides and
// offsets, each bound of the condition exact, in another spelling,
// narrower, wider than the input (an out-of-range read, which padding must
// not hide) or absent, sometimes with a conjunct that is no bound, a
// nonzero or negative-zero default, and a second window of the same input
// (the same read, another, or one with exact bounds, which often shares the
// first's copy over the union of their ranges). Compiled scheduled code, the scheduled
// nest under IREval and the interpreter's block evaluation (whose guarded
// reads step through a block without a column per condition) give the
// interpreter's definitional walk's values and errors.
RC_GTEST_PROP(Schedule, GuardedWindowsReadFromPaddedCopiesKeepEveryResult, ()) {
  const std::string dtype = *rc::gen::element<std::string>("float32", "float64", "int32");
  auto pick = [](int lo, int hi) { return *rc::gen::inRange(lo, hi + 1); };
  const int h = pick(1, 8), w = pick(1, 8), kh = pick(1, 4), kw = pick(1, 4);
  // One window's index over output axis `out` and reduce axis `red`.
  auto index = [&](const std::string& out, const std::string& red) {
    return std::to_string(pick(1, 2)) + " * " + out + " + " + red + " - " +
           std::to_string(pick(0, 3));
  };
  // Each side's bound: exact in three spellings, narrower, wider (a read
  // out of range), or absent.
  auto bounds = [&](const std::string& i, int extent, bool exact) {
    const std::string e = std::to_string(extent);
    const std::string low[] = {i + " >= 0", "0 <= " + i,  i + " > -1",
                               i + " >= 1", i + " >= -1", ""};
    const std::string high[] = {i + " < " + e,
                                i + " <= " + std::to_string(extent - 1),
                                e + " > " + i,
                                i + " < " + std::to_string(extent - 1),
                                i + " < " + std::to_string(extent + 1),
                                ""};
    std::vector<std::string> c;
    for (const std::string& b : {low[exact ? 0 : pick(0, 5)], high[exact ? 0 : pick(0, 5)]})
      if (!b.empty())
        c.push_back(b);
    return c;
  };
  // One default for every window: windows of the same elements share a copy.
  const std::string pad = dtype == "int32" ? *rc::gen::element<std::string>("0", "-3")
                                           : *rc::gen::element<std::string>("0.0", "-0.0", "2.5");
  auto window = [&](const std::string& i0, const std::string& i1, bool exact) {
    std::vector<std::string> c = bounds(i0, h, exact), more = bounds(i1, w, exact);
    c.insert(c.end(), more.begin(), more.end());
    if (!exact && pick(0, 5) == 0)
      c.push_back("A != 1"); // no bound on an index
    if (c.empty())
      c.push_back(i0 + " >= 0");
    std::string conds;
    for (const std::string& x : c)
      conds += (conds.empty() ? "" : ", ") + x;
    return "input0[" + i0 + ", " + i1 + "].when([" + conds + "], const(" + pad + ", dtype=`" +
           dtype + "`))";
  };
  const std::string i0 = index("A", "K"), i1 = index("B", "L");
  const std::string first = window(i0, i1, false);
  std::string term = first + " * input1[K, L]";
  if (int second = pick(0, 3); second == 1)
    term += " + " + first; // the same window: one copy
  else if (second >= 2)    // another window; with exact bounds, often of the same copy
    term += " + " + window(index("A", "K"), index("B", "L"), second == 3);
  const std::string program = "- einstein_v2(\"output0[A, B] +=! " + term + " where A in " +
                              std::to_string(pick(1, 6)) + ", B in " + std::to_string(pick(1, 6)) +
                              "\", {\"input0\": {\"dtype\": \"" + dtype + "\", \"shape\": [" +
                              std::to_string(h) + ", " + std::to_string(w) +
                              "]}, \"input1\": {\"dtype\": \"" + dtype + "\", \"shape\": [" +
                              std::to_string(kh) + ", " + std::to_string(kw) + "]}})";
  RC_LOG() << program;
  core::Kernel k = test::elaborate(program);
  core::LoopNest nest = core::lower(k);
  std::string log;
  // Every window whose copy is no larger than the statement is padded.
  const core::ScheduleOptions options{.pad_points_per_element = 1};
  core::LoopNest scheduled = core::schedule(nest, options, &log);
  RC_TAG(log.find("pad guarded reads") != std::string::npos ? "padded" : "not padded");
  RC_LOG() << log << core::to_string(scheduled);
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, *rc::gen::arbitrary<uint32_t>());
  Outcome want = outcome([&] { return interp::run(k, inputs, {.blocks = false}); });
  RC_ASSERT(identical(want, outcome([&] { return interp::run(k, inputs); })));
  RC_ASSERT(identical(want, outcome([&] { return interp::ireval(scheduled, inputs); })));
  static jit::Jit j(jit::JitOptions{.scheduling = options});
  RC_ASSERT(identical(want, outcome([&] { return j.compile(nest)->run(inputs); })));
}

// A 56-wide padded convolution (rows of three 64-byte vectors and half of
// one) walks its rows as one through the 58-wide padded copy: rows of 4
// whole vectors, 4 output channels in registers, its 3 KW steps unrolled;
// the copy back of the 56 useful columns of each 58 is vector code (q / 64
// and q % 64 folded into q), and every result is the interpreter's.
TEST(Schedule, A56WideConvolutionWalksItsRowsAsOne) {
  core::Kernel conv = padded_convolution(1, 3, 5, 56, 8);
  core::LoopNest scheduled;
  std::string log = schedule_checked(conv, 13, &scheduled);
  // 5 rows of 58 in rows of 64: 5 of them; the copy has a row more for the
  // last walked point's window.
  EXPECT_NE(log.find("pad guarded reads into input0_padded[1, 3, 7, 58]"), std::string::npos)
      << log;
  EXPECT_NE(log.find("walk the rows of output0 as one, into output0_rows[1, 8, 5, 64]"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("register tile 64 HO.WO.i x 4 F\nunroll KW\n"), std::string::npos) << log;
  EXPECT_NE(log.find("drop the fill of output0"), std::string::npos) << log;
  // Both temps are written all over before they are read: neither is zeroed.
  const std::string text = core::to_string(scheduled);
  EXPECT_NE(text.find("input0_padded[1, 3, 464] = allocate_unset();"), std::string::npos) << text;
  EXPECT_NE(text.find("output0_rows[1, 8, 5, 64] = allocate_unset();"), std::string::npos) << text;
  jit::Jit j;
  if (j.target().find("avx512f") != std::string::npos) {
    std::string ir = j.emit_llvm(core::lower(conv));
    EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << ir;
    EXPECT_TRUE(std::regex_search(ir, std::regex("fmul <16 x float>"))) << ir;
    EXPECT_EQ(ir.find("fmul <8 x float>"), std::string::npos) << "a half vector\n" << ir;
  }
}

// Rows walked as one through their padded copies (core::coalesce_rows):
// padded stencils and convolutions of random shapes (rows of 1 to 40
// outputs, windows of 1 to 3 by 1 to 3 with any padding up to theirs, a
// second window or a bias now and then), sums, maxima (a fill that is not
// zero) and plain stores (no start at all), in float32, float64 and int32
// (whose thrown-away columns may overflow: refused). Scheduled so that
// every statement is walked where it can be, compiled code and the
// scheduled nest under IREval give the interpreter's bits. With the
// output's fill taken out, the walked rows start from a copy of the
// output (IREval and compiled code begin with the same unwritten bytes).
RC_GTEST_PROP(Schedule, RowsWalkedAsOneKeepEveryResult, ()) {
  auto pick = [](int lo, int hi) { return *rc::gen::inRange(lo, hi + 1); };
  const std::string dtype = *rc::gen::element<std::string>("float32", "float64", "int32");
  const std::string op = *rc::gen::element<std::string>("+=!", ">=!", "=");
  const int n = pick(1, 2), c = pick(1, 3), h = pick(1, 5),
            w = pick(1, 3) == 1 ? pick(1, 16) : pick(17, 40);
  const int kh = pick(1, 3), kw = pick(1, 3), ph = pick(0, kh - 1), pw = pick(0, kw - 1);
  const int ho = pick(1, h + 2 * ph - kh + 1 > 0 ? h + 2 * ph - kh + 1 : 1);
  const int widest = std::max(w + 2 * pw - kw + 1, 1); // the rows padding allows
  const int wo = pick(0, 3) == 0 ? pick(1, widest) : widest;
  const bool reduce = op != "=";
  auto window = [&](int dh, int dw) {
    const std::string i = "HO + " + std::string(reduce ? "KH" : "0") + " - " +
                          std::to_string(ph - dh),
                      j = "WO + " + std::string(reduce ? "KW" : "0") + " - " +
                          std::to_string(pw - dw);
    return "input0[N, C, " + i + ", " + j + "].when([" + i + " >= 0, " + i + " < " +
           std::to_string(h) + ", " + j + " >= 0, " + j + " < " + std::to_string(w) +
           "], const(0, dtype=`" + dtype + "`))";
  };
  std::string term = window(0, 0) + " * input1[" + (reduce ? "F, C, KH, KW" : "0, C, 0, 0") + "]";
  if (pick(0, 2) == 0)
    term += " + " + window(0, pick(0, 1));
  if (pick(0, 2) == 0)
    term += " + input2[" + std::string(reduce ? "F" : "C") + "]";
  const std::string f = std::to_string(pick(1, 3));
  std::string program =
      "- einstein_v2(\"output0[N, " + std::string(reduce ? "F" : "C") + ", HO, WO] " + op + " " +
      term + " where HO in " + std::to_string(ho) + ", WO in " + std::to_string(wo) +
      (reduce ? ", KH in " + std::to_string(kh) + ", KW in " + std::to_string(kw) : std::string()) +
      "\", {\"input0\": {\"dtype\": \"" + dtype + "\", \"shape\": [" + std::to_string(n) + ", " +
      std::to_string(c) + ", " + std::to_string(h) + ", " + std::to_string(w) +
      "]}, \"input1\": {\"dtype\": \"" + dtype + "\", \"shape\": [" + (reduce ? f : "1") + ", " +
      std::to_string(c) + ", " + std::to_string(kh) + ", " + std::to_string(kw) +
      "]}, \"input2\": " + "{\"dtype\": \"" + dtype + "\", \"shape\": [" +
      (reduce ? f : std::to_string(c)) + "]}})";
  RC_LOG() << program;
  core::Kernel k = test::elaborate(program);
  core::LoopNest nest = core::lower(k);
  const bool unfilled = reduce && pick(0, 2) == 0;
  if (unfilled) { // the output's fill taken out: its first statement
    std::vector<core::Stmt> top = std::get<core::Block>(nest.root->node).stmts;
    top.erase(top.begin());
    nest.root = core::make_block(std::move(top));
  }
  const core::ScheduleOptions options{.pad_points_per_element = 1,
                                      .coalesce_points_per_element = 1};
  std::string log;
  core::LoopNest scheduled = core::schedule(nest, options, &log);
  RC_TAG(log.find("walk the rows") != std::string::npos ? "walked" : "not walked",
         unfilled ? "unfilled" : op);
  RC_LOG() << log << core::to_string(scheduled);
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, *rc::gen::arbitrary<uint32_t>());
  Outcome want = unfilled ? outcome([&] { return interp::ireval(nest, inputs); })
                          : outcome([&] { return interp::run(k, inputs, {.blocks = false}); });
  RC_ASSERT(identical(want, outcome([&] { return interp::ireval(scheduled, inputs); })));
  static jit::Jit j(jit::JitOptions{.scheduling = options});
  RC_ASSERT(identical(want, outcome([&] { return j.compile(nest)->run(inputs); })));
}

// Parallel loops share one team of threads: loops started from several
// threads at once (all but one make a team of their own), on 2 to 5
// threads, and a loop in a forked child of a process whose team has run
// (the child has none of its parent's threads), all compute the
// interpreter's matmul.
TEST(Schedule, ParallelLoopsRunFromSeveralThreadsAndInAForkedChild) {
  core::Kernel k = test::elaborate(
      "- einstein_v2(\"output0[N, M] +=! input0[N, K] * input1[K, M]\", {\"input0\": "
      "{\"dtype\": "
      "\"float32\", \"shape\": [67, 40]}, \"input1\": {\"dtype\": \"float32\", \"shape\": "
      "[40, 33]}})");
  core::LoopNest mm = core::lower(k);
  std::unique_ptr<jit::CompiledKernel> kernel = parallel_jit().compile(mm);
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, 5);
  std::vector<core::Tensor> want = interp::run(k, inputs);
  std::atomic<int> agreed{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&, t] {
      for (int r = 0; r < 40; ++r)
        agreed += identical(kernel->run(inputs, 2 + (t + r) % 4)[0], want[0]);
    });
  for (std::thread& c : callers)
    c.join();
  EXPECT_EQ(agreed.load(), 120);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    bool same = true;
    for (int threads : {2, 3, 4})
      same = same && identical(kernel->run(inputs, threads)[0], want[0]);
    _exit(same ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// A request to stop reaches every thread of a parallel loop: a matmul of
// 2^36 multiply-adds stops within its budget's order of magnitude, and
// leaves nothing running.
TEST(Schedule, AParallelKernelStopsWhenAsked) {
  core::LoopNest mm = core::lower(test::elaborate(
      "- einstein_v2(\"output0[N, M] +=! input0[N, K] * input1[K, M]\", {\"input0\": "
      "{\"dtype\": "
      "\"float32\", \"shape\": [4096, 4096]}, \"input1\": {\"dtype\": \"float32\", \"shape\": "
      "[4096, 4096]}})"));
  std::string log;
  core::schedule(mm, parallel_jit_options().scheduling, &log);
  ASSERT_NE(log.find("parallel N"), std::string::npos) << log;
  std::unique_ptr<jit::CompiledKernel> kernel = parallel_jit().compile(mm);
  std::vector<core::Tensor> inputs = {core::Tensor(core::DType::Float32, {4096, 4096}),
                                      core::Tensor(core::DType::Float32, {4096, 4096})};
  for (int threads : {1, 3}) {
    auto start = std::chrono::steady_clock::now();
    bool finished =
        core::run_within(std::chrono::milliseconds(100), [&] { kernel->run(inputs, threads); });
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(finished) << threads << " threads";
    EXPECT_LT(seconds, 5.0) << threads << " threads";
  }
}

} // namespace
} // namespace teval::verify
