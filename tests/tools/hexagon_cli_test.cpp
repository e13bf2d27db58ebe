// The Hexagon DSP target through the command line: HVX code in the
// assembly, kernels run under qemu-hexagon with the interpreter's results
// and errors, float64 division as the host divides, and clear errors for
// what the DSP runtime does not serve.
#include "core/npy.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace teval {
namespace {

namespace fs = std::filesystem;

using test::Result;

Result teval(const std::string& args, const fs::path& cwd = fs::current_path()) {
  return test::run_teval(args, cwd);
}

// The DSP target: HVX vector code for integer kernels, caught if it falls
// back to scalar code; an ELF object for Hexagon.
TEST(Cli, JitForHexagonEmitsHvxCode) {
  for (auto [dtype, lane] : {std::pair{"int8", ".b"}, std::pair{"int32", ".w"}}) {
    std::string program = std::string("-e 'output0[N] = input0[N] + input1[N] where N in 1024' ") +
                          "-i input0=" + dtype + "[1024] -i input1=" + dtype + "[1024]";
    Result as = teval("jit " + program + " --target hexagon --emit asm");
    ASSERT_EQ(as.exit_code, 0) << as.err;
    EXPECT_NE(as.out.find("= vmem("), std::string::npos) << dtype << ": no HVX vector load";
    EXPECT_NE(as.out.find(std::string(lane) + " = vadd("), std::string::npos)
        << dtype << ": no HVX vector add";
    Result ir = teval("jit " + program + " --target hexagon");
    EXPECT_NE(ir.out.find("target triple = \"hexagon-unknown-linux-musl\""), std::string::npos);
    EXPECT_NE(ir.out.find("+hvx-length128b"), std::string::npos);
    Result obj = teval("jit " + program + " --target hexagon --emit obj");
    ASSERT_EQ(obj.exit_code, 0) << obj.err;
    ASSERT_GT(obj.out.size(), 20u);
    EXPECT_EQ(obj.out.substr(0, 4), "\x7f"
                                    "ELF");
    EXPECT_EQ(obj.out[4], 1) << "a 32-bit ELF";
    EXPECT_EQ(
        static_cast<unsigned char>(obj.out[18]) | static_cast<unsigned char>(obj.out[19]) << 8, 164)
        << "e_machine EM_HEXAGON";
  }
}

// The DSP engine: kernels linked with teval's runtime and run under
// qemu-hexagon give the interpreter's results and errors; what the runtime
// cannot serve yet, or a missing tool, is a clear error.
TEST(Cli, TheHexagonEngineRunsUnderQemu) {
  fs::path dir = test::scratch_dir("hexagon-engine");
  std::string program = "-e 'output0[N] = (input0[N] / 3 + input0[N] % 5) * input1[N] where N in "
                        "300' --seed 5";
  for (const char* types :
       {"-i input0=int8[300] -i input1=int8[300]", "-i input0=int64[300] -i input1=int64[300]",
        "-i input0=int32[300] -i input1=int32[300]"}) {
    Result host = teval(std::string("run ") + program + " " + types + " -o host", dir);
    Result dsp =
        teval(std::string("run ") + program + " " + types + " --engine hexagon -o dsp", dir);
    ASSERT_EQ(dsp.exit_code, 0) << types << ": " << dsp.err;
    EXPECT_EQ(test::read_file(dir / "host/output0.npy"), test::read_file(dir / "dsp/output0.npy"))
        << types;
  }
  std::string divide = "run -e 'output0[N] = input0[N] / input1[N] where N in 64' -i "
                       "input0=int64[64] -i input1=int64[64]";
  Result interp = teval(divide, dir);
  Result dsp = teval(divide + " --engine hexagon", dir);
  EXPECT_EQ(interp.exit_code, 1);
  EXPECT_EQ(dsp.exit_code, 1);
  EXPECT_EQ(dsp.err, interp.err) << "the DSP reports the interpreter's division by zero";
  Result f16 = teval("run -e 'output0[N] = input0[N] * 2.0 where N in 4' -i input0=float16[4] "
                     "--engine hexagon",
                     dir);
  EXPECT_EQ(f16.exit_code, 1);
  EXPECT_NE(f16.err.find("float16/bfloat16 arithmetic"), std::string::npos) << f16.err;
  EXPECT_NE(f16.err.find("does not have yet"), std::string::npos) << f16.err;
  Result exp =
      teval("run -e 'output0[N] = input0[N].call(`exp`) where N in 4' -i input0=float32[4] "
            "--engine hexagon",
            dir);
  EXPECT_EQ(exp.exit_code, 1);
  EXPECT_NE(exp.err.find("the math function expf"), std::string::npos) << exp.err;
  // An all-reduction of float16 values ended LLVM's Hexagon code generator
  // (found by teval diff --engine hexagon): now an error before it.
  Result all = teval("run -e 'output0[] &=! input0[N].cast(`float16`)' -i input0=float32[2] "
                     "--engine hexagon",
                     dir);
  EXPECT_EQ(all.exit_code, 1);
  EXPECT_NE(all.err.find("float16/bfloat16 arithmetic"), std::string::npos) << all.err;
  Result diff = teval("diff --engine hexagon --cases 20 --seed 1", dir);
  EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  EXPECT_NE(diff.out.find("0 mismatches; "), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("cases the DSP runtime cannot run yet"), std::string::npos) << diff.out;
  Result no_qemu = test::run_shell(
      "PATH=/nonexistent " + test::shell_quoted((test::binary_dir() / "bin/teval").string()) +
          " run -e 'output0[N] = N where N in 4' --engine hexagon",
      dir);
  EXPECT_EQ(no_qemu.exit_code, 1);
  EXPECT_NE(no_qemu.err.find("is not installed"), std::string::npos) << no_qemu.err;
}

// float64 division on the DSP is teval's soft-float routine: correctly
// rounded, subnormals, overflow, signed zeros, infinities and NaN included,
// on edge values and 20000 random bit patterns, as the host divides.
TEST(Cli, TheHexagonEngineDividesFloat64AsTheHostDoes) {
  fs::path dir = test::scratch_dir("hexagon-divdf3");
  std::vector<double> edges = {0.0,
                               -0.0,
                               1.0,
                               -1.0,
                               3.0,
                               0.1,
                               7.0,
                               1.0 / 3,
                               1e308,
                               -1e308,
                               1.7976931348623157e308,
                               2.2250738585072014e-308,
                               4.9406564584124654e-324,
                               1e-310,
                               -1e-320,
                               1e-300,
                               1e300,
                               INFINITY,
                               -INFINITY,
                               NAN,
                               1.5 * 2.2250738585072014e-308};
  std::vector<double> a, b;
  for (double x : edges)
    for (double y : edges) {
      a.push_back(x);
      b.push_back(y);
    }
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return state;
  };
  for (int i = 0; i < 20000; ++i) {
    uint64_t x = next(), y = next();
    double dx, dy;
    std::memcpy(&dx, &x, 8);
    std::memcpy(&dy, &y, 8);
    a.push_back(dx);
    b.push_back(dy);
  }
  auto tensor = [](const std::vector<double>& v) {
    core::Tensor t(core::DType::Float64, {static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i)
      t.set(static_cast<int64_t>(i), core::Scalar::of_float(core::DType::Float64, v[i]));
    return t;
  };
  core::write_npy(tensor(a), (dir / "a.npy").string());
  core::write_npy(tensor(b), (dir / "b.npy").string());
  std::string run = "run -e 'output0[N] = input0[N] / input1[N]' -i input0=a.npy -i input1=b.npy";
  ASSERT_EQ(teval(run + " -o host", dir).exit_code, 0);
  Result dsp = teval(run + " --engine hexagon -o dsp", dir);
  ASSERT_EQ(dsp.exit_code, 0) << dsp.err;
  core::Tensor host = core::read_npy((dir / "host/output0.npy").string());
  core::Tensor mine = core::read_npy((dir / "dsp/output0.npy").string());
  for (int64_t i = 0; i < host.numel(); ++i) {
    double h = host.get(i).f, m = mine.get(i).f;
    if (std::isnan(h) && std::isnan(m))
      continue;
    ASSERT_TRUE(core::identical(host.get(i), mine.get(i)))
        << a[static_cast<size_t>(i)] << " / " << b[static_cast<size_t>(i)] << ": host " << h
        << ", DSP " << m;
  }
}

} // namespace
} // namespace teval
