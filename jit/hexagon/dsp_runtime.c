/* The runtime of kernels on the Hexagon DSP, run under qemu-hexagon: a
 * freestanding program (no C library exists for it in Debian) that reads
 * the kernel's buffers from standard input, calls a kernel, and writes the
 * outcome and the buffers to standard output. System calls are the Linux
 * generic ones, through trap0(#1). Two ways to run, told by the first word:
 *
 * One kernel:  "TVIN" and a run's buffers (below), for teval_kernel, the
 *              kernel this program was linked with; then the program ends.
 * A session:   "TVSS"; the runtime answers "TVSV", u32 address, u32 size of
 *              its kernel region (teval_kernel_region: readable, writable
 *              and executable), then serves requests until its input ends:
 *              "TVLD", u32 address, u32 size, bytes: copies a kernel's image
 *                      (linked for that address) into the region;
 *              "TVRN", u32 entry, then a run's buffers: runs the kernel
 *                      whose teval_kernel is at entry.
 *
 * A run's buffers: u32 buffer count n, n x u64 sizes, every buffer's bytes.
 * TEVAL_FAULT (0 normally) plants a fault for the fault-injection self-test.
 *
 * A run's outcome: "TVOK" or "TVER" (i32 site, u32 value count c, c x i64
 * values), then every buffer's bytes; or, when the kernel raises a signal,
 * "TVSG" and the i32 signal number, and the program ends. Exit status 0;
 * 3 for a malformed input, 4 when the buffers do not fit the arena. */
#ifndef TEVAL_FAULT
#define TEVAL_FAULT 0
#endif

#include "core/tmath/dd.h" /* teval's math library; bits_of, from_bits, pow2 */

typedef unsigned char u8;
typedef unsigned int u32;
typedef int i32;
typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int size_t;

enum { SYS_READ = 63, SYS_WRITE = 64, SYS_EXIT = 93, SYS_RT_SIGACTION = 134 };
enum { MAX_BUFFERS = 4096, MAX_VALUES = 64 };

static long syscall4(long n, long a, long b, long c, long d) {
  register long r0 __asm__("r0") = a;
  register long r1 __asm__("r1") = b;
  register long r2 __asm__("r2") = c;
  register long r3 __asm__("r3") = d;
  register long r6 __asm__("r6") = n;
  __asm__ volatile("trap0(#1)" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r3), "r"(r6) : "memory");
  return r0;
}

static long syscall3(long n, long a, long b, long c) {
  return syscall4(n, a, b, c, 0);
}

static void leave(int status) {
  syscall3(SYS_EXIT, status, 0, 0);
  for (;;) {
  }
}

static void read_all(void* to, u64 n) {
  u8* p = (u8*)to;
  while (n) {
    long got = syscall3(SYS_READ, 0, (long)p, n > (1u << 30) ? (1u << 30) : (long)n);
    if (got <= 0)
      leave(3);
    p += got;
    n -= (u64)got;
  }
}

static void write_all(const void* from, u64 n) {
  const u8* p = (const u8*)from;
  while (n) {
    long put = syscall3(SYS_WRITE, 1, (long)p, n > (1u << 30) ? (1u << 30) : (long)n);
    if (put <= 0)
      leave(5);
    p += put;
    n -= (u64)put;
  }
}

/* memset and memcpy by 8-byte words where the alignment allows:
 * zero-filling a kernel's buffers byte by byte cost more packets than the
 * kernels' own work. */
typedef u64 __attribute__((may_alias)) word;

void* memset(void* to, int c, size_t n) {
  u8* p = (u8*)to;
  for (; n && ((size_t)p & 7); --n)
    *p++ = (u8)c;
  word fill = (u64)(u8)c * 0x0101010101010101ull;
  word* w = (word*)p;
  for (; n >= 8; n -= 8)
    *w++ = fill;
  p = (u8*)w;
  while (n--)
    *p++ = (u8)c;
  return to;
}

void* memcpy(void* to, const void* from, size_t n) {
  u8* d = (u8*)to;
  const u8* s = (const u8*)from;
  if ((((size_t)d ^ (size_t)s) & 7) == 0) {
    for (; n && ((size_t)d & 7); --n)
      *d++ = *s++;
    word* wd = (word*)d;
    const word* ws = (const word*)s;
    for (; n >= 8; n -= 8)
      *wd++ = *ws++;
    d = (u8*)wd;
    s = (const u8*)ws;
  }
  while (n--)
    *d++ = *s++;
  return to;
}

