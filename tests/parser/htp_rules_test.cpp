// Reading HTP rule files: macro expansions as the seed states them, pass
// priorities, constants, annotations and rule regions.
#include "parser/htp/htp_rules.h"

#include "parser/htp/htp_macros.h"

#include <gtest/gtest.h>

namespace teval::parser::htp {
namespace {

RuleFile read(const std::string& text) {
  return read_rules(core::SourceFile::make("t.cpp", text));
}

// The one optimization rule of \p text, which must be well formed.
Rule rule(const std::string& text) {
  RuleFile f = read(text);
  EXPECT_EQ(f.rules.size(), 1u);
  EXPECT_FALSE(f.malformed());
  return f.rules.at(0);
}

std::string expanded_constraint(const std::string& cst) {
  Rule r = rule("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Conv\", \"x\", \"y\"), " + cst + ", \"x\")");
  return r.constraint ? to_text(*r.constraint) : "";
}

std::string expanded_replacement(const std::string& repl) {
  Rule r = rule(
      "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Conv\", \"x\", \"y\"), OK, AUTOSPLIT(3, \"I\", 2, " +
      repl + "))");
  if (!r.replacement)
    return "";
  const auto& split = std::get<ast::Call>(r.replacement->node);
  return to_text(*split.args[3]);
}

TEST(HtpMacros, ConstraintMacrosExpandAsTheSeedStates) {
  // Each expectation is the seed's text for the macro.
  EXPECT_EQ(expanded_constraint("IS_QUINT8(\"x\")"), "EQ(DTYPE_OF(\"x\"), DType::QUInt8)");
  EXPECT_EQ(expanded_constraint("IS_QINT8(\"x\")"), "EQ(DTYPE_OF(\"x\"), DType::QInt8)");
  EXPECT_EQ(expanded_constraint("IS_QUINT16(\"x\")"), "EQ(DTYPE_OF(\"x\"), DType::QUInt16)");
  EXPECT_EQ(expanded_constraint("IS_QINT16(\"x\")"), "EQ(DTYPE_OF(\"x\"), DType::QInt16)");
  EXPECT_EQ(expanded_constraint("IS_QINT32(\"x\")"), "EQ(DTYPE_OF(\"x\"), DType::QInt32)");
  EXPECT_EQ(expanded_constraint("IS_INT32(\"x\")"), "EQ(DTYPE_OF(\"x\"), DType::Int32)");
  EXPECT_EQ(expanded_constraint("IS_FLOAT16(\"x\")"), "EQ(DTYPE_OF(\"x\"), DType::Float16)");
  EXPECT_EQ(expanded_constraint("IS_FLOAT32(\"x\")"), "EQ(DTYPE_OF(\"x\"), DType::Float32)");
  EXPECT_EQ(expanded_constraint("IS_FLOAT(\"x\")"), "EQ(DTYPE_OF(\"x\"), DType::Float32)");
  const char* dims[][2] = {{"DIM_BATCHES", "0"},   {"DIM_HEIGHT", "1"},     {"DIM_WIDTH", "2"},
                           {"DIM_DEPTH", "3"},     {"DIM_FILTHEIGHT", "0"}, {"DIM_FILTWIDTH", "1"},
                           {"DIM_FILTDEPTH", "2"}, {"DIM_NFILTS", "3"}};
  for (auto& [macro, dim] : dims)
    EXPECT_EQ(expanded_constraint(std::string("GT(") + macro + "(\"y\"), 1)"),
              std::string("GT(DIM_OF(\"y\", ") + dim + "), 1)")
        << macro;
  EXPECT_EQ(expanded_constraint("SAME_SHAPE(\"x\", \"y\")"),
            "AND(EQ(DIM_OF(\"x\", 3), DIM_OF(\"y\", 3)), EQ(DIM_OF(\"x\", 2), DIM_OF(\"y\", 2)), "
            "EQ(DIM_OF(\"x\", 1), DIM_OF(\"y\", 1)), EQ(DIM_OF(\"x\", 0), DIM_OF(\"y\", 0)))");
}

TEST(HtpMacros, ReplacementMacrosExpandAsTheSeedStates) {
  EXPECT_EQ(
      expanded_replacement(
          "Op(\"Conv\", AUTOSPLIT_SLICE(\"x\", gen_Shape(0, 0, 0, SPLIT_START(\"I\")), "
          "gen_ShapeOf(\"y\")))"),
      "Op(\"Conv\", WITH_SIZE(gen_ShapeOf(\"y\"), WITH_TYPE(\"x\", Op(\"Slice_shape\", \"x\", "
      "gen_Shape(0, 0, 0, SPLIT_START(\"I\")), gen_ShapeOf(\"y\")))))");
  EXPECT_EQ(
      expanded_replacement("Op(\"Conv\", TYPICAL_SLICE(\"x\", \"I\"))"),
      "Op(\"Conv\", WITH_SIZE(AUTOSPLIT_SHAPEFN_APPLY(simple_split_size, \"I\", \"x\"), "
      "WITH_TYPE(\"x\", Op(\"Slice_shape\", \"x\", AUTOSPLIT_SHAPEFN_APPLY(simple_split_start, "
      "\"I\", \"x\"), AUTOSPLIT_SHAPEFN_APPLY(simple_split_size, \"I\", \"x\")))))");
  EXPECT_EQ(
      expanded_replacement("Op(\"Conv\", CHANGEDIM_SLICE(\"x\", \"I\", 1))"),
      "Op(\"Conv\", WITH_SIZE(AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_size, \"I\", \"x\", 1), "
      "WITH_TYPE(\"x\", Op(\"Slice_shape\", \"x\", AUTOSPLIT_SHAPEFN_APPLY("
      "simpledim_split_start, \"I\", \"x\", 1), AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_size, "
      "\"I\", \"x\", 1)))))");
  Rule r = rule("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"TopK\", \"x\"), OK, "
                "OpMultiOut(2, 1, \"TopK.v2\", \"x\", gen_ConstScalar_i32(3)))");
  EXPECT_EQ(to_text(*r.replacement),
            "Op(\"$Out\", WITH_MULTI_OUT(2, Op(\"TopK.v2\", \"x\", gen_ConstScalar_i32(3))), "
            "gen_Shape(0, 0, 2, 1))");
}

TEST(HtpMacros, HeaderAndLocalMacros) {
  Rule r = rule(
      "#define RELU_OF(X) Op(FROM_DEFAULT_PACKAGE(\"Relu\"), \\\n    X)\n"
      "DEF_PACKAGE_OPTIMIZATION(EARLY, RELU_OF(\"x\"), GT(TILE_HEIGHT, 0), CAST_TO_FP16(\"x\"))");
  EXPECT_EQ(to_text(*r.match), "Op(\"Relu\", \"x\")");
  EXPECT_EQ(to_text(*r.constraint), "GT(OPTION_UINT(\"tile_height\"), 0)");
  EXPECT_EQ(to_text(*r.replacement),
            "WITH_SIZE(\"x\", WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, Op(\"QNN_Cast\", \"x\")))");
}

// As the C preprocessor reads them, a #define takes effect from its line
// on, a later one replaces it, and #undef ends it: each rule is read with
// the definitions above it.
TEST(HtpMacros, DefinitionsTakeEffectFromTheirLineOn) {
  RuleFile f = read("#define IN \"a\"\n"
                    "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", IN), OK, IN)\n"
                    "#define IN \"b\"\n"
                    "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", IN), OK, IN)\n"
                    "#undef IN\n"
                    "#define IS_FLOAT(X) EQ(DTYPE_OF(X), DType::Int32)\n"
                    "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"c\"), IS_FLOAT(\"c\"), \"c\")\n"
                    "#undef IS_FLOAT\n"
                    "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"d\"), IS_FLOAT(\"d\"), \"d\")\n");
  ASSERT_EQ(f.rules.size(), 4u);
  EXPECT_EQ(to_text(*f.rules[0].match), "Op(\"A\", \"a\")");
  EXPECT_EQ(to_text(*f.rules[1].match), "Op(\"A\", \"b\")");
  EXPECT_EQ(to_text(*f.rules[2].constraint), "EQ(DTYPE_OF(\"c\"), DType::Int32)");
  // The seed's macros are part of the rule grammar: after #undef of the
  // file's own IS_FLOAT, the seed's is in effect again.
  EXPECT_EQ(to_text(*f.rules[3].constraint), "EQ(DTYPE_OF(\"d\"), DType::Float32)");
}

