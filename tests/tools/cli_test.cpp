// The `teval` command as users run it: exit codes, files written (and not
// written), printing, random inputs, and golden diagnostics for every error
// class (tests/errors/antares: NAME.antares, its expected stderr NAME.err,
// optional extra arguments on a first line `# ARGS: ...`).
#include "core/npy.h"
#include "tests/support/programs.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace teval {
namespace {

namespace fs = std::filesystem;

using test::Result;

Result teval(const std::string& args, const fs::path& cwd = fs::current_path()) {
  return test::run_teval(args, cwd);
}

TEST(Cli, HelpAndUsage) {
  Result r = teval("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("commands:"), std::string::npos);
  r = teval("run --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("-i NAME=PATH.npy"), std::string::npos);
  // No command: the REPL, here reading an empty script.
  r = teval("< /dev/null");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(teval("frobnicate").exit_code, 2);
  r = teval("run");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "teval run: no program: give a FILE or -e TEXT\n(see teval run --help)\n");
  EXPECT_EQ(teval("run -e 'o[N] = N where N in 2' --bogus").exit_code, 2);
  EXPECT_EQ(teval("run -e 'o[N] = N where N in 2' --lang plaidml").exit_code, 2);
  EXPECT_EQ(teval("run -e 'o[N] = N where N in 2' --entry f").exit_code, 2);
  EXPECT_EQ(teval("run x.tile -p s").exit_code, 2);
  EXPECT_EQ(teval("run x.tile -p s=[1,a]").exit_code, 2);
  EXPECT_EQ(teval("run -e 'o[N] = N where N in 2' -i x").exit_code, 2);
  EXPECT_EQ(teval("run -e 'o[N] = N where N in 2' -i x=float32[a]").exit_code, 2);
  EXPECT_EQ(teval("run -e 'o[N] = N where N in 2' --seed -1").exit_code, 2);
  EXPECT_EQ(teval("run a.antares b.antares").exit_code, 2);
}

TEST(Cli, LowerPrintsTheLoopNest) {
  Result r = teval("lower -e 'output0[N] +=! input0[N, K] where N in 2, K in 3' "
                   "-i input0=float32[2,3]");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "input float32 input0[2, 3];\n"
                   "output float32 output0[2];\n"
                   "for (int64 i0 = 0; i0 < 2; ++i0) {\n"
                   "  output0[i0] = 0.0;\n"
                   "}\n"
                   "for (int32 N = 0; N < 2; ++N) {\n"
                   "  for (int32 K = 0; K < 3; ++K) {\n"
                   "    output0[N] = output0[N] + input0[N][K];\n"
                   "  }\n"
                   "}\n");
  EXPECT_EQ(teval("lower --help").exit_code, 0);
  EXPECT_EQ(teval("lower -e 'output0[N] = N where N in 2' -o x").exit_code, 2);
  r = teval("lower -e 'output0[N] = input0[N]'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("error:"), std::string::npos);
}

TEST(Cli, LowerScheduleShowsWhatTheJitCompiles) {
  Result r = teval("lower --schedule -e 'output0[N, M] +=! input0[N, K] * input1[K, M]' "
                   "-i input0=float32[2,3] -i input1=float32[3,4]");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "// vectorize i1\n"
                   "// interchange M and K\n"
                   "// vectorize M\n"
                   "input float32 input0[2, 3];\n"
                   "input float32 input1[3, 4];\n"
                   "output float32 output0[2, 4];\n"
                   "for (int64 i0 = 0; i0 < 2; ++i0) {\n"
                   "  for (int64 i1 = 0; i1 < 4; ++i1) {  // vectorized\n"
                   "    output0[i0][i1] = 0.0;\n"
                   "  }\n"
                   "}\n"
                   "for (int32 N = 0; N < 2; ++N) {\n"
                   "  for (int32 K = 0; K < 3; ++K) {\n"
                   "    for (int32 M = 0; M < 4; ++M) {  // vectorized\n"
                   "      output0[N][M] = output0[N][M] + (input0[N][K] * input1[K][M]);\n"
                   "    }\n"
                   "  }\n"
                   "}\n");
  EXPECT_EQ(teval("run --schedule -e 'output0[N] = N where N in 2'").exit_code, 2);
}

// Parallel loops change no result: the JIT on 1 and 3 threads writes the
// interpreter's bytes; --threads is for the JIT only.
TEST(Cli, TheJitRunsOnThreadsWithTheSameResults) {
  fs::path dir = test::scratch_dir("threads");
  std::string run = "run -e 'output0[N, M] +=! input0[N, K] * input1[K, M]' "
                    "-i input0=float32[300,200] -i input1=float32[200,100] --seed 4 ";
  ASSERT_EQ(teval(run + "-o interp", dir).exit_code, 0);
  for (const char* threads : {"1", "3"}) {
    Result r = teval(run + "--engine jit --threads " + threads + " -o jit", dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::read_file(dir / "interp/output0.npy"), test::read_file(dir / "jit/output0.npy"))
        << threads << " threads";
  }
  EXPECT_EQ(teval(run + "--engine jit --threads 0", dir).exit_code, 2);
  EXPECT_EQ(teval(run + "--threads 2", dir).exit_code, 2);
}

// --order any and --fma free the compiled code from the interpreter's bits
// and within teval check's bound: a sum of 1e8 and 4095 twos is 1e8 in
// order (each 2 is lost to rounding) and more in vector partial sums; a
// matmul's code may fuse multiply-adds only with --fma. The interpreter takes
// neither.
TEST(Cli, OrderAnyAndFmaStayWithinTheBound) {
  fs::path dir = test::scratch_dir("order_any");
  core::Tensor x(core::DType::Float32, {4, 4096});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.set(i, core::Scalar::of_float(core::DType::Float32, i % 4096 == 0 ? 1e8 : 2));
  test::write_file(dir / "x.npy", core::encode_npy(x));
  std::string sum = "-e 'output0[N] +=! input0[N, K]' -i input0=x.npy ";
  for (const char* order : {"sequential", "any"}) {
    Result r =
        teval(std::string("run ") + sum + "--engine jit --order " + order + " -o " + order, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  ASSERT_EQ(teval("run " + sum + "-o interp", dir).exit_code, 0);
  EXPECT_EQ(test::read_file(dir / "sequential/output0.npy"),
            test::read_file(dir / "interp/output0.npy"));
  EXPECT_NE(test::read_file(dir / "sequential/output0.npy"),
            test::read_file(dir / "any/output0.npy"));
  Result check = teval("check " + sum + "--candidate output0=any/output0.npy", dir);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("within-bound"), std::string::npos) << check.out;
  std::string mm = "jit -e 'output0[N, M] +=! input0[N, K] * input1[K, M]' "
                   "-i input0=float32[64,64] -i input1=float32[64,64] --emit llvm";
  // The flag that lets the code generator fuse (vfmadd on x86-64).
  EXPECT_EQ(teval(mm).out.find("contract"), std::string::npos);
  Result fused = teval(mm + " --fma");
  EXPECT_NE(fused.out.find("fadd contract"), std::string::npos) << fused.out;
  EXPECT_EQ(teval("run " + sum + "--order any", dir).exit_code, 2);
  EXPECT_EQ(teval("run " + sum + "--fma --engine ireval", dir).exit_code, 2);
  EXPECT_EQ(teval("run " + sum + "--engine jit --order sideways", dir).exit_code, 2);
  EXPECT_EQ(teval("lower " + sum + "--fma", dir).exit_code, 2);
}

TEST(Cli, JitEmitsOptimisedIrAndAssembly) {
  std::string program = "-e 'output0[N] = input0[N] * 2.0 + 1.0' -i input0=float32[64]";
  Result ir = teval("jit " + program);
  EXPECT_EQ(ir.exit_code, 0) << ir.err;
  EXPECT_NE(ir.out.find("define"), std::string::npos);
  EXPECT_NE(ir.out.find("teval_kernel"), std::string::npos);
  EXPECT_EQ(ir.out.find("@llvm.fma"), std::string::npos) << "contraction must stay off";
  EXPECT_EQ(ir.out.find("fmuladd"), std::string::npos) << "contraction must stay off";
  Result as = teval("jit " + program + " --emit asm");
  EXPECT_EQ(as.exit_code, 0) << as.err;
  EXPECT_NE(as.out.find("teval_kernel:"), std::string::npos);
  Result obj = teval("jit " + program + " --emit obj");
  EXPECT_EQ(obj.exit_code, 0) << obj.err;
  EXPECT_EQ(obj.out.substr(0, 4), "\x7f"
                                  "ELF");
  EXPECT_EQ(teval("jit " + program + " --emit bitcode").exit_code, 2);
  EXPECT_EQ(teval("jit " + program + " --target arm").exit_code, 2);
  EXPECT_EQ(teval("lower " + program + " --target hexagon").exit_code, 2);
  EXPECT_EQ(teval("run " + program + " --target hexagon").exit_code, 2);
}

TEST(Cli, DiffRunsACampaign) {
  Result r = teval("diff --cases 40 --seed 5");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("40 cases in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", 0 mismatches"), std::string::npos) << r.out;
  EXPECT_EQ(teval("diff --cases x").exit_code, 2);
  EXPECT_EQ(teval("diff --lang plaidml").exit_code, 2);
  r = teval("diff --cases 20 --lang tile");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("20 cases in "), std::string::npos) << r.out;
  EXPECT_EQ(teval("diff --help").exit_code, 0);
}

TEST(Cli, PrintsLikeNumpy) {
  Result r = teval("run -e 'output0[N, M] = (N * 3 + M).cast(`float32`) / 2.0 where N in 2, M "
                   "in 3'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "output0 = array([[0.0, 0.5, 1.0],\n"
                   "       [1.5, 2.0, 2.5]], dtype=float32)\n");
  EXPECT_EQ(r.err, "");
}

TEST(Cli, SummarisesLargeTensors) {
  Result r = teval("run -e 'output0[N] = N where N in 2000'");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "output0 = array([   0,    1,    2, ..., 1997, 1998, 1999], dtype=int32)\n");
}

TEST(Cli, WritesEveryOutputAsNpy) {
  fs::path dir = test::scratch_dir("cli-outputs");
  core::write_npy(test::tensor(core::DType::Float32, {3}, {1, 2, 3}), (dir / "x.npy").string());
  Result r = teval("run -e '- einstein_v2(\"a[N] = x[N] * 2.0; b[N] = a[N] + 1.0\", {\"x\": "
                   "\"float32[3]\"}, extra_outputs=[\"a\"])' -i x=x.npy -o out",
                   dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(test::values(core::read_npy((dir / "out/a.npy").string())),
            (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(test::values(core::read_npy((dir / "out/b.npy").string())),
            (std::vector<double>{3, 5, 7}));
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir / "out"))
    files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"a.npy", "b.npy"}));
  // --print prints as well as writing.
  r = teval("run -e 'o[N] = N where N in 3' -o out --print", dir);
  EXPECT_EQ(r.out, "o = array([0, 1, 2], dtype=int32)\n");
  EXPECT_TRUE(fs::exists(dir / "out/o.npy"));
}

TEST(Cli, ScatterTargetIsWrittenUnderItsName) {
  fs::path dir = test::scratch_dir("cli-scatter");
  Result r = teval("run '" + (test::source_dir() / "examples/antares/scatter_4d.antares").string() +
                       "' -o out --seed 3",
                   dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  core::Tensor data = core::read_npy((dir / "out/data.npy").string());
  EXPECT_EQ(data.shape(), (core::Shape{32, 32, 32, 32, 8}));
}

TEST(Cli, TileFunctionWritesItsReturnedTensor) {
  fs::path dir = test::scratch_dir("cli-tile");
  core::write_npy(test::tensor(core::DType::Float32, {2, 2}, {1, 2, 3, 4}),
                  (dir / "a.npy").string());
  core::write_npy(test::tensor(core::DType::Float32, {2, 1}, {10, 100}), (dir / "b.npy").string());
  std::string tile = "'" + (test::source_dir() / "examples/tile/tutorial.tile").string() + "'";
  Result r = teval("run " + tile + " --entry matmul -i A=a.npy -i B=b.npy -o out", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::values(core::read_npy((dir / "out/C.npy").string())),
            (std::vector<double>{210, 430}));
  // An unnamed returned expression is `result`.
  r = teval("run " + tile + " --entry avg_merge -i I=a.npy -o out", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::values(core::read_npy((dir / "out/result.npy").string())),
            (std::vector<double>{2.5}));
  // The Python spelling, integer parameters and random inputs of a given shape.
  std::string py = "'" + (test::source_dir() / "examples/tile/tutorial_py.tile").string() + "'";
  r = teval("run " + py +
                " --entry complex_conv_2d -i I=float32[1,5,5,2,3] "
                "-i K=float32[3,3,2,3,2] -p s0=2 -p s1=1 -p d0=1 -p d1=2 -o out",
            dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(core::read_npy((dir / "out/O.npy").string()).shape(), (core::Shape{1, 3, 5, 2, 2}));
  // --lang tile reads -e text too.
  r = teval("run --lang tile -e 'def f(A):\n  return A * 2.0' -i A=a.npy --print", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "result = array([[2.0, 4.0],\n       [6.0, 8.0]], dtype=float32)\n");
}

TEST(Cli, RandomInputsAreSeeded) {
  std::string program = "run -e 'o[N] = x[N] + 0.0' -i x=float32[4]";
  Result a = teval(program + " --seed 7");
  Result b = teval(program + " --seed 7");
  Result c = teval(program + " --seed 8");
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
}

// The documented stream (docs/SEMANTICS.md, "Random inputs"), computed here
// as a plain loop: SplitMix64 seeded with seed * 0x9e3779b97f4a7c15 xor the
// FNV-1a hash of the name; a float is lo + (next >> 11) * 2^-53 * (hi - lo)
// rounded to the dtype (drawn again when it rounds up to hi); an integer
// int_lo + next % count, redrawn above the largest multiple of count.
TEST(Cli, SeededInputsFollowTheDocumentedStream) {
  struct Stream {
    uint64_t state;
    uint64_t next() {
      uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      return z ^ (z >> 31);
    }
  };
  auto stream = [](uint64_t seed, const std::string& name) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : name)
      h = (h ^ c) * 0x100000001b3ULL;
    return Stream{seed * 0x9e3779b97f4a7c15ULL ^ h};
  };
  fs::path dir = test::scratch_dir("cli-seeded-stream");
  Result r = teval("run -e 'o[N] = a[N] + b[N] + c[N] + d[N]' -i a=float32[300] -i "
                   "b=float64[300] -i c=float16[300] -i d=int32[300] --seed 11 "
                   "--save-inputs in -o out",
                   dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Stream a = stream(11, "a"), b = stream(11, "b"), c = stream(11, "c"), d = stream(11, "d");
  core::Tensor ta = core::read_npy((dir / "in/a.npy").string());
  core::Tensor tb = core::read_npy((dir / "in/b.npy").string());
  core::Tensor tc = core::read_npy((dir / "in/c.npy").string());
  core::Tensor td = core::read_npy((dir / "in/d.npy").string());
  const auto* fa = reinterpret_cast<const float*>(ta.bytes().data());
  const auto* fb = reinterpret_cast<const double*>(tb.bytes().data());
  const auto* hc = reinterpret_cast<const uint16_t*>(tc.bytes().data());
  const auto* id = reinterpret_cast<const int32_t*>(td.bytes().data());
  auto uniform = [](Stream& s) { return -1.0 + static_cast<double>(s.next() >> 11) * 0x1p-53 * 2; };
  for (int i = 0; i < 300; ++i) {
    float va = 1;
    while (va >= 1)
      va = static_cast<float>(uniform(a));
    EXPECT_EQ(fa[i], va) << i;
    EXPECT_EQ(fb[i], uniform(b)) << i;
    // float16: the nearest of the 2^-11-spaced values in [-1, 1) near ±1
    // (ties to even), checked through its bits: sign, exponent, mantissa.
    double vc = 1;
    while (vc >= 1) {
      double u = uniform(c);
      int e = 0;
      std::frexp(u, &e);
      double ulp = std::ldexp(1.0, std::max(e, -13) - 11);
      vc = std::nearbyint(u / ulp) * ulp; // the default rounding: to nearest, ties to even
    }
    uint16_t bits = hc[i];
    double m = (bits >> 10 & 0x1f) == 0
                   ? std::ldexp(bits & 0x3ff, -24)
                   : std::ldexp((bits & 0x3ff) | 0x400, (bits >> 10 & 0x1f) - 25);
    EXPECT_EQ((bits & 0x8000) ? -m : m, vc) << i;
    // [-10, 10]: 21 values.
    uint64_t limit = UINT64_MAX - UINT64_MAX % 21, v = 0;
    do
      v = d.next();
    while (v >= limit);
    EXPECT_EQ(id[i], -10 + static_cast<int32_t>(v % 21)) << i;
  }
}

TEST(Cli, SavesTheInputsARunUsed) {
  fs::path dir = test::scratch_dir("cli-save-inputs");
  std::string program = "run -e 'o[N] = x[N] * 2.0 + y[N]' -i x=float32[3] -i y=float32[3]";
  Result r = teval(program + " --seed 5 --save-inputs in -o out", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  core::Tensor x = core::read_npy((dir / "in/x.npy").string());
  core::Tensor y = core::read_npy((dir / "in/y.npy").string());
  core::Tensor o = core::read_npy((dir / "out/o.npy").string());
  ASSERT_EQ(x.numel(), 3);
  for (int64_t i = 0; i < 3; ++i) // float32 arithmetic, as a plain loop does it
    EXPECT_EQ(o.get(i).f,
              static_cast<double>(static_cast<float>(static_cast<float>(x.get(i).f * 2.0f) +
                                                     static_cast<float>(y.get(i).f))));
  // The saved files reproduce the run.
  Result again =
      teval("run -e 'o[N] = x[N] * 2.0 + y[N]' -i x=in/x.npy -i y=in/y.npy -o out2", dir);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(test::read_file(dir / "out/o.npy"), test::read_file(dir / "out2/o.npy"));
  // A failing run saves nothing.
  Result bad = teval("run -e 'o[N] = x[N] // 0' -i x=int32[3] --save-inputs in2", dir);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_FALSE(fs::exists(dir / "in2"));
}

TEST(Cli, ReadsNpzArraysAndFortranOrder) {
  fs::path data = test::source_dir() / "tests/data/npy";
  // pair.npz holds x = [1.5, -2, 3.25] and idx = [[0, 2], [1, 1]].
  for (const char* archive : {"pair.npz", "pair_compressed.npz"}) {
    std::string npz = (data / archive).string();
    Result r = teval("run -e 'o[N] = x[N] * 2.0' -i x=" + npz + " --print");
    EXPECT_EQ(r.out, "o = array([ 3.0, -4.0,  6.5], dtype=float32)\n") << r.err;
    r = teval("run -e 'o[N] = v[N] * 2.0' -i v=" + npz + ":x --print");
    EXPECT_EQ(r.out, "o = array([ 3.0, -4.0,  6.5], dtype=float32)\n") << r.err;
    r = teval("run -e 'o[N] = v[N]' -i v=" + npz + ":nope");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, npz + ": error: no array 'nope' in the archive; it holds x, idx\n");
  }
  Result f =
      teval("run -e 'o[N] = f[N, 2]' -i f=" + (data / "f32_2x3_fortran.npy").string() + " --print");
  EXPECT_EQ(f.out, "o = array([2.5, 5.5], dtype=float32)\n") << f.err;
}

// Files are read to their end only up to a limit, and only files: an
// endless device, a directory or a pipe without a writer is an error at
// once, never a hang or an unbounded read (docs/LIMITS.md).
TEST(Cli, EndlessDevicesDirectoriesAndPipesAreErrors) {
  fs::path dir = test::scratch_dir("cli-files");
  fs::create_directory(dir / "adir");
  ASSERT_EQ(mkfifo((dir / "pipe.npz").c_str(), 0600), 0);
  struct Case {
    std::string args, err;
  };
  const Case cases[] = {
      {"run /dev/zero", "/dev/zero: error: larger than teval reads for a source text (64 MiB)\n"},
      {"run -e 'o[N] = x[N]' -i x=/dev/zero",
       "/dev/zero: error: not a .npy file (bad magic string)\n"},
      {"rules check /dev/zero",
       "/dev/zero: error: larger than teval reads for a source text (64 MiB)\n"},
      {"run adir", "adir: error: is a directory, not a file\n"},
      {"run -e 'o[N] = x[N]' -i x=adir", "adir: error: is a directory, not a file\n"},
      {"run -e 'o[N] = x[N]' -i x=pipe.npz:x",
       "pipe.npz: error: a .npz archive must be a regular file\n"},
      {"repl < /dev/zero", "<stdin>: error: larger than teval reads for a script (64 MiB)\n"},
  };
  for (const Case& c : cases) {
    Result r = teval(c.args, dir);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_EQ(r.err, c.err) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
  }
  // A 100-byte .npy that claims 1.1e9 floats: the claim is checked against
  // the file before anything of that size is allocated.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1100000000,), }";
  header += std::string(64 - (10 + header.size() + 1) % 64, ' ') + "\n";
  std::string npy = std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) +
                    char(header.size() >> 8) + header + std::string(16, '\0');
  test::write_file(dir / "big.npy", npy);
  Result r = teval("run -e 'o[N] = x[N]' -i x=big.npy", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "big.npy: error: truncated data: shape [1100000000] of float32 needs "
                   "4400000000 bytes, the file has 16\n");
}

// -o DIR writes every output or none, and never through a link.
TEST(Cli, OutputsAreWrittenAllOrNothingAndNeverThroughLinks) {
  fs::path dir = test::scratch_dir("cli-outputs");
  // Two files in one set: the output b and the saved input x.
  const std::string run = "run -e 'b[N] = x[N] * 2' -i x=int32[2] ";
  // A link where a file goes: refused before anything is written; the file
  // it points to is untouched.
  test::write_file(dir / "victim.txt", "precious");
  fs::create_directory(dir / "out");
  fs::create_symlink(dir / "victim.txt", dir / "out/x.npy");
  Result r = teval(run + "-o out --save-inputs out", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "out/x.npy: error: exists and is a symbolic link; teval does not write "
                   "through links\n");
  EXPECT_EQ(test::read_file(dir / "victim.txt"), "precious");
  EXPECT_FALSE(fs::exists(dir / "out/b.npy"));
  // A user's file named like the old temporaries is not consumed, and a
  // link there is not followed: temporaries have fresh unique names.
  fs::remove(dir / "out/x.npy");
  test::write_file(dir / "out/.b.npy.tmp", "mine");
  fs::create_symlink(dir / "victim.txt", dir / "out/.x.npy.tmp");
  r = teval(run + "-o out --save-inputs out", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(dir / "out/.b.npy.tmp"), "mine");
  EXPECT_EQ(test::read_file(dir / "victim.txt"), "precious");
  core::Tensor x = core::read_npy((dir / "out/x.npy").string());
  core::Tensor b = core::read_npy((dir / "out/b.npy").string());
  EXPECT_EQ(b.get(1).i, x.get(1).i * 2);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir / "out"))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{".b.npy.tmp", ".x.npy.tmp", "b.npy", "x.npy"}));
  // A failure leaves nothing: no file of the set, and not the directories
  // teval created for it.
  fs::create_directories(dir / "other/x.npy");
  r = teval(run + "-o other --save-inputs other", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "other/x.npy: error: exists and is not a regular file\n");
  EXPECT_FALSE(fs::exists(dir / "other/b.npy"));
  test::write_file(dir / "blocker", "a file where a directory is needed");
  r = teval(run + "-o made/here --save-inputs blocker/in", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(fs::exists(dir / "made")) << "the directories a failed run created stay";
  r = teval(run + "-o ''", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "teval run: -o needs a directory, not an empty name\n(see teval run --help)\n");
}