/* What LLVM's Hexagon back end calls for copies it knows are aligned and
 * long. */
void* __hexagon_memcpy_likely_aligned_min32bytes_mult8bytes(void* to, const void* from, size_t n) {
  return memcpy(to, from, n);
}

void* memmove(void* to, const void* from, size_t n) {
  u8* d = (u8*)to;
  const u8* s = (const u8*)from;
  if (d < s)
    while (n--)
      *d++ = *s++;
  else
    while (n--)
      d[n] = s[n];
  return to;
}

/* Integer division, which Hexagon leaves to library calls (compiler-rt's
 * names and ABI; Debian ships no Hexagon compiler-rt). Generated code checks
 * for a zero divisor and for INT_MIN / -1 before it divides. Shift and
 * subtract, so that the compiler makes no call back into these. */
static u64 udiv64(u64 n, u64 d, u64* remainder) {
  u64 q = 0, r = 0;
  if (d == 0) {
    *remainder = 0;
    return 0;
  }
  for (int i = 63; i >= 0; --i) {
    r = (r << 1) | ((n >> i) & 1);
    if (r >= d) {
      r -= d;
      q |= (u64)1 << i;
    }
  }
  *remainder = r;
  return q;
}

static u64 magnitude(i64 v) {
  return v < 0 ? (u64)0 - (u64)v : (u64)v;
}

u64 __hexagon_udivdi3(u64 a, u64 b) {
  u64 r;
  return udiv64(a, b, &r);
}
u64 __hexagon_umoddi3(u64 a, u64 b) {
  u64 r;
  udiv64(a, b, &r);
  return r;
}
i64 __hexagon_divdi3(i64 a, i64 b) {
  u64 r, q = udiv64(magnitude(a), magnitude(b), &r);
#if TEVAL_FAULT == 41 /* fault: rounds toward minus infinity */
  if ((a < 0) != (b < 0) && r != 0)
    q += 1;
#endif
  return (a < 0) != (b < 0) ? (i64)((u64)0 - q) : (i64)q;
}
i64 __hexagon_moddi3(i64 a, i64 b) {
  u64 r;
  udiv64(magnitude(a), magnitude(b), &r);
  return a < 0 ? (i64)((u64)0 - r) : (i64)r;
}
u32 __hexagon_udivsi3(u32 a, u32 b) {
  return (u32)__hexagon_udivdi3(a, b);
}
u32 __hexagon_umodsi3(u32 a, u32 b) {
  return (u32)__hexagon_umoddi3(a, b);
}
i32 __hexagon_divsi3(i32 a, i32 b) {
  return (i32)__hexagon_divdi3(a, b);
}
i32 __hexagon_modsi3(i32 a, i32 b) {
  return (i32)__hexagon_moddi3(a, b);
}

/* trunc, floor and ceil of float and double, exactly, by clearing the
 * fraction bits (NaN and infinities pass through; -0.5 truncates to -0). */
double trunc(double x) {
  u64 bits;
  memcpy(&bits, &x, 8);
  int e = (int)((bits >> 52) & 0x7ff) - 1023;
  if (e >= 52)
    return x;
  bits &= e < 0 ? (u64)1 << 63 : ~(((u64)1 << (52 - e)) - 1);
  memcpy(&x, &bits, 8);
  return x;
}
float truncf(float x) {
  u32 bits;
  memcpy(&bits, &x, 4);
  int e = (int)((bits >> 23) & 0xff) - 127;
  if (e >= 23)
    return x;
  bits &= e < 0 ? (u32)1 << 31 : ~(((u32)1 << (23 - e)) - 1);
  memcpy(&x, &bits, 4);
  return x;
}
double floor(double x) {
  double t = trunc(x);
#if TEVAL_FAULT == 42 /* fault: floor of a negative non-integer truncates */
  return t;
#endif
  return t > x ? t - 1.0 : t;
}
float floorf(float x) {
  float t = truncf(x);
#if TEVAL_FAULT == 42
  return t;
#endif
  return t > x ? t - 1.0f : t;
}
double ceil(double x) {
  double t = trunc(x);
  return t < x ? t + 1.0 : t;
}
float ceilf(float x) {
  float t = truncf(x);
  return t < x ? t + 1.0f : t;
}