// A rule wrapper redefined, after a use, with a body that does not parse
// (found by the htp_rules harness: the use was read with the broken
// definition and expanded a null body).
TEST(HtpMacros, ARuleWrapperRedefinedLaterDoesNotChangeAnEarlierUse) {
  RuleFile f = read("#define NEG(F) \\\n"
                    "  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(F, \"x\"), OK, Op(\"Neg\", \"x\"))\n"
                    "NEG(\"Tanh\")\n"
                    "#define NEG(F) \\\n"
                    "  DEF_PACKAGE_OPTIMIZATION(EARLY, Op(F, \"x\"), OK, Op(\"Neg\", \"x\"\n"
                    "NEG(\"Sigmoid\")\n");
  ASSERT_EQ(f.rules.size(), 2u);
  EXPECT_FALSE(f.rules[0].malformed());
  EXPECT_EQ(to_text(*f.rules[0].match), "Op(\"Tanh\", \"x\")");
  // The use after the broken definition expands to a rule that does not
  // parse, as the compiler would see it.
  EXPECT_TRUE(f.rules[1].malformed());
  ASSERT_FALSE(f.rules[1].diagnostics.empty());
  const core::Span& at = f.rules[1].diagnostics[0].span;
  EXPECT_EQ(at.file->location(at.begin).line, 6u);
}

