// `teval rules` as users run it, against golden files (tests/data/htp):
// accept/ files must check clean (their --json report and expansion are
// golden), reject/ files must fail with golden diagnostics, apply/ graphs
// are rewritten by the rules their first line names, and verify/ rule files
// get golden verdicts against examples/htp/ops.txt (or teval's standard ops).
#include "rules/htp_ops.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

namespace fs = std::filesystem;

test::Result rules(const std::string& args) {
  return test::run_teval("rules " + args, test::source_dir());
}

std::vector<std::string> names(const std::string& dir, const std::string& extension) {
  std::vector<std::string> out;
  for (const fs::path& p :
       test::files_with_extension(test::source_dir() / "tests/data/htp" / dir, extension))
    out.push_back(p.stem().string());
  return out;
}

std::string rel(const std::string& dir, const std::string& file) {
  return "tests/data/htp/" + dir + "/" + file;
}

fs::path golden(const std::string& dir, const std::string& file) {
  return test::source_dir() / rel(dir, file);
}

class AcceptedRules : public testing::TestWithParam<std::string> {};

TEST_P(AcceptedRules, CheckCleanAndExpand) {
  std::string file = rel("accept", GetParam() + ".cpp");
  test::Result r = rules("check --json " + file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string failure =
      test::check_golden(golden("accept", GetParam() + ".check"), r.out + "--- stderr\n" + r.err);
  EXPECT_TRUE(failure.empty()) << failure;
  r = rules("expand " + file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  failure = test::check_golden(golden("accept", GetParam() + ".expand"), r.out);
  EXPECT_TRUE(failure.empty()) << failure;
}

INSTANTIATE_TEST_SUITE_P(Corpus, AcceptedRules, testing::ValuesIn(names("accept", ".cpp")));

class RejectedRules : public testing::TestWithParam<std::string> {};

TEST_P(RejectedRules, FailWithGoldenDiagnostics) {
  test::Result r = rules("check " + rel("reject", GetParam() + ".cpp"));
  EXPECT_EQ(r.exit_code, 1);
  std::string failure = test::check_golden(golden("reject", GetParam() + ".err"), r.err + r.out);
  EXPECT_TRUE(failure.empty()) << failure;
  // expand prints the rules that are not malformed (those with warnings
  // only; golden NAME.expand) and the same diagnostics.
  test::Result e = rules("expand " + rel("reject", GetParam() + ".cpp"));
  EXPECT_EQ(e.exit_code, 1);
  failure = test::check_golden(golden("reject", GetParam() + ".expand"), e.out);
  EXPECT_TRUE(failure.empty()) << failure;
  EXPECT_EQ(e.err, r.err);
}

INSTANTIATE_TEST_SUITE_P(Corpus, RejectedRules, testing::ValuesIn(names("reject", ".cpp")));

TEST(RulesCli, ExpandPrintsEveryGoodRuleAndReportsTheBadOnes) {
  fs::path dir = test::scratch_dir("rules-expand-mixed");
  test::write_file(dir / "mixed.cpp",
                   "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, Op(\"B\", \"x\"))\n"
                   "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK)\n"
                   "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"C\", \"x\"), IS_QUINT8(\"x\"), "
                   "Op(\"D\", \"x\"))\n");
  test::Result r = test::run_teval("rules expand mixed.cpp", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "// mixed.cpp:1\nDEF_PACKAGE_OPTIMIZATION(EARLY,\n    Op(\"A\", \"x\"),\n    OK,\n"
            "    Op(\"B\", \"x\"))\n\n// mixed.cpp:3\nDEF_PACKAGE_OPTIMIZATION(EARLY,\n"
            "    Op(\"C\", \"x\"),\n    EQ(DTYPE_OF(\"x\"), DType::QUInt8),\n"
            "    Op(\"D\", \"x\"))\n\n");
  EXPECT_EQ(r.err.rfind("mixed.cpp:2:1: error: DEF_PACKAGE_OPTIMIZATION takes 4 arguments", 0), 0u)
      << r.err;
}

class AppliedRules : public testing::TestWithParam<std::string> {};

// apply/NAME.graph starts with `# RULES: FILE`; NAME.out is the rewritten
// graph and the log, or the diagnostic.
TEST_P(AppliedRules, RewriteGoldenGraphs) {
  std::string graph = rel("apply", GetParam() + ".graph");
  std::string text = test::read_file(test::source_dir() / graph);
  ASSERT_EQ(text.rfind("# RULES: ", 0), 0u) << graph;
  std::string rules_file = text.substr(9, text.find('\n') - 9);
  test::Result r = rules("apply " + rel("apply", rules_file) + " --graph " + graph);
  std::string failure = test::check_golden(golden("apply", GetParam() + ".out"),
                                           "exit " + std::to_string(r.exit_code) + "\n" + r.out +
                                               "--- stderr\n" + r.err);
  EXPECT_TRUE(failure.empty()) << failure;
}

INSTANTIATE_TEST_SUITE_P(Corpus, AppliedRules, testing::ValuesIn(names("apply", ".graph")));

class VerifiedRules : public testing::TestWithParam<std::string> {};

// A file may ask for more options on a line `// verify flags: ...`.
TEST_P(VerifiedRules, GoldenVerdicts) {
  std::string text = test::read_file(test::source_dir() / rel("verify", GetParam() + ".cpp"));
  std::string flags;
  if (size_t at = text.find("// verify flags: "); at != std::string::npos)
    flags = " " + text.substr(at + 17, text.find('\n', at) - at - 17);
  // `// verify ops: standard` verifies with teval's standard ops alone.
  std::string ops = text.find("// verify ops: standard") == std::string::npos
                        ? " --ops examples/htp/ops.txt"
                        : "";
  test::Result r =
      rules("verify " + rel("verify", GetParam() + ".cpp") + ops + " --cases 40 --seed 7" + flags);
  bool unsound = r.out.find(": unsound") != std::string::npos;
  EXPECT_EQ(r.exit_code, unsound ? 1 : 0) << r.err;
  std::string failure =
      test::check_golden(golden("verify", GetParam() + ".out"), r.out + "--- stderr\n" + r.err);
  EXPECT_TRUE(failure.empty()) << failure;
}

INSTANTIATE_TEST_SUITE_P(Corpus, VerifiedRules, testing::ValuesIn(names("verify", ".cpp")));

TEST(RulesCli, Usage) {
  EXPECT_EQ(rules("").exit_code, 2);
  EXPECT_EQ(rules("frobnicate x.cpp").exit_code, 2);
  EXPECT_EQ(rules("check").exit_code, 2);
  EXPECT_EQ(rules("expand a.cpp b.cpp").exit_code, 2);
  EXPECT_EQ(rules("apply examples/htp/split_rules.cpp").exit_code, 2);
  EXPECT_EQ(rules("ops x.txt").exit_code, 2);
  EXPECT_EQ(rules("verify examples/htp/split_rules.cpp --ops").exit_code, 2);
  EXPECT_EQ(rules("verify examples/htp/split_rules.cpp --ops x --cases -3").exit_code, 2);
  EXPECT_EQ(rules("check --graph g examples/htp/split_rules.cpp").exit_code, 2);
  // Numbers out of range are usage errors, never wrapped or clamped.
  test::Result big = rules("verify examples/htp/split_rules.cpp --ops x --line 4294967305");
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_EQ(big.err.rfind("teval rules: --line is at most 4294967295, not 4294967305", 0), 0u)
      << big.err;
  EXPECT_EQ(rules("verify examples/htp/split_rules.cpp --ops x --cases 0").exit_code, 2);
  EXPECT_EQ(rules("verify examples/htp/split_rules.cpp --ops x --cases 2000000").exit_code, 2);
  test::Result r = rules("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("teval rules verify FILE [--ops OPS]"), std::string::npos);
  // Without --ops, verify takes the op meanings from teval's standard ops,
  // which `rules ops` prints (and reads back as an ops file).
  r = rules("verify examples/htp/split_rules.cpp --cases 10");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("2 sound, 1 unsound, 0 unverifiable"), std::string::npos) << r.out;
  r = rules("ops");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, rules::OpSet::standard_text());
  r = rules("check no/such/file.cpp");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "no/such/file.cpp: error: cannot open file: No such file or directory\n");
}