/* --- float16 and bfloat16: the interpreter's rounding (core/numeric.cpp) - */

/* x rounded once, to nearest with ties to even, to a binary format of
 * `digits` significant bits, smallest normal exponent `emin` and largest
 * finite value `max`; beyond `max` it is infinite. */
static double round_format(double x, int digits, int emin, double max) {
  if (x != x || x == 0 || x - x != 0) /* NaN, zeros, infinities */
    return x;
  u64 b = bits_of(x);
  double ax = from_bits(b & ~((u64)1 << 63));
  int e = (int)((b >> 52) & 0x7ff) - 1023;
  if (e < emin)
    e = emin;
  int q = e - (digits - 1);  /* the format's quantum at ax is 2^q */
  double y = ax * pow2(-q);  /* exact, below 2^digits */
  y = (y + 0x1p52) - 0x1p52; /* to the nearest integer, ties to even */
  double r = y * pow2(q);
  if (r > max)
    r = 1.0 / 0.0;
  return b >> 63 ? -r : r;
}
static double round_f16(double x) {
  return round_format(x, 11, -14, 65504.0);
}
static double round_bf16(double x) {
  return round_format(x, 8, -126, 0x1.fep127);
}

/* v as a double rounded to odd at 53 bits: rounding it again to 24 bits or
 * fewer gives v rounded once. */
static double int_to_odd_double(i64 v) {
  u64 u = v < 0 ? 0 - (u64)v : (u64)v;
  int s = 0;
  while ((u >> s) >= ((u64)1 << 53))
    ++s;
  u64 kept = u >> s;
  if (s && (u & (((u64)1 << s) - 1)))
    kept |= 1;
  double d = (double)kept * pow2(s);
  return v < 0 ? -d : d;
}

float teval_rt_round_f16(double x) {
  return (float)round_f16(x);
}
float teval_rt_round_bf16(double x) {
  return (float)round_bf16(x);
}
float teval_rt_i64_to_f16(i64 v) {
  return (float)round_f16(int_to_odd_double(v));
}
float teval_rt_i64_to_bf16(i64 v) {
  return (float)round_bf16(int_to_odd_double(v));
}

/* A float16 encoding (the low 16 bits of h) as a float, exactly. */
float teval_rt_f16_to_float(u32 h) {
  float sign = h & 0x8000 ? -1.0f : 1.0f;
  int exponent = (int)((h >> 10) & 0x1f);
  u32 mantissa = h & 0x3ff;
  if (exponent == 0x1f)
    return mantissa ? sign * (0.0f / 0.0f) : sign * (1.0f / 0.0f);
  if (exponent == 0)
    return sign * (float)mantissa * 0x1p-24f;
  return sign * (float)(mantissa + 1024) * (float)pow2(exponent - 25);
}

/* The float16 encoding of x, a float16 value held in a float. */
u32 teval_rt_float_to_f16(float x) {
  double d = x;
  u64 b = bits_of(d);
  u32 sign = (u32)(b >> 63) << 15;
  double a = from_bits(b & ~((u64)1 << 63));
  if (d != d)
    return sign | 0x7e00;
  if (a - a != 0)
    return sign | 0x7c00;
  if (a < 0x1p-14) /* subnormal or zero: a multiple of 2^-24 */
    return sign | (u32)(a * 0x1p24);
  int e = (int)((b >> 52) & 0x7ff) - 1023;
  return sign | (u32)((e + 15) << 10) | (u32)(a * pow2(10 - e) - 1024);
}

/* What LLVM calls for llvm.sqrt on Hexagon (for float32, __hexagon_sqrtf):
 * teval's correctly rounded square root (core/tmath/), as the host's
 * instruction. */
double sqrt(double x) {
  return teval_sqrt(x);
}
float sqrtf(float x) {
  return teval_sqrtf(x);
}
float __hexagon_sqrtf(float x) {
  return teval_sqrtf(x);
}