// A file's own macros expand as the C preprocessor expands them: `#`
// makes a string, `##` pastes tokens, an empty body expands to nothing,
// arguments are expanded first except as operands of `#` and `##`, and
// __VA_ARGS__ takes the rest. The HTP headers' macros in the result
// (IS_QUINT8 below) expand afterwards.
TEST(HtpMacros, TheFilesMacrosExpandAsThePreprocessorExpandsThem) {
  RuleFile f =
      read("#define STR(X) #X\n"
           "#define XSTR(X) STR(X)\n"
           "#define NAME Relu\n"
           "#define PKG(X) \"q::\" #X\n"
           "#define IS_Q(N, X) IS_QUINT##N(X)\n"
           "#define EMPTY\n"
           "#define IGNORE(X)\n"
           "#define OPS(N, ...) Op(N, __VA_ARGS__)\n"
           "#define NEG_OF(F) DEF_PACKAGE_OPTIMIZATION(EARLY, Op(#F, \"x\"), OK, "
           "Op(\"Neg\", \"x\"))\n"
           "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(STR(NAME), \"x\"), OK, Op(XSTR(NAME), \"x\"))\n"
           "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(PKG(Relu), \"x\"), IS_Q(8, \"x\"), "
           "Op(STR(  q::Add.v2  ), \"x\"))\n"
           "DEF_PACKAGE_OPTIMIZATION(EARLY EMPTY, Op(\"A\", IGNORE((junk, x)) \"x\" EMPTY), OK, "
           "OPS(\"Add\", \"x\", \"x\"))\n"
           "NEG_OF(Tanh)\n");
  ASSERT_EQ(f.rules.size(), 4u);
  for (const Rule& r : f.rules)
    ASSERT_FALSE(r.malformed()) << r.diagnostics.at(0).message;
  EXPECT_EQ(to_text(*f.rules[0].match), "Op(\"NAME\", \"x\")");
  EXPECT_EQ(to_text(*f.rules[0].replacement), "Op(\"Relu\", \"x\")");
  EXPECT_EQ(to_text(*f.rules[1].match), "Op(\"q::Relu\", \"x\")");
  EXPECT_EQ(to_text(*f.rules[1].constraint), "EQ(DTYPE_OF(\"x\"), DType::QUInt8)");
  // The argument's spelling, without the blanks around it.
  EXPECT_EQ(to_text(*f.rules[1].replacement), "Op(\"q::Add.v2\", \"x\")");
  EXPECT_EQ(to_text(*f.rules[2].match), "Op(\"A\", \"x\")");
  EXPECT_EQ(to_text(*f.rules[2].replacement), "Op(\"Add\", \"x\", \"x\")");
  EXPECT_EQ(f.rules[3].macro, "DEF_PACKAGE_OPTIMIZATION");
  EXPECT_EQ(to_text(*f.rules[3].match), "Op(\"Tanh\", \"x\")");
  // An expansion's text points at the use; an argument at itself.
  EXPECT_EQ(f.rules[1].match->span.text(), "Op(PKG(Relu), \"x\")");
}

