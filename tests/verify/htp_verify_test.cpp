// The soundness verifier of HTP rules against rules with known verdicts.
#include "tests/support/test_support.h"
#include "verify/htp_verify.h"

#include <gtest/gtest.h>

namespace teval::verify::htp {
namespace {

using parser::htp::RuleFile;
using rules::OpSet;

// Sources stay alive for the rules that point into them.
RuleFile rules(const std::string& text) {
  RuleFile f = parser::htp::read_rules(core::SourceFile::make("r.cpp", text));
  EXPECT_FALSE(f.malformed()) << text;
  return f;
}

OpSet ops() {
  return OpSet::read(core::SourceFile::make(
      "ops.txt", test::read_file(test::source_dir() / "examples/htp/ops.txt")));
}

VerifyResult verify(const std::string& rule_text) {
  RuleFile f = rules(rule_text);
  VerifyOptions o;
  o.cases = 20;
  return verify_rule(f.rules.at(0), ops(), o);
}

TEST(HtpVerify, SplittingElementwiseIsSoundSplittingSoftmaxIsNot) {
  VerifyResult ok =
      verify("DEF_PACKAGE_OPTIMIZATION(TILING, Op(\"Tanh\", \"x\"), GT(DIM_WIDTH(\"*\"), 1),\n"
             "  AUTOSPLIT(2, \"I\", 1, Op(\"Tanh\", TYPICAL_SLICE(\"x\", \"I\"))))");
  EXPECT_EQ(ok.verdict, Verdict::Sound) << ok.reason;
  EXPECT_EQ(ok.cases, 20);
  VerifyResult bad =
      verify("DEF_PACKAGE_OPTIMIZATION(TILING, Op(\"Softmax\", \"x\"), GT(DIM_DEPTH(\"*\"), 1),\n"
             "  AUTOSPLIT(3, \"I\", 1, Op(\"Softmax\", TYPICAL_SLICE(\"x\", \"I\"))))");
  ASSERT_EQ(bad.verdict, Verdict::Unsound);
  ASSERT_TRUE(bad.counterexample);
  EXPECT_EQ(bad.counterexample->difference.rfind("out[", 0), 0u) << bad.counterexample->difference;
  // Shrunk: a softmax over two elements is the smallest that shows it.
  EXPECT_NE(bad.counterexample->before.find("[1, 1, 1, 2]\noutput"), std::string::npos)
      << bad.counterexample->before;
}

TEST(HtpVerify, GraphsAreDrawnAroundTheConstantsTheConstraintComparesWith) {
  // Width above 32, height at most 4 and a depth of exactly 7 (of the
  // input): far beyond the small random extents, found through the hints.
  VerifyResult wide =
      verify("DEF_PACKAGE_OPTIMIZATION(TILING, Op(\"Tanh\", \"x\"),\n"
             "  AND(GT(DIM_WIDTH(\"*\"), 32), LE(DIM_HEIGHT(\"*\"), 4), EQ(SUB(DIM_DEPTH(\"x\"), "
             "1), 6)),\n"
             "  AUTOSPLIT(2, \"I\", 32, Op(\"Tanh\", TYPICAL_SLICE(\"x\", \"I\"))))");
  EXPECT_EQ(wide.verdict, Verdict::Sound) << wide.reason;
  EXPECT_EQ(wide.cases, 20);
  // And an unsound rule behind such a constraint is caught.
  VerifyResult deep = verify(
      "DEF_PACKAGE_OPTIMIZATION(TILING, Op(\"Softmax\", \"x\"), GT(ADD(DIM_DEPTH(\"*\"), 1), 40),\n"
      "  AUTOSPLIT(3, \"I\", 16, Op(\"Softmax\", TYPICAL_SLICE(\"x\", \"I\"))))");
  EXPECT_EQ(deep.verdict, Verdict::Unsound) << deep.reason;
}

// An op the ops file lacks is its mistake: one error per op, at its first
// use in the rule, whether matched, built or wrapped; built-in ops
// ($Const, $Out, Concat) are no mistake.
TEST(HtpVerify, OpsTheOpsFileLacksAreItsErrors) {
  RuleFile f = rules("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Nope\", \"x\", Op(\"$Const\")), OK,\n"
                     "  Op(\"Relu.tcm\", WrapOp(\"Nope\", \"x\"), Op(\"Concat\", \"x\", \"x\")))");
  std::vector<core::Diagnostic> errors =
      undefined_ops(f.rules.at(0), ops(), "the ops file ops.txt");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].span.text(), "\"Nope\"");
  EXPECT_EQ(errors[0].message,
            "op Nope is not defined in the ops file ops.txt: define it in an ops file (--ops) "
            "to verify this rule");
  EXPECT_EQ(errors[1].span.text(), "\"Relu.tcm\"");
  EXPECT_TRUE(undefined_ops(rules("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", \"x\"), OK, "
                                  "Op(\"Neg\", \"x\"))")
                                .rules.at(0),
                            ops(), "ops.txt")
                  .empty());
}