// An -i for a name the program has no input of is an error (in CI a
// misspelt name would run the program on random data); one the program
// declares but does not read is a warning.
TEST(Cli, InputsMustBeTheProgramsOwn) {
  Result r = teval("run -e 'o[N] = x[N] * 2.0' -i x=float32[2] -i y=float32[3] -o out");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "-i y=float32[3]: error: the program has no input `y`; its inputs are: x\n");
  r = teval("check -e 'o[N] = x[N] * 2.0' -i x=float32[2] -i inptu=float32[2] --candidate o=c.npy");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the program has no input `inptu`"), std::string::npos) << r.err;
  r = teval("run -e '- einstein_v2(\"o[N] = x[N] * 2.0\", input_dict={\"x\": {\"dtype\": "
            "\"float32\", \"shape\": [2]}, \"y\": {\"dtype\": \"float32\", \"shape\": [3]}})' "
            "-i y=float32[3]");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "teval run: warning: the program does not read input `y` given with -i\n");
  r = teval("run -e 'Tensor f(const Tensor& I, const Tensor& J) { return I; }' --lang tile "
            "-i I=float32[2] -i J=float32[2] -i K=float32[2]");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "-i K=float32[2]: error: the program has no input `K`; its inputs are: I, J\n");
  // A scatter's base is read, though its result carries the same name.
  r = teval("run -e 'data[X] =. upd[X] where X in 2' -i data=float32[4] -i upd=float32[2]");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
}

