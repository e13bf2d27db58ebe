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
using core::Shape;
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
    Scalar v = core::is_complex(d) ? Scalar::of_complex(d, -1.5, 0.25)
               : core::is_float(d) ? Scalar::of_float(d, -1.5)
                                   : Scalar::of_int(d, 1);
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

TEST(Tensor, EveryTensorHoldsStorageForEachOfItsElements) {
  // A default tensor is the empty float32 tensor of shape [0]: never a
  // scalar without storage, which a rank-0 float32 temp of compiled code
  // once took for its own (and wrote through a null pointer).
  Tensor none;
  EXPECT_EQ(none.dtype(), DType::Float32);
  EXPECT_EQ(none.shape(), (Shape{0}));
  EXPECT_EQ(none.numel(), 0);
  EXPECT_TRUE(none.bytes().empty());
  auto holds_its_elements = [](const Tensor& t) {
    return std::as_const(t).bytes().size() ==
           static_cast<size_t>(t.numel()) * core::size_bytes(t.dtype());
  };
  Tensor scalar(DType::Float32, {});
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_TRUE(holds_its_elements(scalar));
  EXPECT_NE(std::as_const(scalar).bytes().data(), nullptr);
  for (Shape shape : {Shape{}, Shape{1}, Shape{0}, Shape{3, 0, 2}, Shape{1, 1}}) {
    Tensor t = Tensor::filled(DType::Int16, shape, std::byte{0xA5});
    EXPECT_TRUE(holds_its_elements(t));
    for (std::byte b : std::as_const(t).bytes())
      EXPECT_EQ(b, std::byte{0xA5});
    Tensor moved = std::move(t);
    EXPECT_TRUE(holds_its_elements(moved));
    EXPECT_TRUE(holds_its_elements(t)); // NOLINT(bugprone-use-after-move): specified
    Tensor assigned;
    assigned = std::move(moved);
    EXPECT_TRUE(holds_its_elements(moved)); // NOLINT(bugprone-use-after-move): specified
    EXPECT_TRUE(holds_its_elements(assigned));
    std::vector<std::byte> released = assigned.release();
    EXPECT_EQ(released.size(), static_cast<size_t>(*core::checked_numel(shape)) * 2);
    EXPECT_TRUE(holds_its_elements(assigned));
  }
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
  // A move keeps the view; the moved-from tensor is the empty one.
  Tensor moved = std::move(view);
  EXPECT_TRUE(moved.borrowed());
  EXPECT_EQ(view.numel(), 0); // NOLINT(bugprone-use-after-move): the state is specified
  EXPECT_EQ(view.shape(), (Shape{0}));
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
