// Exact bounding boxes of linear constraint systems.
#include "core/affine.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

using core::bounding_box;
using core::IntegerRange;
using core::LinearConstraint;

// lo <= a.x + c <= hi as two constraints.
void between(std::vector<LinearConstraint>& out, std::vector<int64_t> a, int64_t c, int64_t lo,
             int64_t hi) {
  out.push_back({a, c - lo});
  for (int64_t& v : a)
    v = -v;
  out.push_back({a, hi - c});
}

TEST(Affine, MaxPoolWithConstraint) {
  // O(i) >= I(2i + j), N = 5, O has 3 entries, j < 2:
  // 0 <= i <= 2, 0 <= 2i + j <= 4, 0 <= j <= 1.
  std::vector<LinearConstraint> c;
  between(c, {1, 0}, 0, 0, 2);
  between(c, {2, 1}, 0, 0, 4);
  between(c, {0, 1}, 0, 0, 1);
  auto box = bounding_box(2, c);
  ASSERT_TRUE(box);
  EXPECT_EQ((*box)[0].lo, 0);
  EXPECT_EQ((*box)[0].hi, 2);
  EXPECT_EQ((*box)[1].lo, 0);
  EXPECT_EQ((*box)[1].hi, 1);
}

TEST(Affine, BoundsComeThroughOtherVariables) {
  // Without j < 2: 0 <= i <= 2 and 0 <= 2i + j <= 4 leave j in [-4, 4].
  std::vector<LinearConstraint> c;
  between(c, {1, 0}, 0, 0, 2);
  between(c, {2, 1}, 0, 0, 4);
  auto box = bounding_box(2, c);
  ASSERT_TRUE(box);
  EXPECT_EQ((*box)[1].lo, -4);
  EXPECT_EQ((*box)[1].hi, 4);
}

TEST(Affine, RationalCoefficientsRoundInward) {
  // 0 <= (i - 1) / 2 <= 3  <=>  0 <= i - 1 <= 6; and 0 <= 3i <= 10: i <= 3.
  std::vector<LinearConstraint> c;
  between(c, {1}, -1, 0, 6);
  between(c, {3}, 0, 0, 10);
  auto box = bounding_box(1, c);
  ASSERT_TRUE(box);
  EXPECT_EQ((*box)[0].lo, 1);
  EXPECT_EQ((*box)[0].hi, 3);
}

TEST(Affine, UnboundedVariables) {
  std::vector<LinearConstraint> c;
  between(c, {1, 1}, 0, 0, 3); // only i + j is bounded
  auto box = bounding_box(2, c);
  ASSERT_TRUE(box);
  EXPECT_FALSE((*box)[0].lo);
  EXPECT_FALSE((*box)[0].hi);
}

TEST(Affine, InfeasibleSystems) {
  std::vector<LinearConstraint> c;
  between(c, {1, 0}, 0, 0, 2);
  between(c, {1, 1}, 0, 10, 12);
  between(c, {0, 1}, 0, 0, 3); // i + j <= 5 < 10
  EXPECT_FALSE(bounding_box(2, c));
  EXPECT_FALSE(bounding_box(0, {{{}, -1}}));
  EXPECT_TRUE(bounding_box(0, {{{}, 0}}));
}

TEST(Affine, ThreeVariablesCumulativeSum) {
  // csum: 0 <= i < N, 0 <= k < N, 0 <= i - k < N, N = 4.
  std::vector<LinearConstraint> c;
  between(c, {1, 0}, 0, 0, 3);
  between(c, {0, 1}, 0, 0, 3);
  between(c, {1, -1}, 0, 0, 3);
  auto box = bounding_box(2, c);
  ASSERT_TRUE(box);
  EXPECT_EQ((*box)[0].lo, 0);
  EXPECT_EQ((*box)[0].hi, 3);
  EXPECT_EQ((*box)[1].lo, 0);
  EXPECT_EQ((*box)[1].hi, 3);
}

TEST(Affine, LargeCoefficientsDoNotOverflow) {
  std::vector<LinearConstraint> c;
  between(c, {INT64_C(3000000000000), 1}, 0, 0, INT64_C(4000000000000000000));
  between(c, {0, 1}, 0, 0, INT64_C(1) << 40);
  auto box = bounding_box(2, c);
  ASSERT_TRUE(box);
  EXPECT_EQ((*box)[0].hi, INT64_C(4000000000000000000) / INT64_C(3000000000000));
}

} // namespace
} // namespace teval
