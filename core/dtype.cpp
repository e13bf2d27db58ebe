// Element types and their traits.
#include "core/dtype.h"

#include "core/error.h"
#include "core/numeric.h"

#include <limits>

namespace teval::core {

namespace {

struct Row {
  DType dtype;
  std::string_view name;
  std::string_view descr;
};

constexpr Row kRows[] = {
#define TEVAL_DTYPE(e, n, size, k, descr) {DType::e, n, descr},
#include "core/dtype.def"
};

const Row& row(DType t) {
  return kRows[static_cast<int>(t)];
}

} // namespace

std::string_view name(DType t) {
  return row(t).name;
}

std::optional<DType> dtype_from_name(std::string_view s) {
  for (const Row& r : kRows)
    if (r.name == s)
      return r.dtype;
  return std::nullopt;
}

std::string_view npy_descr(DType t) {
  return row(t).descr;
}

namespace {

// Floats above integers above bool; see promote().
int promotion_rank(DType t) {
  switch (t) {
  case DType::Bool:
    return 0;
  case DType::Int8:
  case DType::UInt8:
  case DType::Int16:
  case DType::UInt16:
  case DType::Int32:
  case DType::UInt32:
  case DType::Int64:
  case DType::UInt64:
  case DType::Int2:
  case DType::Int4:
  case DType::UInt2:
  case DType::UInt4:
    return 1;
  case DType::Float16:
  case DType::BFloat16:
  TEVAL_MINIFLOAT_CASES:
    return 2;
  case DType::Float32:
    return 3;
  case DType::Float64:
    return 4;
  case DType::Complex64:
    return 5;
  case DType::Complex128:
    return 6;
  }
  TEVAL_UNREACHABLE("unknown dtype");
}

DType signed_of_width(int bits) {
  return bits <= 8    ? DType::Int8
         : bits <= 16 ? DType::Int16
         : bits <= 32 ? DType::Int32
                      : DType::Int64;
}

} // namespace

DType promote(DType a, DType b) {
  if (a == b)
    return a;
  if ((a == DType::Float16 && b == DType::BFloat16) ||
      (a == DType::BFloat16 && b == DType::Float16))
    return DType::Float32;
  if ((a == DType::Complex64 && b == DType::Float64) ||
      (a == DType::Float64 && b == DType::Complex64))
    return DType::Complex128; // numpy's: both parts float64
  if (is_integer(a) && is_integer(b)) {
    // Two integers: the narrowest integer type holding every value of
    // both (numpy's rule): the wider of one signedness, else a signed type
    // wider than the unsigned one.
    if (kind(a) == kind(b))
      return bit_width(a) >= bit_width(b) ? a : b;
    DType u = is_unsigned(a) ? a : b;
    DType i = u == a ? b : a;
    if (bit_width(i) > bit_width(u))
      return i;
    // No integer holds every uint64 and every negative value: numpy's
    // float64.
    return u == DType::UInt64 ? DType::Float64 : signed_of_width(2 * bit_width(u));
  }
  return promotion_rank(a) >= promotion_rank(b) ? a : b;
}

int64_t int_min(DType t) {
  switch (t) {
  case DType::Bool:
  case DType::UInt8:
  case DType::UInt16:
  case DType::UInt32:
  case DType::UInt64:
  case DType::UInt2:
  case DType::UInt4:
    return 0;
  case DType::Int2:
    return -2;
  case DType::Int4:
    return -8;
  case DType::Int8:
    return std::numeric_limits<int8_t>::min();
  case DType::Int16:
    return std::numeric_limits<int16_t>::min();
  case DType::Int32:
    return std::numeric_limits<int32_t>::min();
  case DType::Int64:
    return std::numeric_limits<int64_t>::min();
  default: // the floats
    break;
  }
  TEVAL_UNREACHABLE("int_min of a floating dtype");
}

int64_t int_max(DType t) {
  switch (t) {
  case DType::Bool:
    return 1;
  case DType::UInt8:
    return std::numeric_limits<uint8_t>::max();
  case DType::UInt16:
    return std::numeric_limits<uint16_t>::max();
  case DType::UInt32:
    return std::numeric_limits<uint32_t>::max();
  case DType::Int8:
    return std::numeric_limits<int8_t>::max();
  case DType::Int16:
    return std::numeric_limits<int16_t>::max();
  case DType::Int32:
    return std::numeric_limits<int32_t>::max();
  case DType::Int64:
    return std::numeric_limits<int64_t>::max();
  case DType::UInt64:
    break; // 2^64 - 1 is no int64: see int_max_wide
  case DType::Int2:
    return 1;
  case DType::Int4:
    return 7;
  case DType::UInt2:
    return 3;
  case DType::UInt4:
    return 15;
  default: // the floats
    break;
  }
  TEVAL_UNREACHABLE("int_max of a floating dtype or of uint64");
}

double float_max(DType t) {
  switch (t) {
  case DType::Float16:
    return 65504.0;
  case DType::BFloat16:
    return 0x1.fep127;
  case DType::Float32:
    return std::numeric_limits<float>::max();
  case DType::Float64:
    return std::numeric_limits<double>::max();
  TEVAL_MINIFLOAT_CASES:
    return minifloat(t)->max;
  case DType::Bool:
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::UInt8:
  case DType::UInt16:
  case DType::UInt32:
  case DType::UInt64:
  case DType::Int2:
  case DType::Int4:
  case DType::UInt2:
  case DType::UInt4:
  case DType::Complex64:
  case DType::Complex128:
    break;
  }
  TEVAL_UNREACHABLE("float_max of an integer or complex dtype");
}

__int128 int_min_wide(DType t) {
  return int_min(t);
}

__int128 int_max_wide(DType t) {
  if (t == DType::UInt64)
    return std::numeric_limits<uint64_t>::max();
  return int_max(t);
}

std::string dtype_name_list() {
  std::string out;
#define TEVAL_DTYPE(e, spelling, size, kind, descr)                                                \
  out += (out.empty() ? "" : ", ") + std::string(spelling);
#include "core/dtype.def"
  return out;
}

} // namespace teval::core
