// Conversions between the public API's values and the internal ones.
#include "api/values.h"

#include "core/dtype.h"
#include "core/shape.h"

#include <algorithm>
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

// Whether \p strides are C order's for \p shape (extents of 1 and empty
// tensors may have any).
bool c_order(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  if (strides.empty())
    return true;
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0)
      return true;
    if (shape[d] != 1 && strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return true;
}

void check_strides(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  if (!strides.empty() && strides.size() != shape.size())
    fail("a tensor has " + std::to_string(strides.size()) + " strides for " +
         std::to_string(shape.size()) + " dimensions");
}

// Calls f(flat, offset) for each element in C order: its position there
// and its offset in elements under \p strides.
template <class F>
void each_element(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                  int64_t numel, F f) {
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < numel; ++flat) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * strides[d];
    f(flat, offset);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

bool aligned(const void* data, DType dtype) {
  return reinterpret_cast<uintptr_t>(data) % size_of(dtype) == 0;
}

} // namespace

core::Tensor internal_tensor(const TensorRef& ref) {
  check_strides(ref.shape, ref.strides);
  size_t size = size_of(ref.dtype);
  // The caller's memory as it is, where its layout is teval's: no copy.
  std::optional<int64_t> n = core::checked_numel(ref.shape);
  if (n && *n > 0 && ref.data && c_order(ref.shape, ref.strides) && aligned(ref.data, ref.dtype))
    return core::Tensor::borrow(internal(ref.dtype), ref.shape,
                                static_cast<const std::byte*>(ref.data));
  core::Tensor t(internal(ref.dtype), ref.shape);
  if (t.numel() == 0)
    return t;
  if (!ref.data)
    fail("a tensor has no data");
  auto* out = reinterpret_cast<unsigned char*>(t.bytes().data());
  const auto* in = static_cast<const unsigned char*>(ref.data);
  if (c_order(ref.shape, ref.strides)) {
    std::memcpy(out, in, t.bytes().size());
    return t;
  }
  // Walk the elements in C order, reading each where its strides say.
  each_element(ref.shape, ref.strides, t.numel(), [&](int64_t flat, int64_t offset) {
    std::memcpy(out + flat * size, in + offset * static_cast<int64_t>(size), size);
  });
  return t;
}

Extent extent(const void* data, DType dtype, const std::vector<int64_t>& shape,
              const std::vector<int64_t>& strides) {
  std::optional<int64_t> n = core::checked_numel(shape);
  if (!n || *n == 0 || !data)
    return {};
  const auto size = static_cast<__int128>(size_of(dtype));
  __int128 low = 0, high = 0; // element offsets
  if (strides.empty()) {
    high = *n - 1;
  } else {
    for (size_t d = 0; d < shape.size(); ++d) {
      __int128 span = static_cast<__int128>(shape[d] - 1) * strides[d];
      (span < 0 ? low : high) += span;
    }
  }
  const auto base = static_cast<__int128>(reinterpret_cast<uintptr_t>(data));
  return {base + low * size, base + (high + 1) * size};
}

void check_destination(const std::string& name, const TensorOut& out, const TensorInfo& info) {
  check_strides(out.shape, out.strides);
  if (out.dtype != info.dtype || out.shape != info.shape)
    fail("output `" + name + "` is " + core::to_string(internal(info.dtype)) +
         core::to_string(info.shape) + ", not " + core::to_string(internal(out.dtype)) +
         core::to_string(out.shape));
  if (extent(out.data, out.dtype, out.shape, out.strides).empty() &&
      *core::checked_numel(out.shape) > 0)
    fail("the memory for output `" + name + "` has no data");
  if (c_order(out.shape, out.strides))
    return;
  // Distinct elements at distinct addresses: each dimension's stride
  // steps past everything the dimensions of smaller strides span.
  std::vector<std::pair<__int128, int64_t>> dims; // |stride|, extent
  for (size_t d = 0; d < out.shape.size(); ++d)
    if (out.shape[d] > 1)
      dims.emplace_back(out.strides[d] < 0 ? -static_cast<__int128>(out.strides[d])
                                           : out.strides[d],
                        out.shape[d]);
  std::sort(dims.begin(), dims.end());
  __int128 spanned = 0;
  for (const auto& [stride, count] : dims) {
    if (stride <= spanned)
      fail("the memory for output `" + name + "` has strides under which elements may overlap");
    spanned += stride * (count - 1);
  }
}

bool share_memory(const TensorOut& a, const TensorOut& b) {
  if (!extent(a.data, a.dtype, a.shape, a.strides)
           .overlaps(extent(b.data, b.dtype, b.shape, b.strides)))
    return false;
  // Interleaved layouts span each other: compare the elements' bytes.
  auto starts = [](const TensorOut& t) {
    std::vector<uintptr_t> at;
    const auto base = reinterpret_cast<uintptr_t>(t.data);
    const auto size = static_cast<int64_t>(size_of(t.dtype));
    const std::vector<int64_t> strides = t.strides.empty() ? core::strides(t.shape) : t.strides;
    each_element(t.shape, strides, *core::checked_numel(t.shape), [&](int64_t, int64_t offset) {
      at.push_back(base + static_cast<uintptr_t>(offset * size));
    });
    std::sort(at.begin(), at.end());
    return at;
  };
  const std::vector<uintptr_t> x = starts(a), y = starts(b);
  const uintptr_t xs = size_of(a.dtype), ys = size_of(b.dtype);
  for (uintptr_t p : y) {
    // The last element of a starting at or before p, and the next one.
    auto next = std::upper_bound(x.begin(), x.end(), p);
    if (next != x.begin() && *(next - 1) + xs > p)
      return true;
    if (next != x.end() && *next < p + ys)
      return true;
  }
  return false;
}

bool in_place(const TensorOut& out) {
  return c_order(out.shape, out.strides) && aligned(out.data, out.dtype);
}

void write_out(const core::Tensor& t, const TensorOut& out) {
  if (t.numel() == 0 || (in_place(out) && t.bytes().data() == out.data))
    return; // nothing, or written there already
  const auto* in = reinterpret_cast<const unsigned char*>(t.bytes().data());
  auto* to = static_cast<unsigned char*>(out.data);
  if (c_order(out.shape, out.strides)) {
    std::memmove(to, in, t.bytes().size());
    return;
  }
  const int64_t size = static_cast<int64_t>(size_of(out.dtype));
  each_element(out.shape, out.strides, t.numel(), [&](int64_t flat, int64_t offset) {
    std::memcpy(to + offset * size, in + flat * size, static_cast<size_t>(size));
  });
}

Tensor move_out(core::Tensor&& t) {
  core::Shape shape = t.shape();
  DType dtype = public_dtype(t.dtype());
  return Tensor(dtype, std::move(shape), t.release());
}

} // namespace api
} // namespace teval
