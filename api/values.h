// Conversions between the public API's values and the internal ones.
#pragma once

#include "core/error.h"
#include "core/tensor.h"
#include "teval/teval.h"

namespace teval::api {

core::DType internal(DType t);
DType public_dtype(core::DType t);

/// The public Error for an internal one: its diagnostics with file, line
/// and column, and the rendered text.
Error public_error(const core::Error& e);

/// An Error with no position (an API misuse or a missing input).
[[noreturn]] void fail(const std::string& message);

/// \p ref as an internal C-order tensor: a view of the caller's memory
/// when it is in C order and aligned, else a copy (any strides).
core::Tensor internal_tensor(const TensorRef& ref);
/// The addresses [first, last) a tensor's elements occupy; empty for one
/// with no element.
struct Extent {
  __int128 first = 0, last = 0;
  bool empty() const { return first >= last; }
  bool overlaps(const Extent& o) const {
    return !empty() && !o.empty() && first < o.last && o.first < last;
  }
};
Extent extent(const void* data, DType dtype, const std::vector<int64_t>& shape,
              const std::vector<int64_t>& strides);

/// Checks \p out as the memory for output \p name of type \p info: its
/// dtype and shape, data, strides under which no two elements meet.
void check_destination(const std::string& name, const TensorOut& out, const TensorInfo& info);
/// Whether an element of \p a and one of \p b share a byte (exactly:
/// interleaved layouts that span each other do not).
bool share_memory(const TensorOut& a, const TensorOut& b);
/// Whether compiled code can write \p out in place: C order, aligned.
bool in_place(const TensorOut& out);
/// Writes \p t (C order, \p out's type) to \p out's memory; nothing when
/// \p t is a view of that memory already.
void write_out(const core::Tensor& t, const TensorOut& out);

/// \p t as a public tensor, its storage moved (a borrowed tensor copied).
Tensor move_out(core::Tensor&& t);

} // namespace teval::api
