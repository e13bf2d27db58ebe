// An owning, contiguous, row-major tensor.
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

/// A dtype, a shape and zero-initialised contiguous C-order storage.
/// Element values are read and written as Scalars; raw bytes are available
/// for I/O and for compiled code.
class Tensor {
public:
  Tensor() = default;
  /// A zero-filled tensor. Throws Error(Limit) when the shape is invalid or
  /// larger than kMaxTensorBytes.
  Tensor(DType dtype, Shape shape);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const { return numel_; }
  std::span<std::byte> bytes() { return bytes_; }
  std::span<const std::byte> bytes() const { return bytes_; }

  /// Element \p flat (row-major position).
  Scalar get(int64_t flat) const;
  /// Stores \p v, which must have this tensor's dtype.
  void set(int64_t flat, const Scalar& v);
  /// Sets every element to \p v.
  void fill(const Scalar& v);

private:
  DType dtype_ = DType::Float32;
  Shape shape_;
  int64_t numel_ = 1;
  std::vector<std::byte> bytes_;
};

/// Throws Error(Shape) at \p span when \p input is not of \p dtype and
/// \p shape, naming input \p name: the check every backend makes of the
/// tensors it is given.
void check_input(const std::string& name, DType dtype, const Shape& shape, Span span,
                 const Tensor& input);

/// Same dtype, shape and element bits (NaN payloads aside).
bool identical(const Tensor& a, const Tensor& b);

} // namespace teval::core