/* float64 division, correctly rounded (to nearest, ties to even), which
 * Hexagon leaves to a soft-float routine: the significands are divided bit
 * by bit into 55 bits plus a sticky bit, then rounded once, subnormal
 * results included. */
double __hexagon_divdf3(double a, double b) {
  const u64 sign_bit = (u64)1 << 63, frac = ((u64)1 << 52) - 1, quiet = (u64)1 << 51;
  u64 ua, ub;
  memcpy(&ua, &a, 8);
  memcpy(&ub, &b, 8);
  u64 sign = (ua ^ ub) & sign_bit, out;
  int ea = (int)((ua >> 52) & 0x7ff), eb = (int)((ub >> 52) & 0x7ff);
  u64 ma = ua & frac, mb = ub & frac;
  if (ea == 0x7ff && ma) {
    out = ua | quiet;
  } else if (eb == 0x7ff && mb) {
    out = ub | quiet;
  } else if (ea == 0x7ff) {
    out = eb == 0x7ff ? ((u64)0x7ff << 52) | quiet : sign | ((u64)0x7ff << 52);
  } else if (eb == 0x7ff) {
    out = sign;
  } else if (eb == 0 && mb == 0) {
    out = ea == 0 && ma == 0 ? ((u64)0x7ff << 52) | quiet : sign | ((u64)0x7ff << 52);
  } else if (ea == 0 && ma == 0) {
    out = sign;
  } else {
    /* Significands in [2^52, 2^53), subnormals normalised. */
    if (ea == 0)
      for (ea = 1; !(ma >> 52); --ea)
        ma <<= 1;
    else
      ma |= (u64)1 << 52;
    if (eb == 0)
      for (eb = 1; !(mb >> 52); --eb)
        mb <<= 1;
    else
      mb |= (u64)1 << 52;
    int e = ea - eb + 1023;
    if (ma < mb) {
      ma <<= 1;
      --e;
    }
    u64 q = 0, r = ma;
    for (int i = 0; i < 55; ++i) {
      q <<= 1;
      if (r >= mb) {
        r -= mb;
        q |= 1;
      }
      r <<= 1;
    }
    u64 sticky = r != 0;
    if (e <= 0) { /* subnormal: shift the extra bits into the sticky bit */
      int shift = 1 - e;
      if (shift >= 64) {
        sticky |= q != 0;
        q = 0;
      } else {
        sticky |= (q & (((u64)1 << shift) - 1)) != 0;
        q >>= shift;
      }
      e = 1; /* the exponent field becomes 0 below */
    }
    u64 mant = q >> 2, round = (q >> 1) & 1;
    sticky |= q & 1;
    if (round && (sticky || (mant & 1)))
      ++mant;
    if (e >= 0x7ff)
      out = sign | ((u64)0x7ff << 52);
    else {
      /* mant includes the implicit bit (2^52) when normal; adding it to the
       * field below carries into the exponent. */
      out = ((u64)(e - 1) << 52) + mant;
      if (out >= (u64)0x7ff << 52)
        out = (u64)0x7ff << 52;
      out |= sign;
    }
  }
  double d;
  memcpy(&d, &out, 8);
  return d;
}

/* The error channel: the site and its values, as the host's RunContext. */
static i32 failed_site = -1;
static u32 failed_count;
static i64 failed_values[MAX_VALUES];

void teval_rt_fail(void* ctx, i32 site, const i64* values, i32 count) {
  (void)ctx;
  failed_site = site;
  failed_count = count < 0 ? 0 : count > MAX_VALUES ? MAX_VALUES : (u32)count;
  for (u32 i = 0; i < failed_count; ++i)
    failed_values[i] = values[i];
}

typedef i32 kernel_fn(void** buffers, void* ctx);
/* Defined when the program is one kernel's; absent (null) in a session. */
__attribute__((weak)) i32 teval_kernel(void** buffers, void* ctx);

/* Where a session's kernels are loaded: a region of zero pages, writable
 * and executable (its own segment; qemu maps it only as it is touched). */
enum { REGION_SIZE = 64u << 20 };
__asm__(".section .teval_kernel_region,\"awx\",@nobits\n"
        ".p2align 12\n"
        ".globl teval_kernel_region\n"
        "teval_kernel_region:\n"
        ".zero 0x4000000\n"
        ".size teval_kernel_region, 0x4000000\n"
        ".previous");
