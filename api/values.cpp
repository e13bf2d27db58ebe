// Conversions between the public API's values and the internal ones.
#include "api/values.h"

#include "core/dtype.h"
#include "core/shape.h"

#include <cstring>

namespace teval {

// The public enumerators mirror dtype.def's order.
#define TEVAL_DTYPE(e, spelling, size, kind, descr)                                                \
  static_assert(static_cast<int>(DType::e) == static_cast<int>(core::DType::e));
#include "core/dtype.def"

std::string_view name(DType t) {
  return core::name(api::internal(t));
}

size_t size_of(DType t) {
  return static_cast<size_t>(core::size_bytes(api::internal(t)));
}

Error::Error(std::vector<Diagnostic> diagnostics, std::string rendered)
    : diagnostics_(std::move(diagnostics)), rendered_(std::move(rendered)) {
  if (diagnostics_.empty())
    diagnostics_.push_back({});
}

namespace {

// The bytes of a tensor of \p dtype and \p shape: an Error when an extent
// is negative or the size passes teval's limit (never an overflow).
size_t tensor_bytes(DType dtype, const std::vector<int64_t>& shape) {
  for (int64_t d : shape)
    if (d < 0)
      api::fail("a tensor extent is negative");
  if (std::string why = core::size_limit_violation("a tensor", api::internal(dtype), shape);
      !why.empty())
    api::fail(why);
  return static_cast<size_t>(*core::checked_numel(shape)) * size_of(dtype);
}

} // namespace

Tensor::Tensor(DType dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
  bytes_.resize(tensor_bytes(dtype_, shape_));
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape, std::vector<std::byte> bytes)
    : dtype_(dtype), shape_(std::move(shape)) {
  // Adopted without a first allocation of its own: an output of the
  // engines moves here whole.
  size_t size = tensor_bytes(dtype_, shape_);
  if (bytes.size() != size)
    api::fail("a " + std::string(name(dtype)) + " tensor of " + std::to_string(numel()) +
              " elements needs " + std::to_string(size) + " bytes, not " +
              std::to_string(bytes.size()));
  bytes_ = std::move(bytes);
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_)
    n *= d;
  return n;
}

namespace api {

core::DType internal(DType t) {
  return static_cast<core::DType>(t);
}

DType public_dtype(core::DType t) {
  return static_cast<DType>(t);
}

namespace {

Diagnostic diagnostic(const core::Diagnostic& d) {
  Diagnostic out;
  out.message = d.message;
  if (d.span.valid()) {
    core::SourceFile::Location at = d.span.file->location(d.span.begin);
    out.file = d.span.file->name();
    out.line = static_cast<int>(at.line);
    out.column = static_cast<int>(at.column);
  } else {
    out.file = d.path;
  }
  return out;
}

} // namespace

Error public_error(const core::Error& e) {
  std::vector<Diagnostic> all{diagnostic(e.diagnostic())};
  for (const core::Diagnostic& n : e.notes())
    all.push_back(diagnostic(n));
  return Error(std::move(all), e.render());
}

void fail(const std::string& message) {
  throw Error({{"", 0, 0, message}}, "error: " + message + "\n");
}

namespace {

// Whether \p ref's strides are C order's (extents of 1 and empty tensors
// may have any).
bool c_order(const TensorRef& ref) {
  if (ref.strides.empty())
    return true;
  int64_t expected = 1;
  for (size_t d = ref.shape.size(); d-- > 0;) {
    if (ref.shape[d] == 0)
      return true;
    if (ref.shape[d] != 1 && ref.strides[d] != expected)
      return false;
    expected *= ref.shape[d];
  }
  return true;
}

} // namespace

core::Tensor internal_tensor(const TensorRef& ref) {
  if (!ref.strides.empty() && ref.strides.size() != ref.shape.size())
    fail("a tensor has " + std::to_string(ref.strides.size()) + " strides for " +
         std::to_string(ref.shape.size()) + " dimensions");
  size_t size = size_of(ref.dtype);
  // The caller's memory as it is, where its layout is teval's: no copy.
  std::optional<int64_t> n = core::checked_numel(ref.shape);
  if (n && *n > 0 && ref.data && c_order(ref) && reinterpret_cast<uintptr_t>(ref.data) % size == 0)
    return core::Tensor::borrow(internal(ref.dtype), ref.shape,
                                static_cast<const std::byte*>(ref.data));
  core::Tensor t(internal(ref.dtype), ref.shape);
  if (t.numel() == 0)
    return t;
  if (!ref.data)
    fail("a tensor has no data");
  auto* out = reinterpret_cast<unsigned char*>(t.bytes().data());
  const auto* in = static_cast<const unsigned char*>(ref.data);
  if (c_order(ref)) {
    std::memcpy(out, in, t.bytes().size());
    return t;
  }
  // Walk the elements in C order, reading each where its strides say.
  std::vector<int64_t> index(ref.shape.size(), 0);
  for (int64_t flat = 0; flat < t.numel(); ++flat) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * ref.strides[d];
    std::memcpy(out + flat * size, in + offset * static_cast<int64_t>(size), size);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < ref.shape[d])
        break;
      index[d] = 0;
    }
  }
  return t;
}

Tensor move_out(core::Tensor&& t) {
  core::Shape shape = t.shape();
  DType dtype = public_dtype(t.dtype());
  return Tensor(dtype, std::move(shape), t.release());
}

} // namespace api
} // namespace teval
