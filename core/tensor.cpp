// A contiguous, row-major tensor: owned, or a read-only view of a caller's
// memory.
#include "core/tensor.h"

#include "core/error.h"
#include "core/fault.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <sys/mman.h>

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

// Storage of n bytes in v, filled from first to last (with \p fill, or the
// bytes of [from, from + n)). A large block, which malloc maps fresh from
// the kernel, is first advised to be backed by transparent huge pages: the
// fill then faults once per 2 MiB instead of once per 4 KiB (a fresh 64 MiB
// output cost 16384 faults, five times the time of the kernel writing it).
// The advice is only advice: without huge pages nothing changes.
void fill_storage(std::vector<std::byte>& v, size_t n, const std::byte* from = nullptr,
                  std::byte fill = std::byte{0}) {
  constexpr size_t kHugePage = size_t{2} << 20;
  v.clear();
  v.reserve(n);
  if (n >= 2 * kHugePage) {
    auto begin = (reinterpret_cast<uintptr_t>(v.data()) + kHugePage - 1) & ~(kHugePage - 1);
    auto end = (reinterpret_cast<uintptr_t>(v.data()) + n) & ~(kHugePage - 1);
    if (begin < end)
      madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
  if (from)
    v.assign(from, from + n);
  else
    v.assign(n, fill);
}

} // namespace

std::string size_limit_violation(std::string_view what, DType dtype, const Shape& shape) {
  std::optional<int64_t> n = checked_numel(shape);
  int64_t bytes = 0;
  std::string it = std::string(what) + " of shape " + to_string(shape) + " and dtype " +
                   std::string(name(dtype));
  bool has_zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
  if (!n && has_zero)
    return it + " has no element, but its other extents multiply past 2^63, beyond the strides "
                "teval can compute";
  if (!n || __builtin_mul_overflow(*n, int64_t{size_bytes(dtype)}, &bytes) ||
      bytes > kMaxTensorBytes)
    return it + " is larger than teval's limit of " + std::to_string(kMaxTensorBytes) + " bytes";
  return "";
}

Tensor::Tensor() {
  if (planted(43)) { // fault: the default tensor a float32 scalar without storage
    shape_.clear();
    numel_ = 1;
  }
}

Tensor::Tensor(DType dtype, Shape shape) : Tensor(filled(dtype, std::move(shape), std::byte{0})) {}

Tensor Tensor::filled(DType dtype, Shape shape, std::byte fill) {
  if (std::string why = size_limit_violation("tensor", dtype, shape); !why.empty())
    throw Error(ErrorKind::Limit, "", why);
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = *checked_numel(t.shape_);
  t.size_ = static_cast<size_t>(t.numel_ * size_bytes(dtype));
  fill_storage(t.bytes_, t.size_, nullptr, fill);
  return t;
}

Tensor Tensor::borrow(DType dtype, Shape shape, const std::byte* data) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  std::optional<int64_t> n = checked_numel(t.shape_);
  int64_t bytes = 0;
  TEVAL_ASSERT(n && !__builtin_mul_overflow(*n, int64_t{size_bytes(dtype)}, &bytes),
               "a borrowed tensor's size overflows");
  t.numel_ = *n;
  t.size_ = static_cast<size_t>(bytes);
  // An empty view needs no memory; it owns its (empty) storage.
  if (t.size_)
    t.view_ = data;
  return t;
}

Tensor::Tensor(const Tensor& other)
    : dtype_(other.dtype_), shape_(other.shape_), numel_(other.numel_), size_(other.size_) {
  fill_storage(bytes_, size_, other.data());
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other)
    *this = Tensor(other);
  return *this;
}

Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_), shape_(std::move(other.shape_)), numel_(other.numel_),
      size_(other.size_), bytes_(std::move(other.bytes_)), view_(other.view_) {
  other.reset();
}

void Tensor::reset() noexcept {
  dtype_ = DType::Float32;
  // One extent: the only allocation of a move, of 8 bytes (its failure
  // would end the process, as any allocation in a noexcept move does).
  shape_.assign(1, 0);
  numel_ = 0;
  size_ = 0;
  bytes_.clear();
  view_ = nullptr;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this == &other)
    return *this;
  dtype_ = other.dtype_;
  shape_ = std::move(other.shape_);
  numel_ = other.numel_;
  size_ = other.size_;
  bytes_ = std::move(other.bytes_);
  view_ = other.view_;
  other.reset();
  return *this;
}

