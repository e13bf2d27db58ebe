// MLIR functions through `teval run` and `teval lower`, and the reader
// against the real MLIR printer (mlir-opt-19, installed by scripts/dev).
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

namespace fs = std::filesystem;

using test::Result;

Result teval(const std::string& args, const fs::path& cwd) {
  return test::run_teval(args, cwd);
}

fs::path examples() {
  return test::source_dir() / "examples/byteir";
}

TEST(MlirCli, EnginesWriteTheSameResultFiles) {
  fs::path dir = test::scratch_dir("mlir-engines");
  std::string graph = (examples() / "graph.mlir").string();
  for (const char* engine : {"interp", "ireval", "jit"}) {
    Result r = teval("run " + graph + " --seed 4 --engine " + engine + " -o " + engine, dir);
    ASSERT_EQ(r.exit_code, 0) << engine << ": " << r.err;
    EXPECT_EQ(r.out, "");
  }
  for (const char* file : {"result0.npy", "result1.npy"})
    for (const char* engine : {"ireval", "jit"})
      EXPECT_EQ(test::read_file(dir / "interp" / file), test::read_file(dir / engine / file))
          << engine << " " << file;
}

TEST(MlirCli, TheDecompositionIsAProgramTevalRuns) {
  // `teval lower` prints a COMPUTE_V1 program; run as Antares on the same
  // inputs, it gives the function's results.
  fs::path dir = test::scratch_dir("mlir-lower");
  std::string softmax = (examples() / "softmax.mlir").string();
  std::string x = (test::source_dir() / "tests/data/byteir/x.npy").string();
  Result lower = teval("lower " + softmax, dir);
  ASSERT_EQ(lower.exit_code, 0) << lower.err;
  EXPECT_EQ(lower.out,
            "- einstein_v2(\"\"\"\n"
            "v0_max[D0, D1] >=! arg0[D0, K1] where D0 in 3, D1 in 1;\n"
            "v0_exp[D0, D1] = (arg0[D0, D1] - v0_max[D0, 0]).call(`exp`) where D0 in 3, D1 in 5;\n"
            "v0_sum[D0, D1] +=! v0_exp[D0, K1] where D0 in 3, D1 in 1;\n"
            "v0[D0, D1] = v0_exp[D0, D1] / v0_sum[D0, 0] where D0 in 3, D1 in 5;\n"
            "result0[D0, D1] = v0[D0, D1] where D0 in 3, D1 in 5\n"
            "\"\"\", input_dict={\"arg0\": {\"dtype\": \"float32\", \"shape\": [3, 5]}})\n");
  test::write_file(dir / "softmax.antares", lower.out);
  ASSERT_EQ(teval("run softmax.antares -i arg0=" + x + " -o antares", dir).exit_code, 0);
  ASSERT_EQ(teval("run " + softmax + " -i arg0=" + x + " -o mlir", dir).exit_code, 0);
  EXPECT_EQ(test::read_file(dir / "antares/result0.npy"),
            test::read_file(dir / "mlir/result0.npy"));
}

TEST(MlirCli, InputsAreCheckedAndNamedByPosition) {
  fs::path dir = test::scratch_dir("mlir-inputs");
  std::string gelu = (examples() / "gelu.mlir").string();
  Result r = teval("run " + gelu + " -i arg0=float32[2,7] --print", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("result0 = array([[", 0), 0u);
  EXPECT_NE(r.out.find("result1 = array([["), std::string::npos);
  r = teval("run " + gelu + " -i arg0=float32[2,7] -i x=float32[2] --print", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "-i x=float32[2]: error: the program has no input `x`; its inputs are: arg0\n");
  EXPECT_EQ(teval("run " + gelu + " -p n=2", dir).exit_code, 2);
  // --exact runs the decomposition in exact mode (its values:
  // python/tests/test_program_mlir.py).
  r = teval("run " + gelu + " --exact -i arg0=float32[2,7]", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("result0 = array([[", 0), 0u);
}

// The generic form as the real MLIR printer writes it reads as the file
// does: every example mlir-opt-19 can parse (those whose ops are all in
// generic form or registered dialects), printed generic with and without
// locations, gives the same results.
TEST(MlirCli, TheRealPrintersGenericFormReadsTheSame) {
  fs::path dir = test::scratch_dir("mlir-opt");
  int printed = 0;
  for (const fs::path& example : test::files_with_extension(examples(), ".mlir")) {
    std::string name = example.stem().string();
    // A dynamic dimension (the examples have them only in arg0 of ?x7)
    // needs its input; static arguments get seeded random data.
    bool dynamic = test::read_file(example).find("tensor<?") != std::string::npos;
    std::string inputs = dynamic ? " -i arg0=float32[5,7]" : "";
    Result original = teval("run " + example.string() + inputs + " --seed 2 -o " + name, dir);
    ASSERT_EQ(original.exit_code, 0) << name << ": " << original.err;
    for (const char* debuginfo : {"", " --mlir-print-debuginfo"}) {
      std::string again_dir = name + (*debuginfo ? "_loc" : "") + "_again";
      std::string generic = again_dir + ".mlir";
      Result opt =
          test::run_shell("mlir-opt-19 --allow-unregistered-dialect "
                          "--mlir-print-op-generic" +
                              std::string(debuginfo) + " " + example.string() + " > " + generic,
                          dir);
      if (opt.exit_code != 0) {
        // Unregistered dialects' pretty forms (stablehlo.add %a, %b : T)
        // need their dialect: mlir-opt says so.
        EXPECT_NE(opt.err.find("custom op"), std::string::npos) << name << ": " << opt.err;
        continue;
      }
      Result again = teval("run " + generic + inputs + " --seed 2 -o " + again_dir, dir);
      ASSERT_EQ(again.exit_code, 0) << generic << ": " << again.err;
      for (const fs::path& out : test::files_with_extension(dir / name, ".npy"))
        EXPECT_EQ(test::read_file(out), test::read_file(dir / again_dir / out.filename()))
            << generic;
      ++printed;
    }
  }
  EXPECT_GE(printed, 4) << "mlir-opt-19 parsed too few examples (is mlir-19-tools installed?)";
}

} // namespace
} // namespace teval
