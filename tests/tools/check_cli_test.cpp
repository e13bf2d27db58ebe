// `teval check` as CI scripts run it: verdicts in words and JSON, exit
// codes, and the errors of its arguments.
#include "core/npy.h"
#include "tests/support/programs.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

namespace teval {
namespace {

namespace fs = std::filesystem;
using test::Result;

const char* const kProgram = "-e 'output0[N] +=! input0[N, K] * input1[K]'";

void save(const fs::path& path, const core::Tensor& t) {
  std::ofstream out(path, std::ios::binary);
  std::string bytes = core::encode_npy(t);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Inputs 1..6 and ones: the exact results are 6 and 15.
fs::path setup(const std::string& name) {
  fs::path dir = test::scratch_dir(name);
  save(dir / "a.npy", test::tensor(core::DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  save(dir / "b.npy", test::tensor(core::DType::Float32, {3}, {1, 1, 1}));
  return dir;
}

Result check(const fs::path& dir, const std::string& more) {
  return test::run_teval(
      std::string("check ") + kProgram + " -i input0=a.npy -i input1=b.npy " + more, dir);
}

TEST(Check, ExactCandidatePasses) {
  fs::path dir = setup("check_exact");
  save(dir / "c.npy", test::tensor(core::DType::Float32, {2}, {6, 15}));
  Result r = check(dir, "--candidate output0=c.npy");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "output0: exact (bit-equal to the exact and the sequential result)\n");
  r = check(dir, "--candidate output0=c.npy --ulp 0");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Check, MismatchNamesTheWorstElement) {
  fs::path dir = setup("check_mismatch");
  save(dir / "c.npy", test::tensor(core::DType::Float32, {2}, {6, 16}));
  Result r = check(dir, "--candidate output0=c.npy");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("output0: mismatch (value): element [1] is 16.0; the exact result is "
                       "15.0 and every legal result is in [15.0, 15.0]"),
            std::string::npos)
      << r.out;
  // The whole JSON object, as CI scripts read it (schema teval.check/1).
  r = check(dir, "--candidate output0=c.npy --json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(
      r.out,
      R"({"schema": "teval.check/1", "verdict": "fail", "rule": "rigorous", "fma": false, )"
      R"("outputs": [{"name": "output0", "status": "mismatch", "kind": "value", "message": )"
      R"("element [1] is 16.0; the exact result is 15.0 and every legal result is in )"
      R"([15.0, 15.0]", "elements": 2, "mismatches": 1, "unbounded": 0, )"
      R"("inconclusive": 0, )"
      R"("exact_match": false, "sequential_match": false, "max_ulps": 0, "max_fraction": 0, )"
      R"("worst": {"index": [1], "candidate": "16.0", "exact": "15.0", "bound": {"lo": )"
      R"("15.0", "hi": "15.0", "nan": false, "any": false}, "ulps": 1048576, )"
      R"("fraction": 0, "depends_on": [{"tensor": "input0", "index": [1, 0], "value": "4.0"}, )"
      R"({"tensor": "input1", "index": [0], "value": "1.0"}, {"tensor": "input0", "index": )"
      R"([1, 1], "value": "5.0"}, {"tensor": "input1", "index": [1], "value": "1.0"}, )"
      R"({"tensor": "input0", "index": [1, 2], "value": "6.0"}, {"tensor": "input1", )"
      R"("index": [2], "value": "1.0"}], "depends_on_count": 6}}], "unchecked": []})"
      "\n");
  // allclose-style rules judge against the exact result.
  EXPECT_EQ(check(dir, "--candidate output0=c.npy --rtol 0.1").exit_code, 0);
  EXPECT_EQ(check(dir, "--candidate output0=c.npy --atol 0.5").exit_code, 1);
}

// The program is a contraction: teval check computes it from its terms (the
// fast check); --walk walks it point by point, and says the same, word for
// word, in text and in JSON.
TEST(Check, TheWalkSaysWhatTheFastCheckSays) {
  fs::path dir = setup("check_walk");
  save(dir / "exact.npy", test::tensor(core::DType::Float32, {2}, {6, 15}));
  save(dir / "near.npy", test::tensor(core::DType::Float32, {2}, {6, 15.000001}));
  save(dir / "wrong.npy", test::tensor(core::DType::Float32, {2}, {6, 16}));
  for (const char* candidate : {"exact.npy", "near.npy", "wrong.npy"})
    for (const char* json : {"", " --json", " --fma --json"}) {
      std::string more = std::string("--candidate output0=") + candidate + json;
      Result fast = check(dir, more), walk = check(dir, more + " --walk");
      EXPECT_EQ(walk.exit_code, fast.exit_code) << more;
      EXPECT_EQ(walk.out, fast.out) << more;
      EXPECT_EQ(walk.err, fast.err) << more;
    }
}

// The memory budget counts what teval check keeps besides the program's
// tensors (an exact value, an interval and a reduction's accumulators for
// each element): a program that runs within --max-memory may not be
// checkable within it, and says so before anything is evaluated.
TEST(Check, TheOraclesMemoryIsInTheBudget) {
  fs::path dir = test::scratch_dir("check_memory");
  const std::string program =
      "-e 'output0[N, M] +=! input0[N, K] * input1[K, M]' -i input0=float32[64,4] "
      "-i input1=float32[4,512] --seed 3";
  Result run = test::run_teval("run " + program + " -o out --max-memory 1M", dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Result r = test::run_teval(
      "check " + program + " --candidate output0=out/output0.npy --max-memory 1M", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("error: checking the program needs about "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bytes for exact values and bounds besides its tensors' 140288, beyond "
                       "the memory budget of 1048576 bytes; --max-memory raises it"),
            std::string::npos)
      << r.err;
  r = test::run_teval("check " + program + " --candidate output0=out/output0.npy --max-memory 64M",
                      dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Check, ShapeDtypeAndNaNAreMismatchesOfTheirOwn) {
  fs::path dir = setup("check_kinds");
  save(dir / "shape.npy", test::tensor(core::DType::Float32, {3}, {6, 15, 0}));
  save(dir / "dtype.npy", test::tensor(core::DType::Float64, {2}, {6, 15}));
  save(dir / "nan.npy", test::tensor(core::DType::Float32, {2}, {NAN, 15}));
  EXPECT_NE(check(dir, "--candidate output0=shape.npy").out.find("mismatch (shape)"),
            std::string::npos);
  EXPECT_NE(check(dir, "--candidate output0=dtype.npy").out.find("mismatch (dtype)"),
            std::string::npos);
  Result r = check(dir, "--candidate output0=nan.npy");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("mismatch (nan)"), std::string::npos) << r.out;
}

// The float16 sum of 2048 ones, which had no finite bound (n·u = 1, so
// gamma(n) is infinite) and passed NaN, -7, 0, +inf and 8192: every partial
// sum of every order is an integer of at most 2048, a float16 value, so
// 2048 is the one legal result and every other value is a mismatch.
TEST(Check, TheFloat16SumOf2048OnesHasOneLegalResult) {
  fs::path dir = test::scratch_dir("check_2048_ones");
  core::Tensor x(core::DType::Float16, {2048});
  x.fill(core::Scalar::of_float(core::DType::Float16, 1.0));
  save(dir / "x.npy", x);
  auto run = [&](double value) {
    save(dir / "c.npy", test::tensor(core::DType::Float16, {}, {value}));
    return test::run_teval("check -e 'o[] +=! x[N]' -i x=x.npy --candidate o=c.npy", dir);
  };
  Result r = run(2048);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "o: exact (bit-equal to the exact and the sequential result)\n");
  for (double wrong : {double(NAN), -7.0, 0.0, double(INFINITY), 8192.0, 2047.0}) {
    r = run(wrong);
    EXPECT_EQ(r.exit_code, 1) << wrong << ": " << r.out;
    EXPECT_NE(r.out.find("the exact result is 2048.0 and every legal result is in [2048.0, "
                         "2048.0]"),
              std::string::npos)
        << r.out;
  }
}

// An element whose bound is not finite (here a float16 sum whose partial
// sums may overflow: 60000 + 60000 is +inf, the sequential result, though
// the exact sum is 60000; the bound is [59840, +inf]) passes only at the
// exact or the sequential value; another value inside that bound gets no
// verdict (exit 3, "inconclusive"), never the vacuous pass it once had, and
// a value outside it (NaN, or below 59840) is a mismatch.
// A scratch directory holding x.npy: the float16 terms 60000, 60000, -60000.
fs::path float16_overflow(const std::string& name) {
  fs::path dir = test::scratch_dir(name);
  save(dir / "x.npy", test::tensor(core::DType::Float16, {3}, {60000, 60000, -60000}));
  return dir;
}

TEST(Check, AnElementWithoutAFiniteBoundIsInconclusiveNotAPass) {
  fs::path dir = float16_overflow("check_inconclusive");
  auto run = [&](double value, const std::string& more = "") {
    save(dir / "c.npy", test::tensor(core::DType::Float16, {}, {value}));
    return test::run_teval("check -e 'o[] +=! x[N]' -i x=x.npy --candidate o=c.npy " + more, dir);
  };
  Result r = run(60000);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "o: exact (bit-equal to the exact result); 1 of 1 elements have no finite "
                   "bound\n");
  r = run(INFINITY);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "o: exact (bit-equal to the sequential result); 1 of 1 elements have no "
                   "finite bound\n");
  for (double wrong : {double(NAN), -7.0, 0.0, 8192.0, 59808.0}) {
    r = run(wrong);
    EXPECT_EQ(r.exit_code, 1) << wrong << ": " << r.out;
    EXPECT_NE(r.out.find("every legal result is in [59840.0, inf]"), std::string::npos) << r.out;
  }
  for (double undecided : {59840.0, 60032.0, 65504.0}) {
    r = run(undecided);
    EXPECT_EQ(r.exit_code, 3) << undecided << ": " << r.out;
    EXPECT_NE(r.out.find("o: inconclusive: 1 of 1 elements have no finite bound and are neither "
                         "the exact nor the sequential result"),
              std::string::npos)
        << r.out;
  }
  r = run(65504, "--json");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.out.find(R"("verdict": "inconclusive")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("status": "inconclusive")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("unbounded": 1, "inconclusive": 1)"), std::string::npos) << r.out;
  // The tolerance rules are not the bound's: they decide as before.
  EXPECT_EQ(run(60032, "--ulp 1").exit_code, 0);
  EXPECT_EQ(run(60032, "--rtol 0 --atol 0").exit_code, 1);
}

