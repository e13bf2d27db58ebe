// teval's math library (core/tmath/) against references computed without
// it: mpmath at 80 digits, rounded once (tests/data/tmath/make_references.py),
// and the special values of IEEE 754 and C's Annex F by hand.
#include "core/npy.h"
#include "core/tmath.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace teval {
namespace {

struct Function {
  const char* name;
  double (*f64)(double);
  float (*f32)(float);
};

const Function kFunctions[] = {
#define TEVAL_TMATH_ENTRY(name) {#name, teval_##name, teval_##name##f},
    TEVAL_TMATH_UNARY(TEVAL_TMATH_ENTRY)
#undef TEVAL_TMATH_ENTRY
};

// The rows of tests/data/tmath/NAME.npy, `columns` doubles each.
std::vector<std::vector<double>> rows(const std::string& name, size_t columns) {
  core::Tensor t =
      core::read_npy((test::source_dir() / "tests/data/tmath" / (name + ".npy")).string());
  EXPECT_EQ(t.dtype(), core::DType::Float64);
  EXPECT_EQ(t.shape().size(), 2u);
  EXPECT_EQ(t.shape()[1], static_cast<int64_t>(columns));
  std::vector<double> flat(t.bytes().size() / sizeof(double));
  std::memcpy(flat.data(), t.bytes().data(), t.bytes().size());
  std::vector<std::vector<double>> out;
  for (size_t i = 0; i + columns <= flat.size(); i += columns)
    out.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(i),
                     flat.begin() + static_cast<std::ptrdiff_t>(i + columns));
  return out;
}

// How many representable values lie between a and b (0 when both are NaN,
// huge when only one is).
template <class F> int64_t ulp_distance(F a, F b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<int64_t>::max();
  using Bits = std::conditional_t<sizeof(F) == 8, int64_t, int32_t>;
  auto ordered = [](F x) {
    Bits i = std::bit_cast<Bits>(x);
    return static_cast<int64_t>(i < 0 ? std::numeric_limits<Bits>::min() - i : i);
  };
  int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

// Every float64 function is within one ulp of the true value, and rounds it
// correctly at nearly every point; the float32 functions (the float64 one,
// rounded) are within one float32 ulp, nearly always exact.
TEST(Tmath, FunctionsAreWithinOneUlpOfMpmath) {
  for (const Function& f : kFunctions) {
    size_t exact = 0, exact32 = 0, checked32 = 0;
    std::vector<std::vector<double>> data = rows(f.name, 4);
    ASSERT_GE(data.size(), 500u) << f.name;
    for (const std::vector<double>& r : data) {
      double got = f.f64(r[0]);
      EXPECT_LE(ulp_distance(got, r[1]), 1)
          << f.name << "(" << std::hexfloat << r[0] << ") = " << got << ", not " << r[1];
      exact += got == r[1] || (std::isnan(got) && std::isnan(r[1]));
      if (std::isnan(r[3]))
        continue; // float32's subnormals or overflow: not tabulated
      float got32 = f.f32(static_cast<float>(r[2]));
      ++checked32;
      EXPECT_LE(ulp_distance(got32, static_cast<float>(r[3])), 1)
          << f.name << "f(" << std::hexfloat << r[2] << ") = " << got32 << ", not " << r[3];
      exact32 += got32 == static_cast<float>(r[3]);
    }
    EXPECT_GE(exact, data.size() * 97 / 100) << f.name << ": correctly rounded too rarely";
    EXPECT_GE(exact32, checked32 * 99 / 100) << f.name << "f: correctly rounded too rarely";
  }
}

TEST(Tmath, PowAtan2AndFmodAgreeWithTheReferences) {
  size_t exact = 0;
  std::vector<std::vector<double>> p = rows("pow", 3);
  ASSERT_GE(p.size(), 300u);
  for (const std::vector<double>& r : p) {
    double got = teval_pow(r[0], r[1]);
    EXPECT_LE(ulp_distance(got, r[2]), 1)
        << std::hexfloat << "pow(" << r[0] << ", " << r[1] << ") = " << got << ", not " << r[2];
    exact += got == r[2];
  }
  EXPECT_GE(exact, p.size() * 97 / 100);
  exact = 0;
  std::vector<std::vector<double>> a = rows("atan2", 3);
  ASSERT_GE(a.size(), 500u);
  for (const std::vector<double>& r : a) {
    double got = teval_atan2(r[0], r[1]);
    EXPECT_LE(ulp_distance(got, r[2]), 1)
        << std::hexfloat << "atan2(" << r[0] << ", " << r[1] << ") = " << got << ", not " << r[2];
    exact += got == r[2];
    // The float32 one is the float64 one, rounded.
    const float y = static_cast<float>(r[0]), x = static_cast<float>(r[1]);
    EXPECT_EQ(std::bit_cast<uint32_t>(teval_atan2f(y, x)),
              std::bit_cast<uint32_t>(static_cast<float>(teval_atan2(y, x))));
  }
  EXPECT_GE(exact, a.size() * 97 / 100);
  // fmod is exact: the same bits, the sign of zero included.
  for (const std::vector<double>& r : rows("fmod", 3)) {
    double got = teval_fmod(r[0], r[1]);
    EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(r[2]))
        << std::hexfloat << "fmod(" << r[0] << ", " << r[1] << ") = " << got;
  }
}

