// HTP graphs, constraint evaluation, rewriting and graph evaluation, each
// against hand-computed expectations.
#include "core/error.h"
#include "parser/htp/htp_rules.h"
#include "rules/htp_ops.h"
#include "rules/htp_rewrite.h"
#include "tests/rules/htp_test_support.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

namespace teval::rules {
namespace {

using parser::htp::Rule;
using parser::htp::RuleFile;

using htp_test::graph;

// Sources stay alive for the rules that point into them.
RuleFile rules(const std::string& text) {
  RuleFile f = parser::htp::read_rules(core::SourceFile::make("r.cpp", text));
  EXPECT_FALSE(f.malformed()) << text;
  return f;
}

const char* const kRelu = "input x: quint8[1, 2, 3, 4] zero 3 step 0.5\n"
                          "const c: float32[1, 1, 1, 2] = [2.5, -1]\n"
                          "r = Relu(x): quint8[1, 2, 3, 4] zero 3 step 0.5\n"
                          "output r\n";

// Evaluates \p constraint for a rule matching Relu("x") in kRelu.
bool holds(const std::string& constraint, const std::string& g = kRelu) {
  RuleFile f =
      rules("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", \"x\"), " + constraint + ", \"x\")");
  Graph gr = graph(g);
  std::optional<Match> m = match(gr, gr.output, *f.rules.at(0).match);
  EXPECT_TRUE(m.has_value());
  return Evaluator(gr, *m).holds(*f.rules.at(0).constraint);
}

core::ErrorKind fault(const std::string& constraint) {
  try {
    holds(constraint);
  } catch (const core::Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << constraint << " did not fault";
  return core::ErrorKind::Syntax;
}

TEST(HtpConstraints, IntegerArithmeticIsCs) {
  // C truncates division; REM takes the dividend's sign, MOD the divisor's.
  EXPECT_TRUE(
      holds("AND(EQ(DIV(-7, 2), -3), EQ(REM(-7, 2), -1), EQ(MOD(-7, 2), 1), EQ(MOD(7, -2), -1))"));
  EXPECT_TRUE(holds("AND(EQ(REM(7, 2), MOD(7, 2)), EQ(MOD(-8, 2), 0))"));
  // size wraps modulo 2^64; int converts to size as in C, so -1 < 1U is false.
  EXPECT_TRUE(holds("EQ(SUB(0U, 1U), 18446744073709551615U)"));
  EXPECT_FALSE(holds("LT(-1, 1U)"));
  EXPECT_TRUE(
      holds("AND(EQ(ROUNDUP(5, 4), 8), EQ(ROUNDUP(8, 4), 8), IS_POW2(64), NOT(IS_POW2(0)))"));
  EXPECT_TRUE(holds(
      "AND(EQ(ADD(1, 2, 3), 6), EQ(MUL(2, 3, 4), 24), EQ(MIN(3, 1, 2), 1), EQ(MAX(3, 1, 2), 3))"));
  EXPECT_TRUE(holds("AND(EQ(ABS(-5), 5), EQ(NEG(5), -5), EQ(INT(2.9), 2), EQ(INT(-2.9), -2))"));
}

TEST(HtpConstraints, FaultsAreErrors) {
  EXPECT_EQ(fault("EQ(DIV(1, 0), 1)"), core::ErrorKind::Arithmetic);
  EXPECT_EQ(fault("EQ(MOD(1U, 0U), 1)"), core::ErrorKind::Arithmetic);
  EXPECT_EQ(fault("EQ(MUL(65536, 65536), 0)"), core::ErrorKind::Arithmetic);
  EXPECT_EQ(fault("GT(DIM_OF(\"x\", 4), 0)"), core::ErrorKind::Range);
  EXPECT_EQ(fault("SAME_OP(INPUT_OF(\"x\", 0), \"x\")"), core::ErrorKind::Range);
  // SELECT, AND and OR do not evaluate what they do not need.
  EXPECT_TRUE(holds("EQ(SELECT(OK, 1, DIV(1, 0)), 1)"));
  EXPECT_FALSE(holds("AND(false, EQ(DIV(1, 0), 1))"));
  EXPECT_TRUE(holds("OR(true, EQ(DIV(1, 0), 1))"));
}

TEST(HtpConstraints, FloatsAreBinary32) {
  EXPECT_TRUE(holds("AND(GT(INF, 3.0e38), LT(NEG_INF, -3.0e38), EQ(ADD(0.1f, 0.2f), 0.3f))"));
  // 16777217 is not a float: it rounds to 16777216.
  EXPECT_TRUE(holds("EQ(FLOAT(16777217), 16777216.0)"));
}

TEST(HtpConstraints, PropertiesOfOperands) {
  EXPECT_TRUE(
      holds("AND(EQ(RANK_OF(\"x\"), 4), EQ(DIM_HEIGHT(\"x\"), 2), EQ(DIM_WIDTH(\"x\"), 3), "
            "EQ(DIM_DEPTH(\"*\"), 4), EQ(SIZE_OF(\"x\"), 24), EQ(ELEMENTSIZE_OF(\"x\"), 1))"));
  EXPECT_TRUE(
      holds("AND(IS_QUINT8(\"x\"), EQ(ZERO_OFFSET_OF(\"x\"), 3), EQ(STEPSIZE_OF(\"x\"), 0.5), "
            "EQ(INPUTS_OF(\"*\"), 1), EQ(OUTPUTS_OF(\"*\"), 1), SAME_ENCODING(\"x\", \"*\"), "
            "SAME_OP(INPUT_OF(\"*\", 0), \"x\"), NOT(SAME_OP(\"x\", \"*\")))"));
  // CONSTVAL_* of a non-constant fail: INT_MIN and NaN.
  EXPECT_TRUE(
      holds("AND(NOT(CONSTVAL_INT_VALID(\"x\", 0)), LT(CONSTVAL_INT(\"x\", 0), -2147483647), "
            "NOT(CONSTVAL_FLOAT_VALID(\"x\", 0)), NE(CONSTVAL_FLOAT(\"x\", 0), "
            "CONSTVAL_FLOAT(\"x\", 0)))"));
}

TEST(HtpConstraints, ConstantValues) {
  RuleFile f =
      rules("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"AddScalar\", \"x\", \"c\"), "
            "AND(EQ(CONSTVAL_FLOAT(\"c\", 0), 2.5), NOT(CONSTVAL_INT_VALID(\"c\", 0)), "
            "EQ(CONSTVAL_INT(\"c\", 1), -1), NOT(CONSTVAL_FLOAT_VALID(\"c\", 2))), \"x\")");
  Graph g = graph("input x: float32[1, 1, 1, 2]\nconst c: float32[1, 1, 1, 2] = [2.5, -1]\n"
                  "a = AddScalar(x, c): float32[1, 1, 1, 2]\noutput a\n");
  std::optional<Match> m = match(g, g.output, *f.rules[0].match);
  ASSERT_TRUE(m);
  EXPECT_TRUE(Evaluator(g, *m).holds(*f.rules[0].constraint));
}

TEST(HtpConstraints, OptionsAndExternals) {
  std::string with = std::string("option tile_height = 8\n") + kRelu;
  EXPECT_TRUE(
      holds("AND(EQ(OPTION_UINT(\"tile_height\"), 8U), OPTION_BOOL(\"tile_height\"))", with));
  try {
    holds("GT(OPTION_UINT(\"tile_height\"), 0)");
    ADD_FAILURE() << "an unset option was evaluated";
  } catch (const NotEvaluable& e) {
    EXPECT_EQ(e.reason, "the rule reads graph option 'tile_height', which is not set");
  }
  EXPECT_THROW(holds("EXTERNAL_CONSTRAINT(f, \"x\")"), NotEvaluable);
}

TEST(HtpConstraints, ProducerForReadsTheGraphAroundTheMatch) {
  // x feeds both Relu (the match) and Conv; Relu's output is the graph's.
  const char* g = "input x: float32[1, 1, 1, 2]\n"
                  "c = Conv(x): float32[1, 1, 1, 2]\n"
                  "r = Relu(x): float32[1, 1, 1, 2]\n"
                  "s = Add(r, c): float32[1, 1, 1, 2]\n"
                  "output s\n";
  // The rule matches Relu; "*" is its output, which feeds Add, not the output.
  auto at_relu = [&](const std::string& constraint) {
    RuleFile f =
        rules("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", \"x\"), " + constraint + ", \"x\")");
    Graph gr = graph(g);
    std::optional<Match> m = match(gr, 2, *f.rules.at(0).match);
    EXPECT_TRUE(m.has_value());
    return Evaluator(gr, *m).holds(*f.rules.at(0).constraint);
  };
  EXPECT_TRUE(at_relu("PRODUCER_FOR(\"x\", \"Conv\")"));
  EXPECT_TRUE(at_relu("PRODUCER_FOR(\"*\", \"Add\")"));
  EXPECT_FALSE(at_relu("PRODUCER_FOR(\"*\", \"Conv\")"));
  EXPECT_FALSE(at_relu("PRODUCER_FOR(\"*\", \"*Output\")"));
  EXPECT_TRUE(holds("PRODUCER_FOR(\"*\", \"*Output\")")); // kRelu: r is the output
}

TEST(HtpConstraints, HeaderMacrosOfPublicPackages) {
  // kRelu's x is quint8 with zero offset 3.
  EXPECT_TRUE(holds("AND(IS_QUANT_TYPE(\"x\"), NOT(IS_QUANT_SIGNED(\"x\")))"));
  EXPECT_FALSE(holds("IS_FLOAT32_ALL(\"x\", \"*\")"));
  EXPECT_TRUE(holds("IS_DTYPE_ALL(DType::QUInt8, \"x\", \"*\")"));
  EXPECT_FALSE(holds("IS_FLOAT16_BOTH(\"x\", \"*\")"));
  EXPECT_TRUE(holds("EQ(size_t(DIM_WIDTH(\"x\")), 3)"));
  // ESTIMATE_TENSOR_SIZE of [1, 2, 3, 4] quint8 with tile_height 8:
  // 1 * roundup(2, 8) * roundup(3 * 1, 8) * roundup(4, 32) = 8 * 8 * 32.
  EXPECT_TRUE(holds("EQ(ESTIMATE_TENSOR_SIZE(\"x\"), 2048)",
                    std::string("option tile_height = 8\n") + kRelu));
}

TEST(HtpGraphs, TextRoundTrips) {
  std::string text = "option tile_height = 8.0\n"
                     "input x: quint8[1, 2, 3, 4] zero 3 step 0.5\n"
                     "const c: int32[1, 1, 1, 2] = [2, -1]\n"
                     "shape s = [0, 0, 0, 1]\n"
                     "r = q::flat_to_vtcm(x, c, s): float32[1, 2, 3, 4] outputs 2\n"
                     "output r\n";
  Graph g = graph(text);
  EXPECT_EQ(to_text(g), text);
  EXPECT_EQ(g.nodes[3].op, "q::flat_to_vtcm");
  EXPECT_EQ(g.nodes[3].outputs, 2);
}

TEST(HtpGraphs, NumbersOutOfRangeAreErrorsNotWraps) {
  try {
    graph("input q: quint8[1, 1, 1, 2] zero 999999999999 step 0.5\noutput q\n");
    ADD_FAILURE() << "the zero offset wrapped";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.message(),
              "an integer zero offset must be in [-2147483648, 2147483647], not 999999999999");
  }
}

TEST(HtpGraphs, Errors) {
  auto error = [](const std::string& text) {
    try {
      graph(text);
    } catch (const core::Error& e) {
      return e.render();
    }
    return std::string("no error");
  };
  auto first_line = [&](const std::string& text) {
    std::string e = error(text);
    return e.substr(0, e.find('\n'));
  };
  EXPECT_EQ(error("input x: float32[2]\ny = Relu(z): float32[2]\noutput y\n"),
            "g.graph:2:10: error: unknown node 'z'\ny = Relu(z): float32[2]\n         ^\n");
  EXPECT_EQ(error("input x: float32[2]\n"),
            "g.graph: error: the graph has no `output NAME` line\n");
  EXPECT_EQ(first_line("input x: quint8[2] zero\noutput x\n"),
            "g.graph:1:24: error: expected an integer zero offset before end of line");
  EXPECT_EQ(first_line("input x: float32[2] zero 3\noutput x\n"),
            "g.graph:1:21: error: float32 is not quantized: it has no zero");
  EXPECT_EQ(first_line("const c: int32[2] = [1.5, 2]\noutput c\n"),
            "g.graph:1:21: error: value 1.500000 is not an integer of int32[2]");
  EXPECT_EQ(first_line("input x: float32[2]\ny = Relu(x): float32[2] outputs 0\noutput y\n"),
            "g.graph:2:1: error: an op has 1 to 1024 outputs");
  EXPECT_EQ(first_line("y = Relu(: float32[2]\n"), "g.graph:1:10: error: expected an input name");
}

// Applies \p rule_text's rules to \p graph_text.
ApplyResult apply(const std::string& rule_text, const std::string& graph_text, RuleFile& keep,
                  size_t max_steps = 10000) {
  keep = rules(rule_text);
  std::vector<const Rule*> all;
  for (const Rule& r : keep.rules)
    all.push_back(&r);
  return apply_rules(graph(graph_text), all, max_steps);
}

TEST(HtpRewrite, AutosplitMakesChunksAndAConcat) {
  RuleFile keep;
  ApplyResult r =
      apply("DEF_PACKAGE_OPTIMIZATION(TILING, Op(\"Relu\", \"x\"), GT(DIM_DEPTH(\"*\"), 2),\n"
            "  AUTOSPLIT(3, \"I\", 2, Op(\"Relu\", TYPICAL_SLICE(\"x\", \"I\"))))",
            "input x: float32[1, 1, 1, 5]\nr = Relu(x): float32[1, 1, 1, 5]\noutput r\n", keep);
  ASSERT_EQ(r.steps.size(), 1u);
  const Graph& g = r.graph;
  const Node& concat = g.nodes[g.output];
  EXPECT_EQ(concat.op, "Concat");
  ASSERT_EQ(concat.inputs.size(), 4u);
  EXPECT_EQ(g.nodes[concat.inputs[0]].value->get(0).i, 3); // the axis
  std::vector<int64_t> chunks;
  for (size_t i = 1; i < 4; ++i) {
    const Node& relu = g.nodes[concat.inputs[i]];
    EXPECT_EQ(relu.op, "Relu");
    chunks.push_back(relu.type.shape[3]);
    const Node& slice = g.nodes[relu.inputs[0]];
    EXPECT_EQ(slice.op, "Slice_shape");
    EXPECT_EQ(g.nodes[slice.inputs[1]].type.shape, (core::Shape{0, 0, 0, int64_t(2 * (i - 1))}));
  }
  EXPECT_EQ(chunks, (std::vector<int64_t>{2, 2, 1}));
}

TEST(HtpRewrite, AutothreadSplitsIntoTheOptionsNumberOfTiles) {
  RuleFile keep;
  ApplyResult r = apply("DEF_PACKAGE_OPTIMIZATION(TILING, Op(\"Relu\", \"x\"), "
                        "GT(DIM_HEIGHT(\"*\"), 1),\n"
                        "  AUTOTHREAD_HVX(1, \"I\", Op(\"Relu.t\", TYPICAL_SLICE(\"x\", \"I\"))))",
                        "option autothread_hvx_ntiles = 2\ninput x: float32[1, 5, 1, 1]\n"
                        "r = Relu(x): float32[1, 5, 1, 1]\noutput r\n",
                        keep);
  ASSERT_EQ(r.steps.size(), 1u);
  const Node& concat = r.graph.nodes[r.graph.output];
  ASSERT_EQ(concat.op, "Concat");
  ASSERT_EQ(concat.inputs.size(), 3u); // the axis and ceil(5 / 2) = 3 and 2 rows
  EXPECT_EQ(r.graph.nodes[concat.inputs[1]].type.shape[1], 3);
  EXPECT_EQ(r.graph.nodes[concat.inputs[2]].type.shape[1], 2);
}

TEST(HtpRewrite, AnAutosplitInsideAnOpIsBuiltInPlace) {
  RuleFile keep;
  ApplyResult r =
      apply("DEF_PACKAGE_OPTIMIZATION(TILING, Op(\"Tanh\", \"x\"), "
            "GT(DIM_DEPTH(\"*\"), 2),\n"
            "  Op(\"Neg\", AUTOSPLIT(3, \"I\", 2, Op(\"Tanh.s\", "
            "TYPICAL_SLICE(\"x\", \"I\")))))",
            "input x: float32[1, 1, 1, 3]\nr = Tanh(x): float32[1, 1, 1, 3]\noutput r\n", keep);
  ASSERT_EQ(r.steps.size(), 1u);
  const Node& neg = r.graph.nodes[r.graph.output];
  EXPECT_EQ(neg.op, "Neg");
  ASSERT_EQ(neg.inputs.size(), 1u);
  const Node& concat = r.graph.nodes[neg.inputs[0]];
  EXPECT_EQ(concat.op, "Concat");
  EXPECT_EQ(concat.type.shape, (core::Shape{1, 1, 1, 3}));
  EXPECT_EQ(concat.inputs.size(), 3u);
}

TEST(HtpRewrite, AnAutosplitMakesAtMost4096Chunks) {
  RuleFile keep;
  auto rule = [](int chunk) {
    return "DEF_PACKAGE_OPTIMIZATION(TILING, Op(\"Relu\", \"x\"), GT(DIM_DEPTH(\"*\"), " +
           std::to_string(chunk) + "),\n  AUTOSPLIT(3, \"I\", " + std::to_string(chunk) +
           ", Op(\"Relu.s\", TYPICAL_SLICE(\"x\", \"I\"))))";
  };
  const char* g =
      "input x: float32[1, 1, 1, 8192]\nr = Relu(x): float32[1, 1, 1, 8192]\noutput r\n";
  ApplyResult two = apply(rule(2), g, keep); // exactly 4096 chunks
  EXPECT_EQ(two.graph.nodes[two.graph.output].inputs.size(), 4097u);
  try {
    apply(rule(1), g, keep);
    ADD_FAILURE() << "8192 chunks were built";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.kind(), core::ErrorKind::Limit);
    EXPECT_EQ(e.message(), "AUTOSPLIT of extent 8192 into chunks of 1 makes more than 4096 chunks");
  }
}

TEST(HtpRewrite, ShapesOutsideTheGraphFormatAreErrors) {
  RuleFile keep;
  try {
    apply("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", \"x\"), OK, "
          "Op(\"Reshape\", \"x\", gen_Shape(1, -1, 1, 1)))",
          "input x: float32[1, 1, 1, 2]\nr = Relu(x): float32[1, 1, 1, 2]\noutput r\n", keep);
    ADD_FAILURE() << "a shape of extent -1 was built";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.message(), "gen_Shape extent -1 is not in [0, 2^31)");
  }
}