// An output with both a mismatch and an undecided element fails: a
// mismatch anywhere decides the check.
TEST(Check, AMismatchOutweighsAnInconclusiveOutput) {
  fs::path dir = float16_overflow("check_fail_over_inconclusive");
  save(dir / "s.npy", test::tensor(core::DType::Float16, {}, {60032}));
  save(dir / "t.npy", test::tensor(core::DType::Float16, {}, {5}));
  Result r = test::run_teval(
      "check -e '- einstein_v2(\"s[] +=! x[N]; t[] = x[0] * const(2.0).cast(`float16`)\", "
      "input_dict={\"x\": {\"dtype\": \"float16\", \"shape\": [3]}}, extra_outputs=[\"s\"])' "
      "-i x=x.npy --candidate s=s.npy --candidate t=t.npy --json",
      dir);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find(R"("verdict": "fail")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("status": "inconclusive")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("status": "mismatch")"), std::string::npos) << r.out;
}

// A candidate of the wrong dtype or shape fails at once: the program is
// not evaluated (here its evaluation would be an error, integer division by
// zero), and the other candidates are named as not judged.
TEST(Check, AWrongDtypeOrShapeFailsBeforeAnyEvaluation) {
  fs::path dir = test::scratch_dir("check_type_first");
  save(dir / "x.npy", test::tensor(core::DType::Int32, {3}, {1, 2, 3}));
  save(dir / "wide.npy", test::tensor(core::DType::Float64, {3}, {1, 2, 3}));
  save(dir / "ok.npy", test::tensor(core::DType::Int32, {3}, {1, 2, 3}));
  const std::string program =
      "check -e '- einstein_v2(\"a[N] = x[N] / 0; b[N] = a[N] + 1\", input_dict={\"x\": "
      "{\"dtype\": \"int32\", \"shape\": [3]}}, extra_outputs=[\"a\"])' -i x=x.npy ";
  Result r = test::run_teval(program + "--candidate a=ok.npy --candidate b=wide.npy", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "b: mismatch (dtype): the candidate is float64 but the program's output `b` "
                   "is int32\na: not judged (a candidate's dtype or shape is wrong, so nothing "
                   "was evaluated)\n");
  EXPECT_EQ(r.err, "");
  r = test::run_teval(program + "--candidate a=ok.npy --candidate b=wide.npy --json", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find(R"("verdict": "fail")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("unjudged": ["a"])"), std::string::npos) << r.out;
  // With the right types the evaluation runs, and its error is the answer.
  r = test::run_teval(program + "--candidate a=ok.npy", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("integer division by zero"), std::string::npos) << r.err;
}