extern u8 teval_kernel_region[REGION_SIZE];

/* A signal raised by a kernel (a bad address, an illegal instruction) ends
 * the program with a word that says which, so that the host can name it
 * even when it cannot wait for the simulator. */
static void on_signal(int signal) {
  write_all("TVSG", 4);
  write_all(&signal, 4);
  leave(0);
}

static void catch_signals(void) {
  /* The kernel's struct sigaction: handler, flags, then (with or without a
   * restorer word between) an empty mask: all zero but the handler. */
  u32 action[8] = {(u32)on_signal};
  static const int signals[] = {4 /* SIGILL */, 5 /* SIGTRAP */, 7 /* SIGBUS */, 8 /* SIGFPE */,
                                11 /* SIGSEGV */};
  for (u32 i = 0; i < sizeof signals / sizeof signals[0]; ++i)
    syscall4(SYS_RT_SIGACTION, signals[i], (long)action, 0, 8);
}

/* The buffers live in one arena of 256 MiB of zero-initialised memory,
 * which qemu maps only as it is touched; each starts on a 128-byte line, as
 * HVX vector loads like it. */
static u8 arena[256u << 20] __attribute__((aligned(128)));
static u64 sizes[MAX_BUFFERS];
static void* buffers[MAX_BUFFERS];

/* Reads a run's buffers, runs \p kernel on them, writes the outcome. */
static void serve_run(kernel_fn* kernel) {
  u32 n = 0;
  read_all(&n, 4);
  if (n > MAX_BUFFERS)
    leave(3);
  read_all(sizes, (u64)n * 8);
  u64 used = 0;
  for (u32 i = 0; i < n; ++i) {
    if (sizes[i] > sizeof arena - used)
      leave(4);
    buffers[i] = arena + used;
#if TEVAL_FAULT == 37 /* fault: buffers laid out with half their size */
    used += (sizes[i] / 2 + 127) / 128 * 128;
#else
    used += (sizes[i] + 127) / 128 * 128;
#endif
  }
  for (u32 i = 0; i < n; ++i)
    read_all(buffers[i], sizes[i]);
  failed_site = -1;
  failed_count = 0;
  i32 status = kernel(buffers, 0);
#if TEVAL_FAULT == 40 /* fault: the kernel's error is dropped */
  status = 0;
#endif
  if (status == 0) {
    write_all("TVOK", 4);
  } else {
    write_all("TVER", 4);
    write_all(&failed_site, 4);
    write_all(&failed_count, 4);
    write_all(failed_values, (u64)failed_count * 8);
  }
  for (u32 i = 0; i < n; ++i)
    write_all(buffers[i], sizes[i]);
}

static int is(const char* magic, const char* word) {
  return magic[0] == word[0] && magic[1] == word[1] && magic[2] == word[2] && magic[3] == word[3];
}

static void serve_session(void) {
  u32 hello[2] = {(u32)teval_kernel_region, REGION_SIZE};
  write_all("TVSV", 4);
  write_all(hello, 8);
  for (;;) {
    char magic[4];
    u32 words[2];
    if (syscall3(SYS_READ, 0, (long)magic, 1) != 1) /* the host is done */
      leave(0);
    read_all(magic + 1, 3);
    if (is(magic, "TVLD")) {
      read_all(words, 8);
      u32 from = words[0] - (u32)teval_kernel_region;
      if (words[0] < (u32)teval_kernel_region || from > REGION_SIZE ||
          words[1] > REGION_SIZE - from)
        leave(3);
      read_all(teval_kernel_region + from, words[1]);
    } else if (is(magic, "TVRN")) {
      read_all(words, 4);
      u32 from = words[0] - (u32)teval_kernel_region;
      if (words[0] < (u32)teval_kernel_region || from >= REGION_SIZE)
        leave(3);
      serve_run((kernel_fn*)words[0]);
    } else {
      leave(3);
    }
  }
}

void _start(void) {
  char magic[4];
  read_all(magic, 4);
  catch_signals();
  if (is(magic, "TVIN") && teval_kernel)
    serve_run(teval_kernel);
  else if (is(magic, "TVSS"))
    serve_session();
  else
    leave(3);
  leave(0);
}