TEST(HtpRewrite, WrapOpKeepsAnOpOfItsName) {
  RuleFile keep;
  ApplyResult r = apply(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Exp\", LET(\"e\", Op(\"Exp\", \"x\"))), OK, "
      "WrapOp(\"Exp\", \"e\"))",
      "input x: float32[2]\na = Exp(x): float32[2]\nb = Exp(a): float32[2]\noutput b\n", keep);
  EXPECT_EQ(to_text(r.graph), "input x: float32[2]\na = Exp(x): float32[2]\noutput a\n");
}

TEST(HtpRewrite, ModifiersSetTheConstructedOutput) {
  RuleFile keep;
  ApplyResult r =
      apply("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Q\", \"x\"), OK, WITH_OUTPUT_TYPE(DType::QInt8, "
            "-3, 0.25, WITH_SIZE(gen_Shape(1, 2, 3, 4), ResizeDim(1, 7, Op(\"Q2\", \"x\")))))",
            "input x: float32[4]\nq = Q(x): float32[4]\noutput q\n", keep);
  EXPECT_EQ(to_text(r.graph),
            "input x: float32[4]\nt3 = Q2(x): qint8[1, 7, 3, 4] zero -3 step 0.25\n"
            "output t3\n");
}

// As HTP's headers evaluate them (docs/HTP_RULES.md, "Modifiers"): a
// modifier's whole target is built with the modified output definition,
// so an inner modifier of the same field wins and nested Ops inherit it.
TEST(HtpRewrite, InnerModifiersWinAndNestedOpsInherit) {
  const std::string graph = "input x: float32[1, 1, 2, 3]\nr = Relu(x): float32[1, 1, 2, 3]\n"
                            "output r\n";
  auto replaced = [&](const std::string& replacement) {
    RuleFile keep;
    return to_text(
        apply("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", \"x\"), OK, " + replacement + ")",
              graph, keep)
            .graph);
  };
  EXPECT_EQ(replaced("WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, Op(\"Bar\", Op(\"Baz\", \"x\")))"),
            "input x: float32[1, 1, 2, 3]\nt2 = Baz(x): float16[1, 1, 2, 3]\n"
            "t3 = Bar(t2): float16[1, 1, 2, 3]\noutput t3\n");
  EXPECT_EQ(replaced("WITH_SAME_OUTPUT(\"*\", WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, "
                     "Op(\"Bar\", \"x\")))"),
            "input x: float32[1, 1, 2, 3]\nt2 = Bar(x): float16[1, 1, 2, 3]\noutput t2\n");
  EXPECT_EQ(replaced("WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, WITH_OUTPUT_TYPE(DType::QUInt8, "
                     "128, 0.5f, Op(\"Bar\", \"x\")))"),
            "input x: float32[1, 1, 2, 3]\nt2 = Bar(x): quint8[1, 1, 2, 3] zero 128 step 0.5\n"
            "output t2\n");
  EXPECT_EQ(replaced("WITH_SIZE(gen_Shape(1, 1, 1, 6), Op(\"Reshape\", WITH_SIZE(\"x\", "
                     "Op(\"Bar\", \"x\")), gen_Shape(1, 1, 1, 6)))"),
            "input x: float32[1, 1, 2, 3]\nt3 = Bar(x): float32[1, 1, 2, 3]\n"
            "shape t4 = [1, 1, 1, 6]\nt5 = Reshape(t3, t4): float32[1, 1, 1, 6]\noutput t5\n");
  EXPECT_EQ(replaced("WITH_TYPE(\"x\", ResizeDim(3, 1, WITH_OUTPUT_TYPE(DType::Float16, 0, "
                     "1.0f, Op(\"Bar\", \"x\"))))"),
            "input x: float32[1, 1, 2, 3]\nt2 = Bar(x): float16[1, 1, 2, 1]\noutput t2\n");
  RuleFile keep;
  try {
    apply("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Relu\", \"x\"), OK, ResizeDim(4, 1, "
          "Op(\"Bar\", \"x\")))",
          graph, keep);
    ADD_FAILURE() << "ResizeDim beyond the rank was applied";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.message(), "ResizeDim dimension 4 is beyond the rank 4");
  }
}