TEST(RulesCli, VerifyJsonHasOneObjectPerRule) {
  test::Result r = rules("verify examples/htp/split_rules.cpp --ops examples/htp/ops.txt "
                         "--cases 20 --json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::vector<std::string> lines;
  for (size_t b = 0; b < r.out.size();) {
    size_t e = r.out.find('\n', b);
    lines.push_back(r.out.substr(b, e - b));
    b = e + 1;
  }
  ASSERT_EQ(lines.size(), 3u) << r.out;
  for (const std::string& l : lines)
    for (const char* key : {"\"file\": \"examples/htp/split_rules.cpp\"",
                            "\"line\": ", "\"kind\": \"optimization\"", "\"pass\": \"TILING+10",
                            "\"verdict\": ", "\"cases\": ", "\"reason\": ", "\"counterexample\": "})
      EXPECT_NE(l.find(key), std::string::npos) << key << " in " << l;
  EXPECT_NE(lines[0].find("\"verdict\": \"sound\", \"cases\": 20"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("\"verdict\": \"unsound\""), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("\"difference\": \"out["), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("\"verdict\": \"sound\""), std::string::npos) << lines[2];
}

// The verdict --prove prints for the rule of \p file at \p line in \p out.
std::string proof_of(const std::string& out, const std::string& file, int line) {
  const std::string head = file + ":" + std::to_string(line) + ": ";
  const size_t at = out.find(head);
  return at == std::string::npos
             ? std::string()
             : out.substr(at + head.size(), out.find('\n', at) - at - head.size());
}

// --prove: each rule of tests/data/htp/prove/prove.cpp proved, refuted (a
// counterexample the evaluator replays) or unknown (with the reason), and
// every proved rule sampled too.
TEST(RulesCli, ProveVerdicts) {
  const std::string file = "tests/data/htp/prove/prove.cpp";
  // (A generous timeout: the float16 precision proof takes seconds per
  // query, which a loaded machine may double.)
  test::Result r = rules("verify " + file + " --prove --cases 10 --timeout 30000");
  EXPECT_EQ(r.exit_code, 1) << r.err; // refuted rules
  auto verdict = [&](int line) { return proof_of(r.out, file, line); };
  for (int line : {6, 10, 14, 18, 33, 38, 42, 46, 69, 73, 82}) {
    EXPECT_TRUE(verdict(line).starts_with("proved (every shape of rank 4")) << verdict(line);
    size_t at = r.out.find(file + ":" + std::to_string(line) + ": ");
    EXPECT_EQ(r.out.substr(r.out.find('\n', at) + 1, 44),
              "  sampling: sound (no counterexample in 10 g")
        << r.out;
  }
  EXPECT_TRUE(verdict(22).starts_with("refuted (inputs of Float32, Float32")) << verdict(22);
  EXPECT_NE(verdict(26).find("before 6.0, after "), std::string::npos) << verdict(26);
  EXPECT_NE(verdict(29).find("the rewritten graph is ill-typed"), std::string::npos) << verdict(29);
  // Elementwise rules are proved for every rank; those that read extents
  // or tile for rank 4 only.
  for (int line : {6, 10, 14})
    EXPECT_NE(verdict(line).find("and of every rank (the rule is elementwise)"), std::string::npos)
        << verdict(line);
  for (int line : {18, 42, 73})
    EXPECT_EQ(verdict(line).find("of every rank"), std::string::npos) << verdict(line);
  // Computing in float16 on purpose: proved within the documented
  // precision change; with ReLU1 for ReLU, refuted beyond it.
  EXPECT_TRUE(verdict(77).starts_with("proved (within the documented precision change, "))
      << verdict(77);
  EXPECT_TRUE(verdict(89).starts_with("refuted (inputs of Float32")) << verdict(89);
  // The planted faults in tilings: an off-by-one slice, a wrong split
  // size, every chunk reading the first chunk.
  EXPECT_NE(verdict(50).find("the rewrite fails: <standard ops>:95 (Slice_shape):1:20: error: "
                             "read out of range"),
            std::string::npos)
      << verdict(50);
  EXPECT_NE(verdict(56).find("the rewritten graph is ill-typed"), std::string::npos) << verdict(56);
  EXPECT_NE(verdict(62).find("refuted (inputs of Float32"), std::string::npos) << verdict(62);
  EXPECT_NE(verdict(62).find(": out["), std::string::npos) << verdict(62);
  // The encoding WITH_OUTPUT_TYPE names (another than the input's): the
  // solver gives up on float64 arithmetic of symbolic steps, and sampling
  // draws the counterexample.
  EXPECT_TRUE(verdict(84).starts_with("refuted (a graph sampling drew; the solver: "))
      << verdict(84);
  EXPECT_NE(verdict(84).find(": out[0, 0, 0, 0]: before "), std::string::npos) << verdict(84);
  // CONSTVAL_FLOAT of a tag the graph holds as a constant: ReluX by 6 is
  // ReLU6; a clamp from a lower bound equal to 0.0 is not (it may be -0.0).
  EXPECT_TRUE(verdict(96).starts_with("proved (")) << verdict(96);
  EXPECT_TRUE(verdict(98).starts_with("refuted (inputs of Float32, Float32, Float32"))
      << verdict(98);
  EXPECT_NE(verdict(98).find("before -0.0, after 0.0"), std::string::npos) << verdict(98);
  EXPECT_NE(r.out.find("const lo: float32[1, 1, 1, 1] = [-0.0]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("proofs: 13 proved, 9 refuted, 0 unknown; solver time per rule: median "),
            std::string::npos)
      << r.out;
  // A refuted rule's counterexample is a graph with its input values.
  EXPECT_NE(r.out.find("  counterexample:\n    input x: float32[1, 1, 1, 1]"), std::string::npos)
      << r.out;
  test::Result j = rules("verify " + file + " --prove --cases 5 --json --line 22");
  EXPECT_NE(j.out.find("\"verdict\": \"unsound\""), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"proof\": \"refuted\", \"proof_reason\": \"inputs of Float32, "
                       "Float32\", \"solver_seconds\": "),
            std::string::npos)
      << j.out;
  EXPECT_EQ(rules("verify " + file + " --timeout 5").exit_code, 2);
}

// Integer arithmetic on codes (examples/htp/ops.txt's Add, Sub, Neg of
// quantized tensors) wraps into the dtype's range, as teval's kernels do.
TEST(RulesCli, ProveVerdictsOnCodes) {
  test::Result r = rules("verify tests/data/htp/prove/codes.cpp --ops examples/htp/ops.txt "
                         "--prove --cases 10");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("codes.cpp:7: proved (every shape"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("codes.cpp:11: refuted (inputs of QInt8, QInt8"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("proofs: 1 proved, 1 refuted, 0 unknown"), std::string::npos) << r.out;
}

// Convolutions and products are read from their definitions (computed
// indices, folds over several variables, extents in where clauses); an op
// outside that fragment is an uninterpreted function of its inputs: the
// same definition of equal inputs is proved whatever it computes (under
// another name, through the TCM moves, after a dispatch, below an op of
// the fragment); another definition or other inputs are refuted, the
// uninterpreted op's by values drawn on the solver's extents (its model of
// the op's values is not the op's).
TEST(RulesCli, ProveOpsOutsideTheFragmentAsUninterpretedFunctions) {
  const std::string file = "tests/data/htp/prove/opaque.cpp";
  test::Result r =
      rules("verify " + file + " --ops tests/data/htp/prove/opaque_ops.txt --prove --cases 10");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  for (int line : {12, 13, 15, 16, 28, 31})
    EXPECT_TRUE(proof_of(r.out, file, line).starts_with("proved (every shape of rank 4"))
        << proof_of(r.out, file, line);
  EXPECT_TRUE(proof_of(r.out, file, 22).starts_with("refuted (inputs of Float32, Float32"))
      << proof_of(r.out, file, 22);
  EXPECT_NE(proof_of(r.out, file, 22).find(": out[0, 0, 0, 0]: before "), std::string::npos);
  EXPECT_TRUE(proof_of(r.out, file, 23).starts_with("refuted (inputs of Float32, Float32"))
      << proof_of(r.out, file, 23);
  EXPECT_NE(proof_of(r.out, file, 23).find("the rewritten graph is ill-typed: MatMul.hvx's"),
            std::string::npos);
  EXPECT_TRUE(proof_of(r.out, file, 24).starts_with("refuted (inputs of Float32"))
      << proof_of(r.out, file, 24);
  EXPECT_TRUE(proof_of(r.out, file, 36).starts_with("unknown ("));
  EXPECT_NE(proof_of(r.out, file, 36).find("ops taken as uninterpreted functions: TailRows "),
            std::string::npos)
      << proof_of(r.out, file, 36);
  EXPECT_NE(r.out.find("proofs: 6 proved, 3 refuted, 1 unknown"), std::string::npos) << r.out;
}

TEST(RulesCli, VerifyOneRuleByLine) {
  test::Result r = rules("verify examples/htp/split_rules.cpp --ops examples/htp/ops.txt "
                         "--cases 5 --line 22");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "examples/htp/split_rules.cpp:22: sound (no counterexample in 5 graphs)\n"
                   "1 sound, 0 unsound, 0 unverifiable\n");
}

TEST(RulesCli, ApplyWritesTheGraphWithMinusO) {
  fs::path out = test::scratch_dir("rules-apply") / "out.graph";
  test::Result r = rules("apply examples/htp/split_rules.cpp --graph examples/htp/relu.graph -o " +
                         out.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  std::string graph = test::read_file(out);
  EXPECT_NE(graph.find("= Concat("), std::string::npos) << graph;
  // The written graph reads back: applying no rules reproduces it.
  test::Result again = rules("apply tests/data/htp/apply/none.cpp --graph " + out.string());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, graph);
}

} // namespace
} // namespace teval
