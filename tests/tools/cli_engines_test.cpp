// `teval run` on every engine, as users run it: the same printed values
// from the interpreter, IREval, the JIT and the DSP.
#include "core/npy.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

namespace fs = std::filesystem;

using test::Result;

Result teval(const std::string& args) {
  return test::run_teval(args, fs::current_path());
}

TEST(Cli, EnginesGiveIdenticalResults) {
  std::string program = "run -e 'output0[N, M] +=! input0[N, K] * input1[K, M]' "
                        "-i input0=float32[3,5] -i input1=float32[5,4] --seed 3";
  Result interp = teval(program);
  EXPECT_EQ(interp.exit_code, 0) << interp.err;
  for (const char* engine : {"interp", "ireval", "jit"}) {
    Result r = teval(program + " --engine " + engine);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, interp.out) << engine;
  }
  EXPECT_EQ(teval(program + " --engine llvm").exit_code, 2);
  EXPECT_EQ(teval(program + " --emit asm").exit_code, 2);
}

TEST(Cli, ScalarTemporariesRunOnEveryEngine) {
  // Rank-0 temps, read by later statements or not: the JIT once wrote them
  // through a null pointer (exit 139) on the path `teval run` takes. The
  // printed values are hand-checked: v0 = input0[0] = 2, s = 1 + 2 + 3 + 4.
  struct Case {
    std::string args;
    std::string printed;
  };
  fs::path x = fs::path(::testing::TempDir()) / "scalar_temps_x.npy";
  core::Tensor t(core::DType::Float32, {4});
  for (int64_t i = 0; i < 4; ++i)
    t.set(i, core::Scalar::of_float(core::DType::Float32, double(i + 2)));
  core::write_npy(t, x.string());
  const std::string in = " -i input0=" + x.string();
  for (const Case& c : std::vector<Case>{
           {"-e 'v0[] = input0[0]; output0[D0] = input0[D0] * v0[]'" + in,
            "output0 = array([ 4.0,  6.0,  8.0, 10.0], dtype=float32)\n"},
           {"-e 'a[] = 1.0; b[] = 2.0'", "b = array(2.0, dtype=float32)\n"},
           {"-e 's[] +=! input0[N]; output0[N] = input0[N] / s[]'" + in,
            // numpy's x / x.sum(), printed as teval prints arrays
            "output0 = array([0.14285715, 0.21428572,  0.2857143, 0.35714287], "
            "dtype=float32)\n"},
       }) {
    for (const char* engine : {"interp", "ireval", "jit", "hexagon"}) {
      Result r = teval("run " + c.args + " --print --engine " + engine);
      EXPECT_EQ(r.exit_code, 0) << engine << " " << c.args << "\n" << r.err;
      EXPECT_EQ(r.out, c.printed) << engine << " " << c.args;
    }
  }
  // The Tile tutorial's global minimum, a contraction to a scalar.
  std::string tile = "run " + test::source_dir().string() +
                     "/examples/tile/tutorial.tile --entry global_min -i I=float32[3,4,5] --print";
  Result interp = teval(tile);
  ASSERT_EQ(interp.exit_code, 0) << interp.err;
  for (const char* engine : {"ireval", "jit", "hexagon"}) {
    Result r = teval(tile + " --engine " + engine);
    EXPECT_EQ(r.exit_code, 0) << engine << "\n" << r.err;
    EXPECT_EQ(r.out, interp.out) << engine;
  }
}

// `teval run --engine jit` keeps the compiled kernel in the cache the
// environment names and loads it the next time, with the same output;
// --no-cache and TEVAL_NO_CACHE write nothing, and a damaged entry is
// compiled again and replaced.
TEST(Cli, TheJitKeepsCompiledKernelsInItsCache) {
  fs::path dir = test::scratch_dir("cli_kernel_cache");
  auto entries = [&](const fs::path& cache) {
    std::vector<fs::path> found;
    if (fs::exists(cache))
      for (const auto& e : fs::directory_iterator(cache))
        found.push_back(e.path());
    return found;
  };
  std::string program = "run -e 'output0[N, M] +=! input0[N, K] * input1[K, M]' "
                        "-i input0=float32[3,5] -i input1=float32[5,4] --seed 3";
  std::string expected = teval(program).out;
  auto jit = [&](const std::string& env, const std::string& more = "") {
    return test::run_shell(env + " teval " + program + " --engine jit" + more, dir);
  };
  Result r = jit("TEVAL_CACHE_DIR=cache");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expected);
  ASSERT_EQ(entries(dir / "cache").size(), 1u);
  fs::path entry = entries(dir / "cache")[0];
  std::string bytes = test::read_file(entry);
  r = jit("TEVAL_CACHE_DIR=cache");
  EXPECT_EQ(r.out, expected);
  EXPECT_EQ(entries(dir / "cache").size(), 1u);
  // Damaged: compiled again, the same output, the entry whole again.
  test::write_file(entry, bytes.substr(0, bytes.size() / 2));
  r = jit("TEVAL_CACHE_DIR=cache");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expected);
  EXPECT_EQ(test::read_file(entry), bytes);
  // Turned off: nothing written.
  EXPECT_EQ(jit("TEVAL_CACHE_DIR=off1", " --no-cache").out, expected);
  EXPECT_EQ(jit("TEVAL_CACHE_DIR=off2 TEVAL_NO_CACHE=1").out, expected);
  EXPECT_FALSE(fs::exists(dir / "off1"));
  EXPECT_FALSE(fs::exists(dir / "off2"));
  EXPECT_EQ(teval(program + " --no-cache").exit_code, 2); // an option of --engine jit
}

} // namespace
} // namespace teval
