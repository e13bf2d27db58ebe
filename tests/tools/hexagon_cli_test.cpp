// The Hexagon DSP target through the command line: HVX code in the
// assembly, kernels run under qemu-hexagon with the interpreter's results
// and errors, float64 division as the host divides, teval's math library,
// and clear errors when the tool chain fails.
#include "core/format.h"
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

core::Tensor tensor(core::DType dtype, const std::vector<double>& v) {
  core::Tensor t(dtype, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    t.set(static_cast<int64_t>(i), core::Scalar::of_float(dtype, v[i]));
  return t;
}

// Empty when the host's and the DSP's output0.npy hold the same values
// (any NaN the same as any NaN); else the first difference.
std::string compare_outputs(const fs::path& dir, const std::string& what) {
  core::Tensor host = core::read_npy((dir / "host/output0.npy").string());
  core::Tensor mine = core::read_npy((dir / "dsp/output0.npy").string());
  if (host.numel() != mine.numel())
    return what + ": different sizes";
  for (int64_t i = 0; i < host.numel(); ++i) {
    if (!core::identical(host.get(i), mine.get(i)) &&
        !(std::isnan(host.get(i).f) && std::isnan(mine.get(i).f)))
      return what + " element " + std::to_string(i) + ": host " + core::format_scalar(host.get(i)) +
             ", DSP " + core::format_scalar(mine.get(i));
  }
  return "";
}

// --order any and --fma free the DSP's code as the host's: a dot product of
// 300 terms per row is within teval check --fma's bound, and without them
// it is the interpreter's bits.
TEST(Cli, TheHexagonEngineTakesOrderAnyAndFma) {
  fs::path dir = test::scratch_dir("hexagon_order_any");
  std::string program = "-e 'output0[N] +=! input0[N, K] * input1[K]' -i input0=float32[8,300] "
                        "-i input1=float32[300] ";
  Result relaxed = teval("run " + program + "--engine hexagon --order any --fma -o any", dir);
  ASSERT_EQ(relaxed.exit_code, 0) << relaxed.err;
  Result check = teval("check " + program + "--candidate output0=any/output0.npy --fma", dir);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_EQ(check.out.find("mismatch"), std::string::npos) << check.out;
  ASSERT_EQ(teval("run " + program + "--engine hexagon -o dsp", dir).exit_code, 0);
  ASSERT_EQ(teval("run " + program + "-o host", dir).exit_code, 0);
  EXPECT_EQ(compare_outputs(dir, "the sequential dot products"), "");
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
// qemu-hexagon give the interpreter's results and errors, math functions
// and float16/bfloat16 included; a missing tool is a clear error.
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
  // teval's math library and float16/bfloat16 run on the DSP with the
  // interpreter's bits; an all-reduction of float16 values, which ended
  // LLVM's Hexagon code generator while float16 went through LLVM's `half`,
  // among them.
  std::string math =
      "output0[N] = (input0[N].call(`exp`) + (input0[N] * input0[N] + 1.0).call(`log`) "
      "+ input0[N].call(`tanh`) * input0[N].call(`erf`) + "
      "(input0[N] * 7.0).call(`sin`) / input0[N].call(`cosh`) + "
      "input0[N].call(`atan`) + (input0[N] * input0[N] + 0.5).call(`pow`, "
      "[input0[N]]))";
  for (const char* dtype : {"float64", "float32", "float16", "bfloat16"}) {
    for (const std::string& body :
         {math + ".cast(`" + dtype + "`) where N in 64", std::string("output0[] &=! input0[N]")}) {
      std::string run = "run -e '" + body + "' -i input0=" + dtype + "[64] --seed 3 ";
      Result host = teval(run + "-o host", dir);
      Result dsp = teval(run + "--engine hexagon -o dsp", dir);
      ASSERT_EQ(host.exit_code, 0) << host.err;
      ASSERT_EQ(dsp.exit_code, 0) << dtype << ": " << dsp.err;
      EXPECT_EQ(test::read_file(dir / "host/output0.npy"), test::read_file(dir / "dsp/output0.npy"))
          << dtype << ": " << body;
    }
  }
  Result diff = teval("diff --engine hexagon --cases 20 --seed 1", dir);
  EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  EXPECT_NE(diff.out.find("0 mismatches; "), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("; 0 cases the DSP runtime cannot run"), std::string::npos) << diff.out;
  Result no_qemu = test::run_shell(
      "PATH=/nonexistent " + test::shell_quoted((test::binary_dir() / "bin/teval").string()) +
          " run -e 'output0[N] = N where N in 4' --engine hexagon",
      dir);
  EXPECT_EQ(no_qemu.exit_code, 1);
  EXPECT_NE(no_qemu.err.find("is not installed"), std::string::npos) << no_qemu.err;
  // A campaign whose DSP cannot run says so: no verdict is not a pass.
  fs::remove_all(dir / "campaign");
  Result fuzz = test::run_shell(
      "PATH=/nonexistent " + test::shell_quoted((test::binary_dir() / "bin/teval").string()) +
          " fuzz --engine hexagon --cases 6 --seed 3 --quiet --out campaign",
      dir);
  EXPECT_EQ(fuzz.exit_code, 0) << fuzz.err;
  EXPECT_NE(fuzz.out.find("cases an engine could not run (no verdict)"), std::string::npos)
      << fuzz.out;
  std::string report = test::read_file(dir / "campaign/report.json");
  EXPECT_EQ(report.find("\"engine_unsupported\": 0"), std::string::npos) << report;
  EXPECT_NE(report.find("\"engine_unsupported\": "), std::string::npos) << report;
  EXPECT_NE(test::read_file(dir / "campaign/cases.log").find(" unrun"), std::string::npos);
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
  core::write_npy(tensor(core::DType::Float64, a), (dir / "a.npy").string());
  core::write_npy(tensor(core::DType::Float64, b), (dir / "b.npy").string());
  std::string run = "run -e 'output0[N] = input0[N] / input1[N]' -i input0=a.npy -i input1=b.npy";
  ASSERT_EQ(teval(run + " -o host", dir).exit_code, 0);
  Result dsp = teval(run + " --engine hexagon -o dsp", dir);
  ASSERT_EQ(dsp.exit_code, 0) << dsp.err;
  EXPECT_EQ(compare_outputs(dir, "float64 division"), "");
}

// Float comparisons on the DSP treat NaN, infinities and signed zeros as
// IEEE says, in every form the optimiser gives them: LLVM 19's Hexagon code
// generator turned a float64 select on `fcmp ult` (what InstCombine makes
// of `select(c <= x, x, -x)`) into an ordered compare, wrong for NaN (found
// by the differential property), so the DSP's code compares bits.
TEST(Cli, TheHexagonEngineComparesFloatsAsTheHostDoes) {
  fs::path dir = test::scratch_dir("hexagon-compare");
  const double inf = INFINITY;
  std::vector<double> special = {NAN, -inf, -2.0, -0.0, 0.0, 1.0, inf}, a, b;
  for (double x : special)
    for (double y : special) {
      a.push_back(x);
      b.push_back(y);
    }
  for (const char* dtype : {"float64", "float32"}) {
    core::DType t = std::string(dtype) == "float64" ? core::DType::Float64 : core::DType::Float32;
    core::write_npy(tensor(t, a), (dir / "a.npy").string());
    core::write_npy(tensor(t, b), (dir / "b.npy").string());
    std::string c = std::string("const(-2.0, `") + dtype + "`)";
    // One program per form: how the optimiser treats a comparison depends
    // on the code around it.
    for (const char* op : {"<", "<=", ">", ">=", "==", "!="})
      for (const std::string& cond :
           {c + " " + op + " input0[N]", "input0[N] " + std::string(op) + " input1[N]"})
        for (const std::string& other : {std::string("-input0[N]"), c}) {
          std::string program = "output0[N] = input0[N].when([" + cond + "], " + other + ")";
          // Only the inputs the program reads: another -i is an error.
          std::string run = "run -e '" + program + "' -i input0=a.npy" +
                            (cond.find("input1") != std::string::npos ? " -i input1=b.npy" : "");
          ASSERT_EQ(teval(run + " -o host", dir).exit_code, 0);
          Result dsp = teval(run + " --engine hexagon -o dsp", dir);
          ASSERT_EQ(dsp.exit_code, 0) << dsp.err;
          EXPECT_EQ(test::read_file(dir / "host/output0.npy"),
                    test::read_file(dir / "dsp/output0.npy"))
              << dtype << ": " << program;
        }
  }
}

// teval's math library on the DSP gives the host's bits: every function
// at the reference points of tests/data/tmath (their float64 and float32
// arguments), the compound ones (normcdf, sigmoid, rsqrt) and pow.
TEST(Cli, TheHexagonEngineComputesMathFunctionsAsTheHostDoes) {
  fs::path dir = test::scratch_dir("hexagon-tmath");
  auto column = [](const core::Tensor& t, int64_t c) {
    std::vector<double> v;
    for (int64_t r = 0; r < t.shape()[0]; ++r)
      v.push_back(t.get(r * t.shape()[1] + c).f);
    return v;
  };
  auto reference = [](const std::string& name) {
    return core::read_npy((test::source_dir() / "tests/data/tmath" / (name + ".npy")).string());
  };
  const std::pair<const char*, const char*> functions[] = {
      {"exp", "exp"},   {"log", "log"},      {"sin", "sin"},     {"cos", "cos"},
      {"tan", "tan"},   {"asin", "asin"},    {"acos", "acos"},   {"atan", "atan"},
      {"sinh", "sinh"}, {"cosh", "cosh"},    {"tanh", "tanh"},   {"erf", "erf"},
      {"sqrt", "sqrt"}, {"erfc", "normcdf"}, {"exp", "sigmoid"}, {"sqrt", "rsqrt"}};
  for (auto [data, function] : functions) {
    core::Tensor t = reference(data);
    for (auto [dtype, c] :
         {std::pair{core::DType::Float64, 0}, std::pair{core::DType::Float32, 2}}) {
      core::write_npy(tensor(dtype, column(t, c)), (dir / "x.npy").string());
      std::string run =
          "run -e 'output0[N] = input0[N].call(`" + std::string(function) + "`)' -i input0=x.npy";
      ASSERT_EQ(teval(run + " -o host", dir).exit_code, 0);
      Result dsp = teval(run + " --engine hexagon -o dsp", dir);
      ASSERT_EQ(dsp.exit_code, 0) << dsp.err;
      EXPECT_EQ(compare_outputs(dir, std::string(function) + " " + core::to_string(dtype)), "");
    }
  }
  core::Tensor p = reference("pow");
  core::write_npy(tensor(core::DType::Float64, column(p, 0)), (dir / "x.npy").string());
  core::write_npy(tensor(core::DType::Float64, column(p, 1)), (dir / "y.npy").string());
  std::string run = "run -e 'output0[N] = input0[N].call(`pow`, [input1[N]])' -i input0=x.npy -i "
                    "input1=y.npy";
  ASSERT_EQ(teval(run + " -o host", dir).exit_code, 0);
  ASSERT_EQ(teval(run + " --engine hexagon -o dsp", dir).exit_code, 0);
  EXPECT_EQ(compare_outputs(dir, "pow"), "");
}

} // namespace
} // namespace teval
