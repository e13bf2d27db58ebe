// bitcast_convert and reduce_precision (see bitcast.h).
#include "ops/bitcast.h"

#include "core/error.h"
#include "core/interrupt.h"
#include "core/numeric.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace teval::ops::detail {

core::Tensor bitcast_convert(const core::Tensor& x, const core::ValueType& result) {
  core::Tensor out(result.dtype, result.shape);
  if (x.dtype() != core::DType::Bool && result.dtype != core::DType::Bool) {
    // Whole bytes: the same bytes in memory order.
    TEVAL_ASSERT(out.bytes().size() == x.bytes().size(), "bitcast_convert of another size");
    if (!out.bytes().empty())
      std::memcpy(out.bytes().data(), x.bytes().data(), x.bytes().size());
    return out;
  }
  // An i1 is one bit: the bits of the elements in order, each element's
  // from the least significant up.
  auto bits_of = [](core::DType t) { return t == core::DType::Bool ? 1 : 8 * core::size_bytes(t); };
  const size_t in_bits = bits_of(x.dtype()), out_bits = bits_of(result.dtype);
  auto bit = [&](size_t k) {
    const size_t element = k / in_bits, at = k % in_bits;
    if (x.dtype() == core::DType::Bool)
      return x.bytes()[element] != std::byte{0};
    return ((x.bytes()[element * (in_bits / 8) + at / 8] >> (at % 8)) & std::byte{1}) !=
           std::byte{0};
  };
  std::span<std::byte> to = out.bytes();
  for (size_t k = 0; k < static_cast<size_t>(out.numel()) * out_bits; ++k) {
    if (!bit(k))
      continue;
    if (result.dtype == core::DType::Bool)
      to[k] = std::byte{1};
    else
      to[k / 8] |= std::byte{1} << (k % 8);
  }
  return out;
}

core::Tensor reduce_precision(const core::GraphNode& n, const core::Tensor& x) {
  const int64_t exponent_bits = n.int_attr("exponent_bits");
  const int64_t mantissa_bits = n.int_attr("mantissa_bits");
  // The source format, as the specification's reference interpreter reads
  // it: its width, mantissa bits (without the implicit one), and the bits
  // between them the exponent, the top bit the sign (a minifloat's bits are
  // its one byte's low bits; f8E8M0FNU has no sign bit, but the formula
  // reads its top exponent bit as one).
  const core::DType t = x.dtype();
  const core::MiniFloat* mini = core::minifloat(t);
  const int width = core::bit_width(t);
  const int source_mantissa = mini                         ? mini->mantissa_bits
                              : t == core::DType::Float16  ? 10
                              : t == core::DType::BFloat16 ? 7
                              : t == core::DType::Float32  ? 23
                                                           : 52;
  const int source_exponent = width - source_mantissa - 1;
  const uint64_t all = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  const uint64_t sign = uint64_t{1} << (width - 1);
  const uint64_t exponent_mask = ((uint64_t{1} << source_exponent) - 1) << source_mantissa;
  const uint64_t mantissa_mask = (uint64_t{1} << source_mantissa) - 1;
  // A NaN with no mantissa bit kept: the infinity of its sign, as the type
  // holds one (core::round_float: NaN, or the largest value, where it has
  // none).
  auto infinity = [&](uint64_t bits) -> uint64_t {
    if (!mini)
      return (bits & sign) | exponent_mask;
    const double inf = std::numeric_limits<double>::infinity();
    return core::minifloat_bits(t, core::round_float(t, (bits & sign) ? -inf : inf));
  };
  core::Tensor out = x;
  std::byte* data = out.bytes().data();
  const size_t size = core::size_bytes(t);
  for (int64_t i = 0; i < out.numel(); ++i) {
    core::poll_interrupt();
    uint64_t bits = 0;
    std::memcpy(&bits, data + static_cast<size_t>(i) * size, size); // little-endian
    const bool nan = mini ? std::isnan(core::minifloat_value(t, static_cast<uint8_t>(bits)))
                          : (bits & exponent_mask) == exponent_mask && (bits & mantissa_mask) != 0;
    uint64_t r = bits;
    if (mantissa_bits < source_mantissa) {
      // Round to nearest, ties to even, at the last kept mantissa bit:
      // add half an ulp less one, plus the kept last bit, then truncate.
      const int drop = source_mantissa - static_cast<int>(mantissa_bits);
      const uint64_t last = uint64_t{1} << drop;
      r = (r + (last >> 1) - 1 + ((r & last) >> drop)) & ~(last - 1) & all;
    }
    if (exponent_bits < source_exponent) {
      const uint64_t bias = (uint64_t{1} << (source_exponent - 1)) - 1;
      const uint64_t reduced_bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
      const uint64_t exponent = r & exponent_mask;
      if (exponent > (bias + reduced_bias) << source_mantissa)
        r = (r & sign) | exponent_mask; // overflow: infinity
      else if (exponent <= (bias - reduced_bias) << source_mantissa)
        r = r & sign; // underflow: zero
    }
    if (nan)
      r = mantissa_bits > 0 ? bits : infinity(bits);
    std::memcpy(data + static_cast<size_t>(i) * size, &r, size);
  }
  return out;
}

} // namespace teval::ops::detail
