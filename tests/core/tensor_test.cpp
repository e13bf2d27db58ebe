// The tensor: storage per dtype, limits, borrowed views.
#include "core/error.h"
#include "core/tensor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <utility>

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

TEST(Tensor, IdenticalComparesBitsAndABoolIsItsByte) {
  Tensor a(DType::Bool, {3}), b(DType::Bool, {3});
  a.set(1, core::constant(DType::Bool, 1));
  b.set(1, core::constant(DType::Bool, 1));
  EXPECT_TRUE(core::identical(a, b));
  // A true stored as 0xff reads as true but is not the byte numpy and
  // every consumer expect.
  b.bytes()[1] = std::byte{0xff};
  EXPECT_TRUE(core::identical(a.get(1), b.get(1)));
  EXPECT_FALSE(core::identical(a, b));
  EXPECT_EQ(core::first_difference(a, b), 1);
  Tensor x(DType::Float32, {2}), y(DType::Float32, {2});
  x.set(1, Scalar::of_float(DType::Float32, 0.0));
  y.set(1, Scalar::of_float(DType::Float32, -0.0));
  EXPECT_EQ(core::first_difference(x, y), 1); // -0 is another bit pattern
  EXPECT_EQ(core::first_difference(x, x), -1);
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

TEST(Tensor, ABorrowedTensorReadsTheCallersMemoryAndNeverWritesIt) {
  const int32_t memory[3] = {4, 5, 6};
  const auto* data = reinterpret_cast<const std::byte*>(memory);
  Tensor view = Tensor::borrow(DType::Int32, {3}, data);
  EXPECT_TRUE(view.borrowed());
  EXPECT_EQ(std::as_const(view).bytes().data(), data); // no copy
  EXPECT_EQ(view.get(2).i, 6);
  // A copy owns its elements.
  Tensor copy = view;
  EXPECT_FALSE(copy.borrowed());
  EXPECT_NE(std::as_const(copy).bytes().data(), data);
  EXPECT_EQ(copy.get(1).i, 5);
  // A move keeps the view; the moved-from tensor is empty.
  Tensor moved = std::move(view);
  EXPECT_TRUE(moved.borrowed());
  EXPECT_EQ(view.numel(), 1); // NOLINT(bugprone-use-after-move): the state is specified
  EXPECT_TRUE(view.bytes().empty());
  // Writing takes a private copy first.
  moved.set(0, Scalar::of_int(DType::Int32, 9));
  EXPECT_FALSE(moved.borrowed());
  EXPECT_EQ(moved.get(0).i, 9);
  EXPECT_EQ(memory[0], 4);
  Tensor again = Tensor::borrow(DType::Int32, {3}, data);
  again.bytes()[0] = std::byte{1};
  EXPECT_EQ(memory[0], 4);
  // Releasing the storage of a view copies it.
  std::vector<std::byte> released = Tensor::borrow(DType::Int32, {3}, data).release();
  ASSERT_EQ(released.size(), 12u);
  EXPECT_NE(released.data(), data);
  EXPECT_EQ(std::memcmp(released.data(), memory, 12), 0);
}

} // namespace
} // namespace teval
