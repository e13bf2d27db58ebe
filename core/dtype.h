// Element types and their traits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace teval::core {

/// An element type. The set is closed; see dtype.def for the table.
enum class DType : uint8_t {
#define TEVAL_DTYPE(e, name, size, kind, descr) e,
#include "core/dtype.def"
};

/// The case labels of the floats narrower than 16 bits (dtype.def's
/// minifloat rows), for the switches that name every dtype:
/// `TEVAL_MINIFLOAT_CASES: return ...;`.
#define TEVAL_MINIFLOAT_CASES                                                                      \
  case DType::Float8E4M3FN:                                                                        \
  case DType::Float8E5M2:                                                                          \
  case DType::Float8E4M3:                                                                          \
  case DType::Float8E3M4:                                                                          \
  case DType::Float8E4M3FNUZ:                                                                      \
  case DType::Float8E5M2FNUZ:                                                                      \
  case DType::Float8E4M3B11FNUZ:                                                                   \
  case DType::Float6E2M3FN:                                                                        \
  case DType::Float6E3M2FN:                                                                        \
  case DType::Float4E2M1FN:                                                                        \
  case DType::Float8E8M0FNU

/// The case labels of the complex dtypes.
#define TEVAL_COMPLEX_CASES                                                                        \
  case DType::Complex64:                                                                           \
  case DType::Complex128

/// How a dtype's bits are interpreted.
enum class DTypeKind : uint8_t { Bool, Signed, Unsigned, Float, Complex };

/// Every dtype, in table order.
inline constexpr DType kAllDTypes[] = {
#define TEVAL_DTYPE(e, name, size, kind, descr) DType::e,
#include "core/dtype.def"
};

namespace detail {
inline constexpr int kSizes[] = {
#define TEVAL_DTYPE(e, name, size, kind, descr) size,
#include "core/dtype.def"
};
inline constexpr DTypeKind kKinds[] = {
#define TEVAL_DTYPE(e, name, size, kind, descr) DTypeKind::kind,
#include "core/dtype.def"
};
} // namespace detail

/// The spelling users write: "float32", "int8", "bool", ...
std::string_view name(DType t);
/// name(t) as a std::string, for messages.
inline std::string to_string(DType t) {
  return std::string(name(t));
}
/// The dtype spelled \p s, or nothing.
std::optional<DType> dtype_from_name(std::string_view s);
/// The names of every dtype, joined by ", " (for messages).
std::string dtype_name_list();
/// Size of one element in bytes.
inline int size_bytes(DType t) {
  return detail::kSizes[static_cast<int>(t)];
}
/// The kind of \p t.
inline DTypeKind kind(DType t) {
  return detail::kKinds[static_cast<int>(t)];
}
/// The numpy type string written into .npy headers ("<f4", "|i1", ...).
/// bfloat16 has no numpy type and is written as the 2-byte void "<V2".
std::string_view npy_descr(DType t);

inline bool is_float(DType t) {
  return kind(t) == DTypeKind::Float;
}
/// complex64 or complex128 (not a float here).
inline bool is_complex(DType t) {
  return kind(t) == DTypeKind::Complex;
}
/// The dtype of a complex dtype's parts: float32 for complex64, float64
/// for complex128.
inline DType complex_part(DType t) {
  return t == DType::Complex64 ? DType::Float32 : DType::Float64;
}
inline bool is_bool(DType t) {
  return kind(t) == DTypeKind::Bool;
}
/// Signed or unsigned integer (bool is not an integer here).
inline bool is_integer(DType t) {
  return kind(t) == DTypeKind::Signed || kind(t) == DTypeKind::Unsigned;
}
/// An unsigned integer (uint8, uint16, uint32, uint64; not bool).
inline bool is_unsigned(DType t) {
  return kind(t) == DTypeKind::Unsigned;
}
/// Whether kernels (einstein_v2 and Tile programs, the Kernel IR every
/// engine runs) have dtype \p t: the rows of dtype.def up to uint32. The
/// rows after them (uint64, the integers narrower than a byte, the floats
/// narrower than 16 bits, the complex numbers) only the native references
/// of MLIR functions' ops take (docs/SEMANTICS.md, "Values and dtypes").
inline bool kernel_dtype(DType t) {
  return static_cast<int>(t) <= static_cast<int>(DType::UInt32);
}
/// What a message adds after naming \p t, a dtype kernels do not have.
inline std::string not_kernel_note(DType t) {
  const std::string n = to_string(t);
  return " (" + n + " is an element type of MLIR functions only: einstein_v2 and Tile programs " +
         "have no " + n + ")";
}
/// Width in bits of a dtype (4 for int4 and float4_e2m1fn, 8 for bool).
inline int bit_width(DType t) {
  switch (t) {
  case DType::Int2:
  case DType::UInt2:
    return 2;
  case DType::Int4:
  case DType::UInt4:
  case DType::Float4E2M1FN:
    return 4;
  case DType::Float6E2M3FN:
  case DType::Float6E3M2FN:
    return 6;
  default:
    return size_bytes(t) * 8;
  }
}
/// The dtype whose .npy files and numpy arrays hold \p t's values: int8
/// for int2 and int4, uint8 for uint2 and uint4, float32 for the floats
/// narrower than 16 bits, else \p t itself.
inline DType carrier(DType t) {
  switch (t) {
  TEVAL_MINIFLOAT_CASES:
    return DType::Float32;
  case DType::Int2:
  case DType::Int4:
    return DType::Int8;
  case DType::UInt2:
  case DType::UInt4:
    return DType::UInt8;
  default:
    return t;
  }
}

/// The dtype two operands of an arithmetic operation convert to: the higher
/// of float64 > float32 > float16, bfloat16 > integers > bool, where
/// float16 with bfloat16 gives float32 and two integers give the narrowest
/// integer dtype holding every value of both (numpy's rule: the wider of one
/// signedness; int8 with uint8 gives int16, int32 with uint32 int64, and
/// uint64 with a signed integer float64).
DType promote(DType a, DType b);

/// Smallest and largest value of an integer or bool dtype. int_max has no
/// answer for uint64 (2^64 - 1 is no int64): int_max_wide has.
int64_t int_min(DType t);
int64_t int_max(DType t);
/// The same bounds for every integer and bool dtype, uint64 included.
__int128 int_min_wide(DType t);
__int128 int_max_wide(DType t);
/// Largest finite value of a floating dtype (65504 for float16).
double float_max(DType t);

} // namespace teval::core