// Under --ulp and --rtol/--atol a pass says which rule it met, not how much
// of the rigorous bound it used.
TEST(Check, ATolerancePassNamesItsRule) {
  fs::path dir = setup("check_tolerance_words");
  save(dir / "c.npy", test::tensor(core::DType::Float32, {2}, {6, 15.5}));
  Result r = check(dir, "--candidate output0=c.npy --rtol 0.1 --atol 0");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "output0: within-bound (within the tolerance asked): largest error 524288 "
                   "ulp (at [1])\n");
  r = check(dir, "--candidate output0=c.npy --ulp 600000");
  EXPECT_EQ(r.out, "output0: within-bound (within the ulps asked): largest error 524288 ulp "
                   "(at [1])\n");
}

// --math-ulp sets the error allowance of math functions: exp(0.7f) three
// ulps above its rounded-up value is legal by the measured table (4 ulps),
// by --math-ulp exp=3, not by --math-ulp 0 (faithful) or exp=2.
TEST(Check, MathUlpSetsTheAllowanceOfMathFunctions) {
  fs::path dir = test::scratch_dir("check_math_ulp");
  save(dir / "x.npy", test::tensor(core::DType::Float32, {1}, {0.7}));
  float v = 2.0137526988983154f; // exp(0.7f) rounded up (and to nearest)
  for (int i = 0; i < 3; ++i)
    v = std::nextafter(v, 3.f);
  save(dir / "c.npy", test::tensor(core::DType::Float32, {1}, {v}));
  auto run = [&](const std::string& more) {
    return test::run_teval(
        "check -e 'o[N] = x[N].call(`exp`)' -i x=x.npy --candidate o=c.npy " + more, dir);
  };
  EXPECT_EQ(run("").exit_code, 0);
  EXPECT_EQ(run("--math-ulp exp=3").exit_code, 0);
  EXPECT_EQ(run("--math-ulp 0").exit_code, 1);
  EXPECT_EQ(run("--math-ulp exp=2").exit_code, 1);
  EXPECT_EQ(run("--math-ulp 9 --math-ulp exp=2").exit_code, 1); // the function's own wins
  Result r = run("--math-ulp abs=1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--math-ulp: `abs` is not a math function; they are: exp, log,"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(run("--math-ulp many").exit_code, 2);
  r = run("--ulp 1 --math-ulp 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--math-ulp sets the rigorous bound"), std::string::npos) << r.err;
}

