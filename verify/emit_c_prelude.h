// The C every program `teval emit --to c` writes starts with: value
// rounding, checked integer arithmetic and .npy files (see emit_c.h).
#pragma once

namespace teval::verify::detail {

inline constexpr const char* kCPrelude = R"C(#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#pragma STDC FP_CONTRACT OFF

static void fail(const char* what) {
  fprintf(stderr, "error: %s\n", what);
  exit(1);
}

/* x (a double, or an integer given as mantissa * 2^exp) rounded once to a
   binary format of p significand bits and exponents emin..emax, to
   nearest, ties to even; past the largest finite value, infinity. */
static double round_parts(int neg, uint64_t mant, int exp, int p, int emin, int emax) {
  if (mant == 0)
    return neg ? -0.0 : 0.0;
  int bits = 64 - __builtin_clzll(mant);
  int lead = exp + bits - 1;
  int q = (lead > emin ? lead : emin) - (p - 1);
  int shift = q - exp;
  uint64_t n;
  if (shift <= 0) {
    n = mant; /* exact: the value has at most p bits here */
    q = exp;
  } else if (shift >= 64) {
    n = 0;
    if (shift == 64 && mant > (1ull << 63))
      n = 1;
  } else {
    n = mant >> shift;
    uint64_t rest = mant & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rest > half || (rest == half && (n & 1)))
      ++n;
  }
  if (n && q + (64 - __builtin_clzll(n)) - 1 > emax)
    return neg ? -INFINITY : INFINITY;
  double r = ldexp((double)n, q);
  return neg ? -r : r;
}
static double round_double(double x, int p, int emin, int emax) {
  if (x == 0 || isnan(x) || isinf(x))
    return x;
  int e;
  double m = frexp(fabs(x), &e);
  return round_parts(signbit(x) != 0, (uint64_t)ldexp(m, 53), e - 53, p, emin, emax);
}
static float r_f16(double x) { return (float)round_double(x, 11, -14, 15); }
static float r_bf16(double x) { return (float)round_double(x, 8, -126, 127); }
static float r_f32(double x) { return (float)x; }
static double r_f64(double x) { return x; }
static double int_to_float(int64_t i, int p, int emin, int emax) {
  uint64_t mag = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
  return round_parts(i < 0, mag, 0, p, emin, emax);
}

static int64_t wrap_bits(int64_t v, int bits, int is_signed) {
  if (bits == 64)
    return v;
  uint64_t m = (uint64_t)v & ((1ull << bits) - 1);
  if (is_signed && (m >> (bits - 1)))
    m |= ~((1ull << bits) - 1);
  return (int64_t)m;
}
static int fits(__int128 v, int bits, int is_signed) {
  __int128 lo = is_signed ? -((__int128)1 << (bits - 1)) : 0;
  __int128 hi = is_signed ? ((__int128)1 << (bits - 1)) - 1 : ((__int128)1 << bits) - 1;
  return v >= lo && v <= hi;
}
/* Integer arithmetic: exact in 128 bits, then wrapped (or, in index
   arithmetic, an error when it does not fit). */
static int64_t int_result(__int128 v, int bits, int is_signed, int trap) {
  if (trap && !fits(v, bits, is_signed))
    fail("integer overflow in index arithmetic");
  return wrap_bits((int64_t)(uint64_t)(unsigned __int128)v, bits, is_signed);
}
static int64_t int_div(int64_t a, int64_t b, int bits, int is_signed, int trap) {
  if (b == 0)
    fail("integer division by zero");
  return int_result((__int128)a / b, bits, is_signed, trap);
}
static int inexact;
static int64_t int_exactdiv(int64_t a, int64_t b, int bits, int is_signed, int trap) {
  if (b == 0)
    fail("division by zero in an index expression");
  if ((__int128)a % b != 0) {
    inexact = 1;
    return 0;
  }
  return int_result((__int128)a / b, bits, is_signed, trap);
}
static int64_t int_mod(int64_t a, int64_t b) {
  if (b == 0)
    fail("integer modulo by zero");
  __int128 m = (__int128)a % b;
  if (m != 0 && ((m < 0) != (b < 0)))
    m += b;
  return (int64_t)m;
}
static int64_t int_shift(int64_t a, int64_t b, int left, int bits, int is_signed) {
  if (b < 0 || b >= bits)
    fail("shift amount out of range");
  if (left)
    return wrap_bits((int64_t)((uint64_t)a << b), bits, is_signed);
  return a >> b; /* arithmetic for signed values (GCC and Clang) */
}
static int64_t float_to_int(double x, int bits, int is_signed) {
  if (isnan(x) || isinf(x))
    fail("a float that is NaN or infinite converted to an integer");
  double t = trunc(x);
  double lo = is_signed ? -ldexp(1, bits - 1) : 0, hi = ldexp(1, is_signed ? bits - 1 : bits);
  if (!(t >= lo && t < hi))
    fail("a float converted to an integer that does not fit");
  return (int64_t)t;
}
static double fmax_nan(double a, double b) {
  if (isnan(a) || isnan(b))
    return NAN;
  if (a == b)
    return signbit(a) ? b : a;
  return a > b ? a : b;
}
static double fmin_nan(double a, double b) {
  if (isnan(a) || isnan(b))
    return NAN;
  if (a == b)
    return signbit(a) ? a : b;
  return a < b ? a : b;
}
static double floor_mod(double a, double b) {
  double r = fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}
