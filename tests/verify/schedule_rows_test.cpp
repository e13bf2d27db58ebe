// Schedules of contractions by rows of outputs: register tiles of every
// width, rows of partial vectors split or walked as one through padded
// copies, guarded windows read from padded copies; compiled code and the
// scheduled nest under IREval give the interpreter's bits.
#include "core/lower.h"
#include "core/schedule.h"
#include "interp/interpreter.h"
#include "interp/ireval.h"
#include "interp/random_inputs.h"
#include "jit/jit.h"
#include "tests/support/outcome.h"
#include "tests/support/programs.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <regex>

namespace teval::verify {
namespace {

using test::identical;
using test::Outcome;
using test::outcome;

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

// Tiles are sized for the target's vector registers: with AVX2's 16
// registers of 32 bytes, a row of 32 floats is four vectors and jams 2
// output channels (8 accumulators, half the registers), a row of 8 floats
// one vector and 8 channels; 12-float rows (a vector and a half) are walked
// as one in rows of 4 vectors. The JIT schedules for its own target
// (Jit::schedule): on AVX-512, the defaults.
TEST(Schedule, RegisterTilesFitTheTargetsRegisters) {
  const core::ScheduleOptions avx2{.vector_bytes = 32, .vector_registers = 16};
  auto log_of = [&](const core::Kernel& k, const core::ScheduleOptions& o) {
    std::string log;
    core::LoopNest s = core::schedule(core::lower(k), o, &log);
    std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, 3);
    EXPECT_TRUE(core::identical(interp::ireval(s, inputs)[0], interp::run(k, inputs)[0])) << log;
    return log;
  };
  std::string log = log_of(padded_convolution(1, 3, 5, 32, 16), avx2);
  EXPECT_NE(log.find("register tile 32 WO x 2 F"), std::string::npos) << log;
  log = log_of(padded_convolution(1, 3, 5, 8, 16), avx2);
  EXPECT_NE(log.find("register tile 8 WO x 8 F"), std::string::npos) << log;
  log = log_of(padded_convolution(1, 3, 5, 12, 16), avx2);
  EXPECT_NE(log.find("walk the rows of output0 as one, into output0_rows[1, 16, 3, 32]\n"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("register tile 32 HO.WO.i x 2 F"), std::string::npos) << log;
  jit::Jit j;
  const bool avx512 = j.target().find("+avx512f") != std::string::npos;
  log.clear();
  j.schedule(core::lower(padded_convolution(1, 3, 5, 32, 16)), &log);
  if (avx512)
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
    // Whole 64-byte vectors, the schedule's (LLVM prefers 256-bit vectors
    // on Intel's server cores: the tile's 16 vectors became 32 and
    // spilled); never narrower.
    const std::regex fmul("fmul <([0-9]+) x float>");
    int vectors = 0;
    for (auto m = std::sregex_iterator(ir.begin(), ir.end(), fmul); m != std::sregex_iterator();
         ++m, ++vectors)
      EXPECT_EQ(std::stoi((*m)[1].str()), 16) << ir;
    EXPECT_GT(vectors, 0) << ir;
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

} // namespace
} // namespace teval::verify