// What cpp rejects in a use of a file's macro is an error at the use, and
// the rule's other errors are still reported: a wrong argument count (of a
// file's macro or a header's) does not hide an unknown name beside it, nor
// is the use left as written reported again as an unknown function.
TEST(HtpMacros, AMacrosErrorsDoNotHideTheRulesOthers) {
  RuleFile f =
      read("#define TWO(A, B) ADD(A, B)\n"
           "#define PASTE(A, B) A##B\n"
           "#define HASH(A) #B\n"
           "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), "
           "AND(GT(TWO(1), 0), IS_QUINT8(\"x\", \"y\"), EQ(NO_SUCH_FN(\"x\"), 1)), \"x\")\n"
           "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), GT(PASTE(+, -), 0), \"x\")\n"
           "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), GT(HASH(1), 0), \"x\")\n"
           "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), GT(TWO(1, 2), 0), TWO(\"x\"\n");
  ASSERT_EQ(f.rules.size(), 4u);
  std::vector<std::string> messages;
  for (const core::Diagnostic& d : f.rules[0].diagnostics)
    messages.push_back(std::string(d.span.text()) + ": " + d.message);
  EXPECT_EQ(messages, (std::vector<std::string>{
                          "TWO: macro TWO takes 2 arguments, not 1",
                          "IS_QUINT8: IS_QUINT8 takes 1 operand, not 2",
                          "NO_SUCH_FN: unknown constraint function 'NO_SUCH_FN'",
                      }));
  ASSERT_EQ(f.rules[1].diagnostics.size(), 1u);
  EXPECT_EQ(f.rules[1].diagnostics[0].message,
            "pasting \"+\" and \"-\" in macro PASTE does not give a valid preprocessing token");
  ASSERT_EQ(f.rules[2].diagnostics.size(), 1u);
  EXPECT_EQ(f.rules[2].diagnostics[0].message, "'#' is not followed by a parameter of macro HASH");
  ASSERT_FALSE(f.rules[3].diagnostics.empty());
  EXPECT_EQ(f.rules[3].diagnostics[0].message, "unterminated argument list invoking macro TWO");
}

// Each rule's expansion is bounded, and so are all of a file's together,
// in proportion to its size: else every rule of a file may use a doubling
// macro, and the work grows as rules times the bound per rule (found by the
// htp_rules harness, whose executions slowed to 30 a second).
TEST(HtpMacros, AFilesExpansionsTogetherAreBoundedByItsSize) {
  std::string text = "#define D0 Op(\"A\", \"x\")\n";
  for (int i = 1; i < 20; ++i)
    text += "#define D" + std::to_string(i) + " Op(\"Add\", D" + std::to_string(i - 1) + ", D" +
            std::to_string(i - 1) + ")\n";
  const int kRules = 300;
  for (int r = 0; r < kRules; ++r)
    text += "DEF_PACKAGE_OPTIMIZATION(EARLY, D19, OK, \"x\")\n";
  RuleFile f = read(text);
  ASSERT_EQ(f.rules.size(), size_t(kRules));
  size_t budget = kMaxExpandedNodes + kExpandedNodesPerFileByte * text.size();
  size_t per_rule = 0, per_file = 0;
  for (const Rule& r : f.rules) {
    ASSERT_EQ(r.diagnostics.size(), 1u);
    const std::string& m = r.diagnostics[0].message;
    if (m == "macro expansion makes more than 100000 tokens")
      ++per_rule;
    else if (m == "the macro expansions of this file's rules make more than 16 tokens per byte of "
                  "the file in all")
      ++per_file;
  }
  // Every rule stopped at one bound or the other; those that reached the
  // bound of a rule used up at most the file's budget between them.
  EXPECT_EQ(per_rule + per_file, size_t(kRules));
  EXPECT_GE(per_rule, 1u);
  EXPECT_LE(per_rule * kMaxExpandedNodes, budget);
  EXPECT_GE(per_file, size_t(kRules) - budget / kMaxExpandedNodes);
}