TEST(HtpRewrite, ReplacementsReadTheOldRoot) {
  // "*" inside the replacement is the node being replaced; only uses
  // outside the replacement are redirected.
  RuleFile f = rules("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, Op(\"Wrap\", \"*\"))");
  Graph g = graph("input x: float32[2]\na = A(x): float32[2]\nb = B(a): float32[2]\noutput b\n");
  std::optional<int> rep = rewrite_at(g, 1, f.rules[0]);
  ASSERT_TRUE(rep);
  EXPECT_EQ(to_text(g), "input x: float32[2]\na = A(x): float32[2]\nt3 = Wrap(a): float32[2]\n"
                        "b = B(t3): float32[2]\noutput b\n");
  // Applied to a fixed point the rule never stops: every Wrap reads a new A.
  RuleFile keep;
  EXPECT_THROW(
      apply("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, Op(\"A\", Op(\"Wrap\", \"x\")))",
            "input x: float32[2]\na = A(x): float32[2]\noutput a\n", keep, 100),
      core::Error);
}

OpSet ops() {
  return OpSet::read(core::SourceFile::make(
      "ops.txt", test::read_file(test::source_dir() / "examples/htp/ops.txt")));
}

TEST(HtpOps, ConcatAndSliceAgainstHandComputedValues) {
  OpSet o = ops();
  Graph g = graph("const a: float32[1, 1, 2, 2] = [1, 2, 3, 4]\n"
                  "const b: float32[1, 1, 2, 1] = [5, 6]\n"
                  "const axis: int32[1, 1, 1, 1] = [3]\n"
                  "c = Concat(axis, a, b): float32[1, 1, 2, 3]\n"
                  "shape start = [0, 0, 1, 1]\n"
                  "shape size = [1, 1, 1, 2]\n"
                  "s = Slice_shape(c, start, size): float32[1, 1, 1, 2]\n"
                  "output s\n");
  // c = [[1, 2, 5], [3, 4, 6]]; its second row from column 1 is [4, 6].
  core::Tensor t = evaluate(g, o, {});
  ASSERT_EQ(t.shape(), (core::Shape{1, 1, 1, 2}));
  EXPECT_EQ(t.get(0).f, 4.0);
  EXPECT_EQ(t.get(1).f, 6.0);
}