// The square root is correctly rounded: exactly the host's instruction.
TEST(Tmath, SqrtIsTheHostsInstruction) {
  uint64_t state = 99;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    double x = std::bit_cast<double>(state & ~(uint64_t{1} << 63));
    if (std::isnan(x))
      continue;
    ASSERT_EQ(std::bit_cast<uint64_t>(teval_sqrt(x)), std::bit_cast<uint64_t>(std::sqrt(x)))
        << std::hexfloat << x;
    float xf = std::bit_cast<float>(static_cast<uint32_t>(state >> 33));
    if (!std::isnan(xf) && xf >= 0) {
      ASSERT_EQ(teval_sqrtf(xf), std::sqrt(xf)) << std::hexfloat << xf;
    }
  }
}

// Special values: IEEE 754's and C's Annex F, signed zeros included.
TEST(Tmath, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto same = [](double a, double b) {
    return (std::isnan(a) && std::isnan(b)) ||
           std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
  };
  struct Case {
    const char* what;
    double got, want;
  };
  const double pio2 = 0x1.921fb54442d18p+0;
  const Case cases[] = {
      {"exp(-inf)", teval_exp(-inf), 0},
      {"exp(inf)", teval_exp(inf), inf},
      {"exp(-0)", teval_exp(-0.0), 1},
      {"exp(709.8)", teval_exp(709.8), inf},
      {"exp(-746)", teval_exp(-746), 0},
      {"exp(-745)", teval_exp(-745), 0x1p-1074},
      {"log(0)", teval_log(0), -inf},
      {"log(-0)", teval_log(-0.0), -inf},
      {"log(-1)", teval_log(-1), nan},
      {"log(1)", teval_log(1), 0},
      {"log(inf)", teval_log(inf), inf},
      {"log(2^-1074)", teval_log(0x1p-1074), -744.4400719213812},
      {"sin(-0)", teval_sin(-0.0), -0.0},
      {"sin(inf)", teval_sin(inf), nan},
      {"cos(-0)", teval_cos(-0.0), 1},
      {"cos(-inf)", teval_cos(-inf), nan},
      {"tan(-0)", teval_tan(-0.0), -0.0},
      {"tan(inf)", teval_tan(inf), nan},
      {"asin(-0)", teval_asin(-0.0), -0.0},
      {"asin(1)", teval_asin(1), pio2},
      {"asin(-1)", teval_asin(-1), -pio2},
      {"asin(1.5)", teval_asin(1.5), nan},
      {"acos(1)", teval_acos(1), 0},
      {"acos(-1)", teval_acos(-1), 0x1.921fb54442d18p+1},
      {"acos(-0)", teval_acos(-0.0), pio2},
      {"acos(-2)", teval_acos(-2), nan},
      {"atan(-0)", teval_atan(-0.0), -0.0},
      {"atan(inf)", teval_atan(inf), pio2},
      {"atan(-inf)", teval_atan(-inf), -pio2},
      {"atan(1)", teval_atan(1), 0x1.921fb54442d18p-1},
      {"sinh(-0)", teval_sinh(-0.0), -0.0},
      {"sinh(-inf)", teval_sinh(-inf), -inf},
      {"sinh(711)", teval_sinh(711), inf},
      {"cosh(-inf)", teval_cosh(-inf), inf},
      {"cosh(-0)", teval_cosh(-0.0), 1},
      {"tanh(-0)", teval_tanh(-0.0), -0.0},
      {"tanh(inf)", teval_tanh(inf), 1},
      {"tanh(-inf)", teval_tanh(-inf), -1},
      {"erf(-0)", teval_erf(-0.0), -0.0},
      {"erf(inf)", teval_erf(inf), 1},
      {"erf(-inf)", teval_erf(-inf), -1},
      {"erfc(-inf)", teval_erfc(-inf), 2},
      {"erfc(inf)", teval_erfc(inf), 0},
      {"erfc(0)", teval_erfc(0), 1},
      {"erfc(28)", teval_erfc(28), 0},
      {"sqrt(-0)", teval_sqrt(-0.0), -0.0},
      {"sqrt(-1)", teval_sqrt(-1), nan},
      {"sqrt(inf)", teval_sqrt(inf), inf},
      {"pow(nan, 0)", teval_pow(nan, 0), 1},
      {"pow(1, nan)", teval_pow(1, nan), 1},
      {"pow(-1, inf)", teval_pow(-1, inf), 1},
      {"pow(-1, -inf)", teval_pow(-1, -inf), 1},
      {"pow(0.5, inf)", teval_pow(0.5, inf), 0},
      {"pow(0.5, -inf)", teval_pow(0.5, -inf), inf},
      {"pow(2, inf)", teval_pow(2, inf), inf},
      {"pow(2, -inf)", teval_pow(2, -inf), 0},
      {"pow(-0, -3)", teval_pow(-0.0, -3), -inf},
      {"pow(-0, -2)", teval_pow(-0.0, -2), inf},
      {"pow(-0, 3)", teval_pow(-0.0, 3), -0.0},
      {"pow(-0, 2.5)", teval_pow(-0.0, 2.5), 0},
      {"pow(0, -1)", teval_pow(0, -1), inf},
      {"pow(-inf, -3)", teval_pow(-inf, -3), -0.0},
      {"pow(-inf, -2)", teval_pow(-inf, -2), 0},
      {"pow(-inf, 3)", teval_pow(-inf, 3), -inf},
      {"pow(-inf, 2)", teval_pow(-inf, 2), inf},
      {"pow(inf, -1)", teval_pow(inf, -1), 0},
      {"pow(-8, 1/3)", teval_pow(-8, 1.0 / 3), nan},
      {"pow(-2, 3)", teval_pow(-2, 3), -8},
      {"pow(-2, 2^60)", teval_pow(-2, 0x1p60), inf},
      {"pow(2, -1074)", teval_pow(2, -1074), 0x1p-1074},
      {"pow(2, -1075)", teval_pow(2, -1075), 0},
      {"pow(2, 1024)", teval_pow(2, 1024), inf},
      {"pow(10, -3)", teval_pow(10, -3), 0.001},
      {"pow(9, 0.5)", teval_pow(9, 0.5), 3},
      {"fmod(-0, 3)", teval_fmod(-0.0, 3), -0.0},
      {"fmod(-6, 3)", teval_fmod(-6, 3), -0.0},
      {"fmod(5, inf)", teval_fmod(5, inf), 5},
      {"fmod(inf, 5)", teval_fmod(inf, 5), nan},
      {"fmod(5, 0)", teval_fmod(5, 0), nan},
      {"fmod(5.5, -2)", teval_fmod(5.5, -2), 1.5},
      {"fmod(1e308, 2^-1074)", teval_fmod(1e308, 0x1p-1074), 0},
  };
  for (const Case& c : cases)
    EXPECT_TRUE(same(c.got, c.want))
        << c.what << " = " << std::hexfloat << c.got << ", not " << c.want;
}

