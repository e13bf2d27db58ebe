// The census of the generators' reach (verify/census.h): what 2000 cases of
// `--lang all` draw, and the constructs read off hand-written kernels.
#include "verify/census.h"

#include "tests/support/programs.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace teval {
namespace {

bool has(const std::vector<std::string>& constructs, const std::string& c) {
  return std::find(constructs.begin(), constructs.end(), c) != constructs.end();
}

TEST(Census, ReadsTheConstructsOfAKernel) {
  // A global maximum kept in a temp of rank 0 and broadcast: a softmax's.
  core::Kernel k = test::elaborate(
      "- einstein_v2(\"m[] >=! input0[N]; output0[N] = (input0[N] - m[]).call(`exp`) + "
      "input0[2 - N].when([2 - N >= 0], const(0.0).cast(`float16`))\", "
      "input_dict={\"input0\": {\"dtype\": \"float16\", \"shape\": [3]}})");
  std::vector<std::string> c = verify::constructs_of(k);
  for (const char* want : {"dtype: a tensor of float16", "rank: a tensor of rank 0",
                           "aggregation: max", "flow: a temp of rank 0 read by a later statement",
                           "flow: a scalar broadcast (a rank-0 tensor read at every point)",
                           "flow: a global reduction read by a later statement",
                           "index: a negative coefficient", "operator: exp on float16",
                           "guard: a read evaluated only where a condition holds (.when, select)"})
    EXPECT_TRUE(has(c, want)) << want;
  EXPECT_FALSE(has(c, "aggregation: +"));
  EXPECT_FALSE(has(c, "flow: an output read by a later statement"));
  for (const std::string& name : c)
    EXPECT_TRUE(has(verify::census_constructs(), name)) << name << " is not listed";
}

TEST(Census, EveryConstructIsDrawnIn2000Cases) {
  // A construct the census lists and 2000 cases never draw is a part of the
  // semantics no campaign tests: each operator on each dtype it takes too.
  verify::Census census = verify::take_census({.lang = "all", .seed = 0}, 2000);
  EXPECT_EQ(census.unreadable, 0u);
  for (const std::string& name : verify::census_constructs())
    EXPECT_GT(census.counts.at(name), 0u) << name << " is never drawn";
}

} // namespace
} // namespace teval
