// An owning, contiguous, row-major tensor.
#include "core/tensor.h"

#include "core/error.h"

#include <cstring>

namespace teval::core {

namespace {

template <class T> T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T> void store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

} // namespace

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  std::optional<int64_t> n = checked_numel(shape_);
  int64_t bytes = 0;
  if (!n || __builtin_mul_overflow(*n, int64_t{size_bytes(dtype)}, &bytes) ||
      bytes > kMaxTensorBytes)
    throw Error(ErrorKind::Limit, "",
                "tensor of shape " + to_string(shape_) + " and dtype " + std::string(name(dtype)) +
                    " is larger than teval's limit of " + std::to_string(kMaxTensorBytes) +
                    " bytes");
  numel_ = *n;
  bytes_.assign(static_cast<size_t>(bytes), std::byte{0});
}

Scalar Tensor::get(int64_t flat) const {
  TEVAL_ASSERT(flat >= 0 && flat < numel_, "tensor element out of range");
  const std::byte* p = bytes_.data() + flat * size_bytes(dtype_);
  Scalar s;
  s.dtype = dtype_;
  switch (dtype_) {
  case DType::Bool:
    s.i = load<uint8_t>(p) != 0;
    break;
  case DType::Int8:
    s.i = load<int8_t>(p);
    break;
  case DType::Int16:
    s.i = load<int16_t>(p);
    break;
  case DType::Int32:
    s.i = load<int32_t>(p);
    break;
  case DType::Int64:
    s.i = load<int64_t>(p);
    break;
  case DType::UInt8:
    s.i = load<uint8_t>(p);
    break;
  case DType::Float16:
    s.f = float16_value(load<uint16_t>(p));
    break;
  case DType::BFloat16:
    s.f = bfloat16_value(load<uint16_t>(p));
    break;
  case DType::Float32:
    s.f = load<float>(p);
    break;
  case DType::Float64:
    s.f = load<double>(p);
    break;
  }
  return s;
}

void Tensor::set(int64_t flat, const Scalar& v) {
  TEVAL_ASSERT(flat >= 0 && flat < numel_, "tensor element out of range");
  TEVAL_ASSERT(v.dtype == dtype_, "storing a value of another dtype");
  std::byte* p = bytes_.data() + flat * size_bytes(dtype_);
  switch (dtype_) {
  case DType::Bool:
  case DType::UInt8:
    store(p, static_cast<uint8_t>(v.i));
    break;
  case DType::Int8:
    store(p, static_cast<int8_t>(v.i));
    break;
  case DType::Int16:
    store(p, static_cast<int16_t>(v.i));
    break;
  case DType::Int32:
    store(p, static_cast<int32_t>(v.i));
    break;
  case DType::Int64:
    store(p, v.i);
    break;
  case DType::Float16:
    store(p, float16_bits(v.f));
    break;
  case DType::BFloat16:
    store(p, bfloat16_bits(v.f));
    break;
  case DType::Float32:
    store(p, static_cast<float>(v.f));
    break;
  case DType::Float64:
    store(p, v.f);
    break;
  }
}

void Tensor::fill(const Scalar& v) {
  for (int64_t i = 0; i < numel_; ++i)
    set(i, v);
}

void check_input(const std::string& name, DType dtype, const Shape& shape, Span span,
                 const Tensor& input) {
  if (input.dtype() != dtype || input.shape() != shape)
    throw Error(ErrorKind::Shape, span,
                "input `" + name + "` is " + std::string(core::name(input.dtype())) +
                    to_string(input.shape()) + " but the kernel expects " +
                    std::string(core::name(dtype)) + to_string(shape));
}

bool identical(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape())
    return false;
  for (int64_t i = 0; i < a.numel(); ++i)
    if (!identical(a.get(i), b.get(i)))
      return false;
  return true;
}

} // namespace teval::core
