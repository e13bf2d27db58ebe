// fft (StableHLO specification, "fft"): fft_type and fft_length, in the
// generic form or the pretty one's `type = FFT, length = [4]`, checked as
// the specification's constraints (C1)-(C5) say.
#include "parser/mlir/mlir_attributes.h"
#include "parser/mlir/mlir_ops.h"
#include "parser/mlir/mlir_values.h"

#include "core/error.h"
#include "core/format.h"

namespace teval::parser::mlir_detail {

core::ValueType fft_meaning(const OpSite& site, const core::ValueType& x, core::GraphNode& node) {
  using core::DType;
  using core::Error;
  using core::ErrorKind;
  only(site, {"fft_type", "fft_length", "type", "length"});
  const char* type_name = find(site, "fft_type", false) ? "fft_type" : "type";
  const char* length_name = find(site, "fft_length", false) ? "fft_length" : "length";
  find(site, type_name, true);
  find(site, length_name, true);
  const std::string type = *enum_word(site, type_name, 99);
  if (type != "FFT" && type != "IFFT" && type != "RFFT" && type != "IRFFT")
    throw Error(ErrorKind::Type, find(site, type_name, true)->span,
                "fft_type is " + type + "; it is one of FFT, IFFT, RFFT, IRFFT");
  const std::vector<int64_t> length = ints_attr(site, length_name);
  const core::Span length_span = find(site, length_name, true)->span;
  if (length.empty() || length.size() > 3) // (C3)
    throw Error(ErrorKind::Shape, length_span,
                "fft_length has " + std::to_string(length.size()) + " extents; fft takes 1 to 3");
  if (length.size() > x.shape.size()) // (C1)
    throw Error(ErrorKind::Shape, length_span,
                "fft_length has " + std::to_string(length.size()) + " extents, more than " +
                    type_string(x) + "'s rank");
  for (int64_t n : length)
    if (n < 0)
      throw Error(ErrorKind::Shape, length_span, "fft_length's extents must not be negative");
  // (C2): the element types; (C4), (C5): the shapes.
  const bool real_in = type == "RFFT", real_out = type == "IRFFT";
  const bool ok =
      real_in ? x.dtype == DType::Float32 || x.dtype == DType::Float64 : core::is_complex(x.dtype);
  if (!ok)
    throw Error(ErrorKind::Type, site.span,
                "fft of type " + type + " takes " +
                    (real_in ? "an f32 or f64 tensor" : "a complex tensor") + ", not " +
                    type_string(x));
  core::ValueType result = x;
  if (real_in)
    result.dtype = x.dtype == DType::Float32 ? DType::Complex64 : DType::Complex128;
  if (real_out)
    result.dtype = core::complex_part(x.dtype);
  const size_t lead = x.shape.size() - length.size();
  for (size_t i = 0; i < length.size(); ++i)
    result.shape[lead + i] = length[i];
  const int64_t last = length.back();
  if (real_in)
    result.shape.back() = last == 0 ? 0 : last / 2 + 1;
  // The tensor of floats must end in fft_length; the complex one in it,
  // its last extent n / 2 + 1 for RFFT and IRFFT.
  core::ValueType expected_in = x;
  for (size_t i = 0; i < length.size(); ++i)
    expected_in.shape[lead + i] = length[i];
  if (real_out)
    expected_in.shape.back() = last == 0 ? 0 : last / 2 + 1;
  if (expected_in.shape != x.shape)
    throw Error(ErrorKind::Shape, site.span,
                "fft of type " + type + " with fft_length [" + core::format_index(length) +
                    "] takes a tensor ending in " +
                    core::format_index({expected_in.shape.begin() + static_cast<long>(lead),
                                        expected_in.shape.end()}) +
                    ", not " + type_string(x));
  node.attrs["fft_type"] = type;
  node.attrs["fft_length"] = length;
  return result;
}

} // namespace teval::parser::mlir_detail