static int same_float(double a, double b) {
  if (isnan(a) || isnan(b))
    return isnan(a) && isnan(b);
  return a == b && signbit(a) == signbit(b);
}

/* .npy files (version 1.0, C order, little-endian). */
static void* read_npy(const char* dir, const char* name, const char* descr, int rank,
                      const int64_t* shape, size_t size) {
  char path[4096], header[8192], want[256];
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  FILE* f = fopen(path, "rb");
  if (!f)
    fail("an input file cannot be read");
  unsigned char magic[10];
  if (fread(magic, 1, 10, f) != 10 || memcmp(magic, "\x93NUMPY", 6) != 0 || magic[6] != 1)
    fail("an input is not a version 1 .npy file");
  size_t len = magic[8] | (magic[9] << 8);
  if (len >= sizeof header || fread(header, 1, len, f) != len)
    fail("an input's .npy header is malformed");
  header[len] = 0;
  snprintf(want, sizeof want, "'descr': '%s'", descr);
  if (!strstr(header, want) || !strstr(header, "'fortran_order': False"))
    fail("an input has another dtype, or Fortran order");
  const char* s = strstr(header, "'shape': (");
  if (!s)
    fail("an input's .npy header has no shape");
  s += 10;
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    char* end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v != shape[d])
      fail("an input has another shape");
    count *= v;
    s = end;
    while (*s == ',' || *s == ' ')
      ++s;
  }
  if (*s != ')')
    fail("an input has another rank");
  void* data = malloc(count * size + 1);
  if (fread(data, size, count, f) != (size_t)count)
    fail("an input's data is truncated");
  fclose(f);
  return data;
}
static void write_npy(const char* dir, const char* name, const char* descr, int rank,
                      const int64_t* shape, const void* data, size_t size) {
  char path[4096], dict[1024], dims[512] = "";
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    char one[32];
    snprintf(one, sizeof one, rank == 1 ? "%lld," : (d ? " %lld" : "%lld"), (long long)shape[d]);
    if (rank > 1 && d > 0)
      strcat(dims, ",");
    strcat(dims, one);
    count *= shape[d];
  }
  int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                   descr, dims);
  int total = 10 + n + 1, pad = (64 - total % 64) % 64;
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  mkdir(dir, 0777); /* made if missing */
  FILE* f = fopen(path, "wb");
  if (!f)
    fail("an output file cannot be written");
  unsigned char magic[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)((n + pad + 1) & 0xff),
                             (unsigned char)((n + pad + 1) >> 8)};
  fwrite(magic, 1, 10, f);
  fwrite(dict, 1, n, f);
  for (int i = 0; i < pad; ++i)
    fputc(' ', f);
  fputc('\n', f);
  fwrite(data, size, count, f);
  if (fclose(f) != 0)
    fail("an output file cannot be written");
}
static float f16_value(uint16_t b) {
  int e = (b >> 10) & 31, m = b & 1023;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return (float)((b >> 15) ? -v : v);
}
static uint16_t f16_bits(float x) {
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  double a = fabs((double)x);
  if (isnan(x))
    return 0x7e00 | sign;
  if (isinf(a))
    return 0x7c00 | sign;
  if (a < ldexp(1, -14))
    return sign | (uint16_t)ldexp(a, 24);
  int e;
  double m = frexp(a, &e); /* a = m 2^e, m in [0.5, 1) */
  return sign | (uint16_t)((e + 14) << 10) | (uint16_t)(ldexp(m, 11) - 1024);
}
static float bf16_value(uint16_t b) {
  uint32_t w = (uint32_t)b << 16;
  float f;
  memcpy(&f, &w, 4);
  return f;
}
static uint16_t bf16_bits(float x) {
  uint32_t w;
  memcpy(&w, &x, 4);
  return (uint16_t)(w >> 16);
}
)C";

} // namespace teval::verify::detail