TEST(HtpMacros, ErrorsInExpansionsPointAtTheUse) {
  RuleFile f = read("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), IS_FLOAT(\"y\"), \"x\")");
  ASSERT_EQ(f.rules[0].diagnostics.size(), 1u);
  EXPECT_EQ(f.rules[0].diagnostics[0].span.text(), "\"y\"");
}

TEST(HtpRules, PassPriorities) {
  EXPECT_EQ(pass_priority("EARLY"), 3050);
  EXPECT_EQ(pass_priority("MIDDLE"), 20050);
  EXPECT_EQ(pass_priority("LATE"), 21050);
  EXPECT_EQ(pass_priority("GRAPH_CLEANUP"), 50);
  EXPECT_EQ(pass_priority("CLEANUP_GRAPH"), 100);
  EXPECT_EQ(pass_priority("TILING"), 11000);
  EXPECT_EQ(pass_priority("HARD_OPS"), 20000);
  EXPECT_EQ(pass_priority("NOT_A_PASS"), std::nullopt);
  Rule r = rule("DEF_PACKAGE_OPTIMIZATION(EARLY + 12, Op(\"A\", \"x\"), OK, \"x\")");
  EXPECT_EQ(r.pass.text(), "EARLY+12");
  EXPECT_EQ(r.pass.priority, 3062);
}

TEST(HtpRules, Constants) {
  RuleFile f = read("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), "
                    "AND(EQ(010, 8), EQ(0x1FU, 31U), EQ(12L, 12), EQ(-1.5e-1f, -0.15)), \"x\")");
  ASSERT_FALSE(f.malformed());
  const Rule& r = f.rules[0];
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, core::Severity::Warning);
  EXPECT_EQ(r.diagnostics[0].message, "octal constant 010 is 8 in decimal");
  const auto& args = std::get<ast::Call>(r.constraint->node).args;
  auto lhs = [&](size_t i) { return std::get<ast::Call>(args[i]->node).args[0]; };
  EXPECT_EQ(std::get<ast::IntLit>(lhs(0)->node).value, 8u);
  EXPECT_EQ(std::get<ast::IntLit>(lhs(1)->node).value, 31u);
}

TEST(HtpRules, AdjacentStringsConcatenate) {
  Rule r = rule("DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"Re\" /* c */ \"lu\", \"x\"), OK, \"x\")");
  EXPECT_EQ(to_text(*r.match), "Op(\"Relu\", \"x\")");
}

TEST(HtpRules, RegionsAnnotationsAndKinds) {
  RuleFile f =
      read("// :::EXTERNAL_SHAPEFN::: { OpRef my_fn(Replacement &rpx, OpRef const &a, int b); }\n"
           "DEF_PACKAGE_OPTIMIZATION(EARLY, Op(\"A\", \"x\"), OK, \"x\") junk ) ( ;\n"
           "DEF_PACKAGE_OP((impl<T>), \"A\")\n"
           "DEF_TENSOR_PROPERTIES(Op(\"A\", \"in\"), Flat(\"in\"))\n"
           "DEF_PACKAGE_PARAM_ORDER(\"A\", \"p\", true, nullptr)\n");
  ASSERT_FALSE(f.malformed());
  ASSERT_EQ(f.rules.size(), 4u);
  EXPECT_EQ(f.rules[0].kind, ItemKind::Optimization);
  EXPECT_EQ(f.rules[1].kind, ItemKind::Op);
  EXPECT_EQ(f.rules[1].function, "impl<T>");
  EXPECT_EQ(f.rules[1].op_name, "A");
  EXPECT_EQ(f.rules[2].kind, ItemKind::TensorProperties);
  EXPECT_EQ(f.rules[3].kind, ItemKind::ParamOrder);
  ASSERT_EQ(f.externals.size(), 1u);
  EXPECT_EQ(f.externals[0].return_type, "OpRef");
  EXPECT_EQ(f.externals[0].name, "my_fn");
  EXPECT_EQ(f.externals[0].params,
            (std::vector<std::string>{"Replacement &rpx", "OpRef const &a", "int b"}));
}

} // namespace
} // namespace teval::parser::htp