// Mistakes of a definition itself are errors of the ops file, at the
// definition; they never become a verdict about a rule.
TEST(HtpOps, BrokenDefinitionsAreErrorsOfTheOpsFile) {
  auto error_of = htp_test::ops_file_error;
  EXPECT_EQ(error_of("\"Relu\": out0[N] = in0[N].call(`max`, [0.0]\n"),
            "ops.txt:1:1: error: the program of Relu does not parse: expected ')' before end of "
            "input");
  EXPECT_EQ(error_of("\"Relu\": out0[N] = in0[N] * $((2)\n"),
            "ops.txt:1:1: error: Relu's definition has an unclosed $(...) field");
  EXPECT_EQ(error_of("\"Relu\": out0[N] = in0[N] * $(1 / 0)\n"),
            "ops.txt:1:1: error: Relu's definition divides by zero in $(1 / 0)");
  EXPECT_EQ(error_of("\"Relu\": out0[N] = in0[N] * $(999999999999 * 999999999999)\n"),
            "ops.txt:1:1: error: Relu's definition overflows in $(999999999999 * 999999999999)");
  EXPECT_EQ(error_of("\"Relu\": out0[N] = in0[N] * $(" + std::string(100000, '(') + "1" +
                     std::string(100000, ')') + ")\n"),
            "ops.txt:1:1: error: Relu's definition nests a $(...) field more than 256 deep");
  // A division by an extent that may be zero for some node is not the
  // definition's mistake.
  EXPECT_EQ(error_of("\"Pad\": out0[N] = in0[N] where N in $(8 / ($in0[0] - 7))\n"), "no error");
  // An axis no input dimension gives can never have an extent; one that
  // an input gives, or a where clause, can (whatever the ranks of a node).
  EXPECT_EQ(error_of("\"A\": out0[N]=in0[N]\n\"Widen\": out0[N, K] = in0[N] + in1[N, N]\n"),
            "ops.txt:2:1: error: in the program of Widen: cannot infer the extent of axis `K`: it "
            "never indexes a whole tensor dimension; add `where K in <extent>`");
  EXPECT_EQ(error_of("\"Widen\": out0[N, K] = in0[N] where K in 3\n"), "no error");
  EXPECT_EQ(error_of("\"Pick\": out0[N] = in0[N, in1[0]]\n"), "no error");
}