// teval_expf is (float)teval_exp(x) computed a faster way: the same bits on
// a sample of every float (each 509th bit pattern: every binade, both signs)
// and where the fast path hands over (around -87 and 88, NaN, infinities).
// `scripts/dev exhaustive-math` checks all 2^32.
TEST(Tmath, ExpfIsTheFloat64ExpRounded) {
  auto check = [](uint32_t bits) {
    float x = std::bit_cast<float>(bits);
    float want = static_cast<float>(teval_exp(static_cast<double>(x)));
    float got = teval_expf(x);
    return std::bit_cast<uint32_t>(got) == std::bit_cast<uint32_t>(want) ||
           (std::isnan(got) && std::isnan(want));
  };
  size_t wrong = 0;
  for (uint64_t b = 0; b <= 0xffffffffu; b += 509)
    wrong += !check(static_cast<uint32_t>(b));
  for (float edge : {-87.0f, 88.0f, -88.0f, 89.0f, 0.0f, -0.0f, 0x1p-30f, -0x1p-30f})
    for (int k = -4096; k <= 4096; ++k)
      wrong += !check(std::bit_cast<uint32_t>(edge) + static_cast<uint32_t>(k));
  EXPECT_EQ(wrong, 0u);
}

} // namespace
} // namespace teval
