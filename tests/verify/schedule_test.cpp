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