// --excess-precision: float16 300 · 300 / 4 is +inf in float16 and 22496
// when the product is kept in float32, as libraries computing float16 in
// float32 give.
TEST(Check, ExcessPrecisionLetsFloat16BeKeptInFloat32) {
  fs::path dir = test::scratch_dir("check_excess");
  save(dir / "x.npy", test::tensor(core::DType::Float16, {1}, {300}));
  save(dir / "z.npy", test::tensor(core::DType::Float16, {1}, {4}));
  save(dir / "c.npy", test::tensor(core::DType::Float16, {1}, {22496}));
  auto run = [&](const std::string& more) {
    return test::run_teval("check -e 'o[N] = x[N] * x[N] / z[N]' -i x=x.npy -i z=z.npy "
                           "--candidate o=c.npy " +
                               more,
                           dir);
  };
  EXPECT_EQ(run("").exit_code, 1);
  Result r = run("--excess-precision --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(R"("fma": false, "excess_precision": true, "outputs": [)"),
            std::string::npos)
      << r.out;
  r = run("--excess-precision --ulp 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--excess-precision widens the rigorous bound"), std::string::npos);
}

TEST(Check, ArgumentErrors) {
  fs::path dir = setup("check_errors");
  save(dir / "c.npy", test::tensor(core::DType::Float32, {2}, {6, 15}));
  Result r = check(dir, "");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no candidate"), std::string::npos);
  EXPECT_EQ(check(dir, "--candidate output0=c.npy --ulp 1 --rtol 1").exit_code, 2);
  // An option of teval run that check does not take is named.
  for (const char* option : {"-o out", "--engine jit", "--order any", "--exact"}) {
    r = check(dir, std::string("--candidate output0=c.npy ") + option);
    EXPECT_EQ(r.exit_code, 2) << option;
    std::string name = std::string(option).substr(0, std::string(option).find(' '));
    EXPECT_NE(r.err.find("teval check: " + name +
                         " is not an option of teval check: it takes "
                         "the program options only"),
              std::string::npos)
        << r.err;
  }
  r = check(dir, "--candidate result=c.npy");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the program has no output `result`; its outputs are: output0"),
            std::string::npos)
      << r.err;
  r = check(dir, "--candidate output0=missing.npy --json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("\"verdict\": \"error\""), std::string::npos);
}

