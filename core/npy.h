// numpy .npy files: read and write.
#pragma once

#include "core/tensor.h"

#include <string>
#include <string_view>

namespace teval::core {

/// Decodes a whole .npy file held in \p bytes. Accepts format versions 1.0,
/// 2.0 and 3.0, little-endian (or byte-order-free) arrays of teval's dtypes
/// in C or Fortran order (the tensor is row-major either way); "<V2" is read
/// as bfloat16. Rejects big-endian data, object and structured arrays, other
/// dtypes, malformed headers and truncated or oversized data with
/// Error(Input) located at \p origin.
Tensor decode_npy(std::string_view bytes, const std::string& origin);

/// Reads the .npy file at \p path (see decode_npy()).
Tensor read_npy(const std::string& path);

/// Encodes \p t as a version 1.0 .npy file (2.0 when the header needs it),
/// header padded to a multiple of 64 bytes as numpy does.
std::string encode_npy(const Tensor& t);
/// \p t as its .npy file holds it: the minifloats widened to float32
/// (core::carrier), every other tensor as it is.
Tensor npy_form(const Tensor& t);

/// The header encode_npy() writes for a tensor of \p dtype and \p shape
/// (magic, version, length and the padded dict), without the data.
std::string npy_header(DType dtype, const Shape& shape);

/// Writes encode_npy(\p t) to \p path; Error(Input) when that fails.
void write_npy(const Tensor& t, const std::string& path);

} // namespace teval::core
