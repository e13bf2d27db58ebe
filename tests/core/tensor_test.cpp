// The owning tensor: storage per dtype, limits.
#include "core/error.h"
#include "core/tensor.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

using core::DType;
using core::Scalar;
using core::Tensor;

TEST(Tensor, ZeroFilledAndRowMajor) {
  Tensor t(DType::Int16, {2, 3});
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.bytes().size(), 12u);
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(t.get(i).i, 0);
  EXPECT_EQ(core::strides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
}

TEST(Tensor, EveryDtypeStoresItsValues) {
  for (DType d : core::kAllDTypes) {
    SCOPED_TRACE(std::string(core::name(d)));
    Tensor t(d, {2});
    Scalar v = core::is_float(d) ? Scalar::of_float(d, -1.5) : Scalar::of_int(d, 1);
    t.set(1, v);
    EXPECT_TRUE(core::identical(t.get(1), v));
    EXPECT_TRUE(core::identical(t.get(0), core::constant(d, 0)));
  }
}

TEST(Tensor, RankZeroHasOneElement) {
  Tensor t(DType::Float64, {});
  EXPECT_EQ(t.numel(), 1);
  t.set(0, Scalar::of_float(DType::Float64, 2.5));
  EXPECT_EQ(t.get(0).f, 2.5);
}

TEST(Tensor, EmptyShape) {
  Tensor t(DType::Float32, {3, 0});
  EXPECT_EQ(t.numel(), 0);
}

TEST(Tensor, HugeShapesAreLimitErrors) {
  try {
    Tensor t(DType::Float32, {1 << 20, 1 << 20, 1 << 20});
    ADD_FAILURE() << "no error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.kind(), core::ErrorKind::Limit);
  }
  EXPECT_THROW(Tensor(DType::Float64, {int64_t{1} << 32, 8}), core::Error);
}

} // namespace
} // namespace teval
