// Exact numeric primitives shared by every evaluator: two's-complement
// wrapping, rounding to each floating format, float16/bfloat16 encodings and
// checked float-to-integer conversion. Nothing here has undefined behaviour.
#pragma once

#include "core/dtype.h"

#include <cstdint>
#include <optional>

namespace teval::core {

/// One value of one dtype. Integer and bool values live in `i` (sign- or
/// zero-extended, already wrapped to the dtype; a uint64 value as its 64
/// bits, so that values from 2^63 up read as negative int64s: int_value()
/// is the value); floating values live in `f` as a double that the dtype
/// represents exactly; a complex value's real part lives in `f` and its
/// imaginary part in `im`, each exactly a value of the parts' dtype
/// (complex_part).
struct Scalar {
  DType dtype = DType::Int32;
  int64_t i = 0;
  double f = 0;
  double im = 0;

  /// \p v wrapped to \p t (an integer or bool dtype; bool is v != 0).
  static Scalar of_int(DType t, int64_t v);
  /// \p v rounded to \p t (a floating dtype).
  static Scalar of_float(DType t, double v);
  /// \p re + \p im i, each part rounded to \p t's parts (a complex dtype).
  static Scalar of_complex(DType t, double re, double im);
  /// True when the value is nonzero (NaN counts as nonzero).
  bool truthy() const {
    return is_complex(dtype) ? f != 0 || im != 0 : is_float(dtype) ? f != 0 : i != 0;
  }
  /// The value of an integer or bool scalar, uint64 included.
  __int128 int_value() const {
    return dtype == DType::UInt64 ? __int128{static_cast<uint64_t>(i)} : __int128{i};
  }
  /// An integer scalar's value clamped to int64 (uint64 values from 2^63 up
  /// become INT64_MAX), for clamped indices.
  int64_t index_value() const { return dtype == DType::UInt64 && i < 0 ? INT64_MAX : i; }
  /// The value as a double (exact for floats and for |i| < 2^53; a complex
  /// value's real part).
  double as_double() const {
    if (is_float(dtype) || is_complex(dtype))
      return f;
    return dtype == DType::UInt64 ? static_cast<double>(static_cast<uint64_t>(i))
                                  : static_cast<double>(i);
  }
};

/// Same dtype and the same value bits (NaN equals NaN, -0 differs from 0).
bool identical(const Scalar& a, const Scalar& b);

/// \p v reduced modulo 2^bits of \p t into its range (bool: v != 0).
inline int64_t wrap_int(DType t, int64_t v) {
  switch (t) {
  case DType::Bool:
    return v != 0;
  case DType::Int8:
    return static_cast<int8_t>(v);
  case DType::Int16:
    return static_cast<int16_t>(v);
  case DType::Int32:
    return static_cast<int32_t>(v);
  case DType::UInt8:
    return static_cast<uint8_t>(v);
  case DType::UInt16:
    return static_cast<uint16_t>(v);
  case DType::UInt32:
    return static_cast<uint32_t>(v);
  case DType::Int2:
  case DType::Int4: { // sign-extended from the low 2 or 4 bits
    const int64_t w = bit_width(t), m = (int64_t{1} << w) - 1, sign = int64_t{1} << (w - 1);
    return ((v & m) ^ sign) - sign;
  }
  case DType::UInt2:
    return v & 3;
  case DType::UInt4:
    return v & 15;
  default: // int64, uint64; floating dtypes never reach here
    break;
  }
  return v;
}

/// Wrapping integer arithmetic, computed in unsigned 64-bit and wrapped to t.
inline int64_t wrapping_add(DType t, int64_t a, int64_t b) {
  return wrap_int(t, static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)));
}
inline int64_t wrapping_sub(DType t, int64_t a, int64_t b) {
  return wrap_int(t, static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)));
}
inline int64_t wrapping_mul(DType t, int64_t a, int64_t b) {
  return wrap_int(t, static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)));
}

/// \p x rounded to the nearest value of floating dtype \p t, ties to even;
/// beyond the largest finite value (after rounding) it becomes infinity.
/// NaN stays NaN (sign preserved), zeros keep their sign. The minifloats
/// without infinity give NaN there instead, and those without NaN the
/// largest finite value of the sign (infinity too); NaN into one of those
/// becomes +0 (the OCP MX specification leaves it to implementations), and
/// the FNUZ formats have no -0 (it is +0). The scale type f8E8M0FNU rounds
/// to the nearest power of two, ties up (the larger), a zero or a value
/// below its smallest to the smallest, 2^-127, and a negative value,
/// infinity or a value beyond 2^127 to NaN.
double round_float(DType t, double x);

/// A float format narrower than 16 bits (StableHLO's f8E4M3FN ... f4E2M1FN;
/// docs/SEMANTICS.md): exponent and mantissa bits, the bias, and what the
/// encodings beyond the finite values mean.
struct MiniFloat {
  enum class Special : uint8_t {
    Ieee,    // the largest exponent is infinity (mantissa 0) and NaN
    NanOnly, // no infinity; the largest exponent and mantissa are NaN ("FN")
    NegZero, // no infinity, no -0: its encoding 0x80 is the NaN ("FNUZ")
    None,    // neither infinity nor NaN (the MX types "FN" of 6 and 4 bits)
    Scale,   // powers of two only: no sign, no zero, no infinity; all ones is
             // the NaN (the MX scale type f8E8M0FNU)
  };
  int exponent_bits, mantissa_bits, bias;
  Special special;
  double max; // the largest finite value
};
/// \p t's format, or nullptr for the other dtypes.
const MiniFloat* minifloat(DType t);
/// The bits of \p x, a value of minifloat \p t (NaN: its one NaN
/// encoding; the sign of a NaN kept where the format has two).
uint8_t minifloat_bits(DType t, double x);
double minifloat_value(DType t, uint8_t bits);

/// IEEE binary16 bits of \p x, which must already be a float16 value.
uint16_t float16_bits(double x);
double float16_value(uint16_t bits);
/// bfloat16 bits (the top half of a binary32) of a bfloat16 value.
uint16_t bfloat16_bits(double x);
double bfloat16_value(uint16_t bits);

/// \p x truncated toward zero, or nothing when the result is NaN or does not
/// fit integer dtype \p t (a uint64 result as its bits, as Scalar::i).
std::optional<int64_t> float_to_int(DType t, double x);

/// \p v converted to floating dtype \p t with one rounding (ties to even),
/// exact for every int64 and uint64 value (Scalar::int_value), including
/// those beyond 2^53.
double int_to_float(DType t, __int128 v);

/// The lowest finite value of \p t as a Scalar (INT_MIN, -FLT_MAX, ...).
Scalar lowest(DType t);
/// The highest finite value of \p t as a Scalar.
Scalar highest(DType t);
/// \p v (a small integer such as 0 or 1) as a Scalar of \p t.
Scalar constant(DType t, int64_t v);

} // namespace teval::core