TEST(HtpOps, DeclaredOutputsMustMatchDefinitions) {
  Graph g =
      graph("const a: float32[1, 1, 1, 2] = [1, -2]\nr = Relu(a): float32[1, 1, 1, 3]\noutput r\n");
  try {
    evaluate(g, ops(), {});
    ADD_FAILURE() << "an ill-typed node was evaluated";
  } catch (const IllTyped& e) {
    EXPECT_EQ(e.message, "r = Relu(...) computes float32[1, 1, 1, 2], but its output is declared "
                         "float32[1, 1, 1, 3]");
  }
  // Quantized ReLU clamps at the zero offset.
  Graph q = graph("const a: quint8[1, 1, 1, 3] zero 5 step 0.5 = [3, 5, 9]\n"
                  "r = Relu(a): quint8[1, 1, 1, 3] zero 5 step 0.5\noutput r\n");
  core::Tensor t = evaluate(q, ops(), {});
  EXPECT_EQ(t.get(0).i, 5);
  EXPECT_EQ(t.get(2).i, 9);
}

// A $ field's operand or axis past any node's, even past size_t, is the
// node's type error, not a crash of the reader (found by the htp_ops harness).
TEST(HtpOps, FieldNumbersPastAnyNodeAreTypeErrors) {
  Graph g = graph("const a: float32[1, 1, 1, 2] = [1, -2]\nr = Wide(a): float32[1, 1, 1, 2]\n"
                  "output r\n");
  auto message_of = [&](const std::string& field) {
    OpSet o = OpSet::read(core::SourceFile::make(
        "ops.txt", "\"Wide\": out0[N, H, W, C] = in0[N, H, W, C] + " + field + "\n"));
    try {
      evaluate(g, o, {});
    } catch (const IllTyped& e) {
      return e.message;
    }
    return std::string("no error");
  };
  EXPECT_EQ(message_of("$in99999999999999999999999.rank"),
            "Wide's definition uses $in99999999999999999999999.rank, but the node has 1 input(s)");
  EXPECT_EQ(message_of("$in0[99999999999999999999999]"),
            "Wide's definition uses $in0[99999999999999999999999] of a rank-4 tensor");
  EXPECT_EQ(message_of("$out18446744073709551616.zero"),
            "Wide's definition uses $out18446744073709551616.zero, but the node has no known "
            "output type");
}

} // namespace
} // namespace teval::rules
