// The bounds analysis (core/bounds.h) on programs whose answers are known
// by hand: what it proves cannot fail, the index arithmetic it proves
// cannot overflow, the divisions it proves natural, and its ranges of
// divisions and remainders against every value; compiled code that leaves
// out what it proved gives the interpreter's bits.
#include "core/bounds.h"
#include "core/lower.h"
#include "interp/interpreter.h"
#include "interp/random_inputs.h"
#include "jit/jit.h"
#include "tests/support/outcome.h"
#include "tests/support/programs.h"

#include <gtest/gtest.h>

#include <functional>
#include <unordered_set>
#include <utility>

namespace teval::verify {
namespace {

using test::identical;
using test::Outcome;
using test::outcome;

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

// The operators of the Apply nodes of \p n that \p chosen picks, in
// evaluation order: those in \p proved, and the others.
std::pair<std::vector<std::string>, std::vector<std::string>>
operators(const core::LoopNest& n, const std::unordered_set<const core::ExprNode*>& proved,
          const std::function<bool(const core::Expr&, const core::Apply&)>& chosen) {
  std::vector<std::string> in, out;
  core::each_stmt(n.root, [&](const core::Stmt& st) {
    for (const core::Expr& e : core::own_exprs(st))
      core::for_each_node(e, [&](const core::Expr& x) {
        const auto* a = std::get_if<core::Apply>(&x->node);
        if (a && chosen(x, *a))
          (proved.count(x.get()) ? in : out).emplace_back(core::spelling(a->op));
      });
  });
  return {in, out};
}

// Overflow checks the analysis proves unneeded: the index arithmetic of a
// read over the loops' ranges, not arithmetic on input values.
TEST(Schedule, TheBoundsAnalysisProvesIndexArithmeticCannotOverflow) {
  core::LoopNest n = core::lower(test::elaborate(
      "- einstein_v2(\"output0[P, Q] = input0[P * 8 + Q] + input0[input1[P] * 3] where Q in 8\", "
      "{\"input0\": {\"dtype\": \"int32\", \"shape\": [64]}, \"input1\": {\"dtype\": "
      "\"int32\", \"shape\": [8]}})"));
  auto [proven, unproven] = operators(
      n, core::proven_accesses(n).arithmetic, [](const core::Expr& x, const core::Apply& a) {
        return a.overflow == core::Overflow::Trap && core::is_integer(x->dtype);
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
  auto [natural, other] = operators(n, core::proven_accesses(n).natural_divisions,
                                    [](const core::Expr&, const core::Apply& a) {
                                      return a.op == core::Op::Div || a.op == core::Op::Mod;
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

} // namespace
} // namespace teval::verify