TEST(Check, TileFunctionsAndComputeV1Lines) {
  fs::path dir = test::scratch_dir("check_tile");
  test::write_file(dir / "f.tile", "Tensor sum_rows(const Tensor& A) {\n"
                                   "  TensorDim M, N; TensorIndex i, j;\n"
                                   "  A.bind_dims(M, N);\n"
                                   "  auto O = TensorOutput(M);\n"
                                   "  O(i) += A(i, j);\n"
                                   "  return O;\n}\n");
  save(dir / "a.npy", test::tensor(core::DType::Float32, {2, 2}, {1, 2, 3, 4}));
  save(dir / "o.npy", test::tensor(core::DType::Float32, {2}, {3, 7}));
  Result r = test::run_teval("check f.tile --entry sum_rows -i A=a.npy --candidate O=o.npy", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "O: exact (bit-equal to the exact and the sequential result)\n");
  test::write_file(dir / "line.antares",
                   "COMPUTE_V1='- einstein_v2(\"output0[N] +=! input0[N, K]\", "
                   "{\"input0\": {\"dtype\": \"float32\", \"shape\": [2, 2]}})' make\n");
  r = test::run_teval("check line.antares -i input0=a.npy --candidate output0=o.npy", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Seeded random inputs, as teval run makes them.
  r = test::run_teval("check line.antares --seed 3 --candidate output0=o.npy", dir);
  EXPECT_EQ(r.exit_code, 1);
}

TEST(Check, OutputsWithoutACandidateAreNamed) {
  fs::path dir = setup("check_unchecked");
  save(dir / "c.npy", test::tensor(core::DType::Float32, {2}, {6, 15}));
  test::write_file(dir / "two.antares",
                   "- einstein_v2(\"output0[N] +=! input0[N, K] * input1[K]; output1[N] = "
                   "output0[N] * 2.0\", input_dict={\"input0\": {\"dtype\": \"float32\", "
                   "\"shape\": [2, 3]}, \"input1\": {\"dtype\": \"float32\", \"shape\": [3]}}, "
                   "extra_outputs=[\"output0\"])\n");
  std::string cmd = "check two.antares -i input0=a.npy -i input1=b.npy --candidate output0=c.npy";
  Result r = test::run_teval(cmd, dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "output0: exact (bit-equal to the exact and the sequential result)\n"
                   "output1: not checked (no --candidate)\n");
  r = test::run_teval(cmd + " --json", dir);
  EXPECT_NE(r.out.find("\"unchecked\": [\"output1\"]"), std::string::npos) << r.out;
}

TEST(Check, RunExactRoundsEachSumOnce) {
  // 1 + sixteen 2^-24: sequentially 1.0, exactly 1 + 2^-20.
  fs::path dir = test::scratch_dir("check_run_exact");
  std::vector<double> v{1.0};
  for (int i = 0; i < 16; ++i)
    v.push_back(std::ldexp(1.0, -24));
  core::Tensor x(core::DType::Float32, {1, 17});
  for (int i = 0; i < 17; ++i)
    x.set(i, core::Scalar::of_float(core::DType::Float32, v[i]));
  save(dir / "x.npy", x);
  std::string prog = "run -e 'output0[N] +=! input0[N, K]' -i input0=x.npy";
  EXPECT_EQ(test::run_teval(prog, dir).out, "output0 = array([1.0], dtype=float32)\n");
  EXPECT_EQ(test::run_teval(prog + " --exact", dir).out,
            "output0 = array([1.000001], dtype=float32)\n");
}

} // namespace
} // namespace teval
