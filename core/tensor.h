// A contiguous, row-major tensor: owned, or a read-only view of a caller's
// memory.
#pragma once

#include "core/dtype.h"
#include "core/numeric.h"
#include "core/shape.h"
#include "core/source.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace teval::core {

/// Why a tensor of this dtype and shape is beyond teval's limits (its bytes
/// past kMaxTensorBytes, or, when it has no element, its nonzero extents
/// multiplying past int64), naming it `what`; empty when it is within them.
std::string size_limit_violation(std::string_view what, DType dtype, const Shape& shape);

/// A dtype, a shape and contiguous C-order storage. Element values are
/// read and written as Scalars; raw bytes are available for I/O and for
/// compiled code.
///
/// A tensor owns its storage, or borrows a caller's memory (borrow): a
/// borrowed tensor is read where it lies, its copies own their elements,
/// and the first mutable access takes a private copy, so the caller's
/// memory is never written.
///
/// Every tensor holds numel() elements of storage, bytes().size() ==
/// numel() * size_bytes(dtype()): a default-constructed or moved-from
/// tensor is the empty float32 tensor of shape [0], never a scalar without
/// storage (a rank-0 float32 temp once took such a tensor for its own and
/// compiled code wrote through a null pointer).
class Tensor {
public:
  /// The empty float32 tensor of shape [0].
  Tensor();
  /// A zero-filled tensor. Throws Error(Limit) when the shape is invalid or
  /// larger than kMaxTensorBytes.
  Tensor(DType dtype, Shape shape);
  /// A tensor whose every byte is \p fill (core::kUnwrittenOutput for
  /// memory whose contents are unspecified). Throws as the constructor.
  static Tensor filled(DType dtype, Shape shape, std::byte fill);
  /// A view of \p data, which holds the elements in C order, is aligned
  /// for \p dtype and outlives the view and its moves.
  static Tensor borrow(DType dtype, Shape shape, const std::byte* data);

  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor() = default;

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const { return numel_; }
  /// The elements (a borrowed tensor takes its private copy first).
  std::span<std::byte> bytes();
  std::span<const std::byte> bytes() const { return {data(), size_}; }
  bool borrowed() const { return view_ != nullptr; }
  /// Moves the elements out (a copy for a borrowed tensor), leaving the
  /// tensor empty.
  std::vector<std::byte> release();

  /// Element \p flat (row-major position).
  Scalar get(int64_t flat) const;
  /// Stores \p v, which must have this tensor's dtype.
  void set(int64_t flat, const Scalar& v);
  /// Sets every element to \p v.
  void fill(const Scalar& v);

private:
  const std::byte* data() const { return view_ ? view_ : bytes_.data(); }
  void own();

  // The moved-from state: the empty tensor (an allocation of one extent).
  void reset() noexcept;

  DType dtype_ = DType::Float32;
  Shape shape_ = {0};
  int64_t numel_ = 0;
  size_t size_ = 0; // bytes
  std::vector<std::byte> bytes_;
  const std::byte* view_ = nullptr;
};

/// Throws Error(Shape) at \p span when \p input is not of \p dtype and
/// \p shape, naming input \p name: the check every backend makes of the
/// tensors it is given.
void check_input(const std::string& name, DType dtype, const Shape& shape, Span span,
                 const Tensor& input);

/// Same dtype, shape and element bits (NaN payloads aside; a bool element
/// is its byte, so a true stored as 0xff is not a true stored as 1).
bool identical(const Tensor& a, const Tensor& b);

/// The first flat index where \p a and \p b, of one dtype and shape,
/// differ in the sense of identical(), or -1.
int64_t first_difference(const Tensor& a, const Tensor& b);

} // namespace teval::core