TEST(HtpVerify, UnverifiableRulesSayWhy) {
  EXPECT_EQ(verify("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", \"x\"), OK, EXTERNAL_REPLACE(f))")
                .reason,
            "EXTERNAL_REPLACE calls the C++ function 'f'");
  EXPECT_EQ(verify("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Nope\", \"x\"), OK, \"x\")").reason,
            "op Nope (in the match) has no definition in the ops file");
  VerifyResult never =
      verify("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", \"x\"), false, Op(\"Neg\", \"x\"))");
  EXPECT_EQ(never.verdict, Verdict::Unverifiable);
  EXPECT_EQ(never.reason.find("most draws were rejected because the constraint does not hold") !=
                std::string::npos,
            true)
      << never.reason;
}

// With the rules of earlier passes (teval rules verify --passes), a rule
// whose match they always rewrite away is unreachable, naming the rule;
// one they rewrite away only sometimes is verified on the other graphs.
TEST(HtpVerify, ARuleAnEarlierPassAlwaysRewritesAwayIsUnreachable) {
  RuleFile f = rules("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Neg\", Op(\"Neg\", \"x\")), OK, \"x\")\n"
                     "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", Op(\"Relu\", \"x\")), "
                     "GT(DIM_DEPTH(\"*\"), 2), Op(\"Relu\", \"x\"))\n"
                     "DEF_PACKAGE_OPTIMIZATION(LATE, Op(\"Neg\", Op(\"Neg\", \"x\")), OK, \"x\")\n"
                     "DEF_PACKAGE_OPTIMIZATION(LATE, Op(\"Relu\", Op(\"Relu\", \"x\")), OK, "
                     "Op(\"Relu\", \"x\"))");
  VerifyOptions o;
  o.cases = 20;
  o.earlier = {&f.rules.at(0), &f.rules.at(1)};
  VerifyResult never = verify_rule(f.rules.at(2), ops(), o);
  EXPECT_EQ(never.verdict, Verdict::Unreachable);
  EXPECT_EQ(never.cases, 0);
  EXPECT_EQ(never.rewritten_away, 20);
  EXPECT_EQ(never.reason, "in all 20 graphs it applies to, earlier passes rewrite its match away "
                          "first (the rule at line 1, pass EARLY, in 20 of them)");
  VerifyResult shallow = verify_rule(f.rules.at(3), ops(), o);
  EXPECT_EQ(shallow.verdict, Verdict::Sound) << shallow.reason;
  EXPECT_EQ(shallow.cases, 20);
  EXPECT_GT(shallow.rewritten_away, 0);
  // Alone, the same rule is verified on every graph.
  VerifyResult alone = verify_rule(f.rules.at(2), ops(), VerifyOptions{.cases = 20});
  EXPECT_EQ(alone.verdict, Verdict::Sound);
  EXPECT_EQ(alone.rewritten_away, 0);
}

// Ops registered per dtype (ops-file selectors): a graph is drawn in a
// dtype every match op on an input tag is defined for, its inputs sharing
// it, and an op without a definition for its inputs makes the rewritten
// graph ill-typed, not the rule unverifiable. A package's dispatch on the
// dtype of its op's second operand (wkv7 in a public RWKV package) was
// "unverifiable": a float16 graph with one QUInt16 operand reached the
// QUInt16 variant, which has no float16 definition.
TEST(HtpVerify, OpsDefinedPerDtypeAreDrawnInTheirDtypes) {
  const std::string x = "in0[N, H, W, C] * in1[N, H, W, C] + in2[N, H, W, C]";
  const std::string q =
      "$quantize($real(in0[N, H, W, C]) * $real(in1[N, H, W, C]) + $real(in2[N, H, W, C]))";
  OpSet per_dtype = OpSet::read(
      core::SourceFile::make("ops.txt", "\"W\"[float32]: out0[N, H, W, C] = " + x +
                                            "\n\"W\"[float16]: out0[N, H, W, C] = " + x +
                                            "\n\"W\"[quint16]: out0[N, H, W, C] = " + q +
                                            "\n\"W.u\"[quint16]: out0[N, H, W, C] = " + q + "\n"));
  RuleFile f = rules("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"W\", \"r\", \"w\", \"k\"),\n"
                     "  EQ(DTYPE_OF(\"w\"), DType::QUInt16), Op(\"W.u\", \"r\", \"w\", \"k\"))");
  VerifyOptions o;
  o.cases = 40;
  for (uint64_t seed : {1, 2, 3, 4, 5, 6}) {
    o.seed = seed;
    VerifyResult v = verify_rule(f.rules.at(0), per_dtype, o);
    EXPECT_EQ(v.verdict, Verdict::Sound) << seed << ": " << v.reason;
    EXPECT_EQ(v.cases, 40);
  }
}

// An op whose definition equates extents of several inputs is drawn whole:
// a draw it rejects for an extent takes that extent and is built again.
// Attention splits along the query's length, its mask with it (a public
// FlashAttention package's rule), were unverifiable: the mask's extents
// must be the query's and the key's lengths.
TEST(HtpVerify, InputsWhoseExtentsTheDefinitionEquatesAreDrawnTogether) {
  OpSet attention = OpSet::read(
      core::SourceFile::make(
          "ops.txt",
          "\"Attention\": s[B, H, I, J] +=! in0[B, H, I, E] * in1[B, H, J, E]; t[B, H, I, J] = "
          "s[B, H, I, J] * in4[0, 0, 0, 0] + in3[0, 0, I, J]; m[B, H, I] >=! t[B, H, I, J]; "
          "e[B, H, I, J] = (t[B, H, I, J] - m[B, H, I]).call(`exp`); z[B, H, I] +=! e[B, H, I, J]; "
          "o[B, H, I, D] +=! e[B, H, I, J] * in2[B, H, J, D]; out0[B, H, I, D] = o[B, H, I, D] / "
          "z[B, H, I]\n"),
      &OpSet::standard());
  RuleFile f = rules("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Attention\", \"q\", \"k\", \"v\", "
                     "\"mask\", \"scale\"),\n  GT(DIM_WIDTH(\"q\"), 3),\n  AUTOSPLIT(2, \"I\", 3, "
                     "Op(\"Attention\", TYPICAL_SLICE(\"q\", \"I\"), \"k\", \"v\", "
                     "TYPICAL_SLICE(\"mask\", \"I\"), \"scale\")))");
  VerifyOptions o;
  o.cases = 30;
  VerifyResult v = verify_rule(f.rules.at(0), attention, o);
  EXPECT_EQ(v.verdict, Verdict::Sound) << v.reason;
  EXPECT_EQ(v.cases, 30);
}

} // namespace
} // namespace teval::verify::htp