TEST(Cli, ATileSourceWithoutAFunctionNamesItsFile) {
  fs::path dir = test::scratch_dir("cli-tile-empty");
  test::write_file(dir / "empty.tile", "// nothing here\n");
  Result r = teval("run empty.tile", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "empty.tile: error: the Tile source defines no function\n");
  EXPECT_EQ(r.out, "");
}

TEST(Cli, ErrorsWriteNothing) {
  fs::path dir = test::scratch_dir("cli-nothing");
  // The first statement succeeds, the second divides by zero: no file at all.
  Result r = teval("run -e 'a[N] = N where N in 3; b[N] = a[N] / (N - 1)' -o out", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(Cli, SeedExampleFromTheDocumentRuns) {
  Result r =
      teval("run '" + (test::source_dir() / "examples/quickstart.antares").string() + "' --seed 1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("output0 = array([[[[", 0), 0u);
  EXPECT_NE(r.out.find("dtype=float32)"), std::string::npos);
}

struct ErrorCase {
  std::string dir;  // under tests/errors
  std::string name; // the program is NAME.EXT, its diagnostic NAME.err
  std::string extension;
};

class ErrorGolden : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ErrorGolden, DiagnosticExitCodeAndNoOutput) {
  const ErrorCase& c = GetParam();
  fs::path dir = test::source_dir() / "tests/errors" / c.dir;
  std::string text = test::read_file(dir / (c.name + c.extension));
  std::string args;
  for (const char* prefix : {"# ARGS: ", "// ARGS: "})
    if (text.rfind(prefix, 0) == 0)
      args = text.substr(std::strlen(prefix), text.find('\n') - std::strlen(prefix));
  fs::path out = test::scratch_dir("error-golden-" + c.dir + "-" + c.name) / "out";
  Result r = teval("run " + c.name + c.extension + " " + args + " -o '" + out.string() + "'", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(out)) << "output written despite the error";
  std::string failure = test::check_golden(dir / (c.name + ".err"), r.err);
  EXPECT_TRUE(failure.empty()) << failure;
  // The lowered loop nest, compiled code and the DSP report the very same
  // diagnostic.
  for (const char* engine : {"ireval", "jit", "hexagon"}) {
    Result e = teval("run " + c.name + c.extension + " " + args + " --engine " + engine + " -o '" +
                         out.string() + "'",
                     dir);
    EXPECT_EQ(e.exit_code, 1) << engine;
    EXPECT_EQ(e.out, "") << engine;
    EXPECT_EQ(e.err, r.err) << engine;
    EXPECT_FALSE(fs::exists(out)) << engine << ": output written despite the error";
  }
}

std::vector<ErrorCase> error_cases() {
  std::vector<ErrorCase> cases;
  for (auto [dir, extension] :
       {std::pair{"antares", ".antares"}, std::pair{"tile", ".tile"}, std::pair{"mlir", ".mlir"}})
    for (const fs::path& p :
         test::files_with_extension(test::source_dir() / "tests/errors" / dir, extension))
      cases.push_back({dir, p.stem().string(), extension});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(All, ErrorGolden, ::testing::ValuesIn(error_cases()),
                         [](const auto& info) { return info.param.dir + "_" + info.param.name; });

// The memory budget (--max-memory, default 8 GiB) is checked against all
// of a program's tensors before anything is allocated; an allocation the
// machine refuses within the budget is a diagnostic too, never an abort
// (docs/LIMITS.md).
TEST(Cli, MemoryIsBudgetedAndExhaustionIsAnError) {
  fs::path dir = test::scratch_dir("cli-memory");
  const std::string add = "run -e 'output0[N] = input0[N] + 1.0' -i input0=float32[1000] -o out";
  Result r = teval(add + " --max-memory 7999", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "<command line>:1:1: error: the program's tensors take 8000 bytes in all with "
                   "`output0` (4000 bytes), beyond the memory budget of 7999 bytes; --max-memory "
                   "raises it\noutput0[N] = input0[N] + 1.0\n^~~~~~~~~~\n");
  EXPECT_FALSE(fs::exists(dir / "out"));
  EXPECT_EQ(teval(add + " --max-memory 8000", dir).exit_code, 0);
  EXPECT_TRUE(fs::exists(dir / "out/output0.npy"));
  for (const char* bad : {"0", "-1", "5Q", "K", "99999999999T"})
    EXPECT_EQ(teval(add + " --max-memory " + bad, dir).exit_code, 2) << bad;
  EXPECT_EQ(teval("lower -e 'o[N] = x[N]' -i x=float32[4] --max-memory 16", dir).exit_code, 1);
  // 1G is 2^30: 2^28 floats in and out take 2^31 bytes.
  r = teval("run -e 'o[N] = x[N]' -i x=float32[268435456] --max-memory 1G", dir);
  EXPECT_NE(r.err.find("memory budget of 1073741824 bytes"), std::string::npos) << r.err;

#if defined(TEVAL_TEST_ASAN)
  GTEST_SKIP() << "AddressSanitizer needs more address space than the limit below leaves";
#endif
  // 2 GB of address space, within the default budget: a 2.4 GB output
  // cannot be allocated.
  r = test::run_shell("ulimit -v 2000000; '" + (test::binary_dir() / "bin/teval").string() +
                          "' run -e 'o[N] = N where N in 600000000' -o big",
                      dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "teval run: error: out of memory; the machine has less free than the memory "
                   "budget allows (--max-memory lowers it)\n");
  EXPECT_FALSE(fs::exists(dir / "big"));
}

// --timeout stops an evaluation on every engine: an error, nothing written.
TEST(Cli, TimeoutStopsTheEvaluation) {
  fs::path dir = test::scratch_dir("cli-timeout");
  for (const char* engine : {"interp", "ireval", "jit"}) {
    Result r = teval(std::string("run -e 'o[N] +=! x[N] * x[K % 10] + x[J % 10] where K in "
                                 "1000000000, J in 100, N in 10' -i x=float32[10] -o out "
                                 "--timeout 0.5 --engine ") +
                         engine,
                     dir);
    EXPECT_EQ(r.exit_code, 1) << engine;
    EXPECT_EQ(r.err, "<command line>: error: the evaluation did not finish within --timeout 0.5 "
                     "s; nothing was written\n")
        << engine;
    EXPECT_FALSE(fs::exists(dir / "out")) << engine;
  }
  for (const char* bad : {"0", "-2", "x", "1e7", "nan"})
    EXPECT_EQ(
        teval(std::string("run -e 'o[N] = x[N]' -i x=float32[2] --timeout ") + bad, dir).exit_code,
        2)
        << bad;
  EXPECT_EQ(teval("run -e 'o[N] = x[N]' -i x=float32[2] --timeout 60", dir).exit_code, 0);
}

} // namespace
} // namespace teval