void Tensor::own() {
  if (!view_)
    return;
  fill_storage(bytes_, size_, view_);
  view_ = nullptr;
}

std::span<std::byte> Tensor::bytes() {
  own();
  return bytes_;
}

std::vector<std::byte> Tensor::release() {
  own();
  std::vector<std::byte> out = std::move(bytes_);
  *this = Tensor();
  return out;
}

Scalar Tensor::get(int64_t flat) const {
  TEVAL_ASSERT(flat >= 0 && flat < numel_, "tensor element out of range");
  const std::byte* p = data() + flat * size_bytes(dtype_);
  Scalar s;
  s.dtype = dtype_;
  switch (dtype_) {
  case DType::Bool:
    s.i = load<uint8_t>(p) != 0;
    break;
  case DType::Int8:
  case DType::Int2:
  case DType::Int4:
    s.i = load<int8_t>(p);
    break;
  case DType::Int16:
    s.i = load<int16_t>(p);
    break;
  case DType::Int32:
    s.i = load<int32_t>(p);
    break;
  case DType::Int64:
  case DType::UInt64:
    s.i = load<int64_t>(p);
    break;
  case DType::UInt8:
  case DType::UInt2:
  case DType::UInt4:
    s.i = load<uint8_t>(p);
    break;
  case DType::UInt16:
    s.i = load<uint16_t>(p);
    break;
  case DType::UInt32:
    s.i = load<uint32_t>(p);
    break;
  case DType::Float16:
    s.f = float16_value(load<uint16_t>(p));
    break;
  case DType::BFloat16:
    s.f = bfloat16_value(load<uint16_t>(p));
    break;
  TEVAL_MINIFLOAT_CASES:
    s.f = minifloat_value(dtype_, load<uint8_t>(p));
    break;
  case DType::Float32:
    s.f = load<float>(p);
    break;
  case DType::Float64:
    s.f = load<double>(p);
    break;
  case DType::Complex64:
    s.f = load<float>(p);
    s.im = load<float>(p + 4);
    break;
  case DType::Complex128:
    s.f = load<double>(p);
    s.im = load<double>(p + 8);
    break;
  }
  return s;
}

void Tensor::set(int64_t flat, const Scalar& v) {
  TEVAL_ASSERT(flat >= 0 && flat < numel_, "tensor element out of range");
  TEVAL_ASSERT(v.dtype == dtype_, "storing a value of another dtype");
  own();
  std::byte* p = bytes_.data() + flat * size_bytes(dtype_);
  switch (dtype_) {
  case DType::Bool:
  case DType::UInt8:
  case DType::UInt2:
  case DType::UInt4:
    store(p, static_cast<uint8_t>(v.i));
    break;
  case DType::Int8:
  case DType::Int2:
  case DType::Int4:
    store(p, static_cast<int8_t>(v.i));
    break;
  case DType::Int16:
  case DType::UInt16:
    store(p, static_cast<uint16_t>(v.i));
    break;
  case DType::Int32:
  case DType::UInt32:
    store(p, static_cast<uint32_t>(v.i));
    break;
  case DType::Int64:
  case DType::UInt64:
    store(p, v.i);
    break;
  case DType::Float16:
    store(p, float16_bits(v.f));
    break;
  case DType::BFloat16:
    store(p, bfloat16_bits(v.f));
    break;
  TEVAL_MINIFLOAT_CASES:
    store(p, minifloat_bits(dtype_, v.f));
    break;
  case DType::Float32:
    store(p, static_cast<float>(v.f));
    break;
  case DType::Float64:
    store(p, v.f);
    break;
  case DType::Complex64:
    store(p, static_cast<float>(v.f));
    store(p + 4, static_cast<float>(v.im));
    break;
  case DType::Complex128:
    store(p, v.f);
    store(p + 8, v.im);
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

int64_t first_difference(const Tensor& a, const Tensor& b) {
  TEVAL_ASSERT(a.dtype() == b.dtype() && a.shape() == b.shape(), "tensors of different types");
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (a.dtype() == DType::Bool
            ? a.bytes()[static_cast<size_t>(i)] != b.bytes()[static_cast<size_t>(i)]
            : !identical(a.get(i), b.get(i)))
      return i;
  }
  return -1;
}

bool identical(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && first_difference(a, b) < 0;
}

} // namespace teval::core
