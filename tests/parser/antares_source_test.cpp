// Reading Antares sources: every seed example parses; golden AST dumps for a
// representative set; the COMPUTE_V1 preamble, f-strings, input_dict.
#include "parser/antares/antares_source.h"

#include "core/error.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

using parser::AntaresSource;
using parser::read_antares;

AntaresSource read_text(const std::string& text) {
  auto file = core::SourceFile::make("test.antares", text);
  return read_antares(*file);
}

std::string dump_source(const AntaresSource& s) {
  std::string out = ast::dump(s.program);
  for (const parser::InputSpec& in : s.inputs)
    out += "input " + in.name + ": " + std::string(core::name(in.dtype)) +
           core::to_string(in.shape) + "\n";
  for (const parser::OutputName& o : s.extra_outputs)
    out += "extra output " + o.name + "\n";
  return out;
}

TEST(AntaresSource, EverySeedExampleParses) {
  auto examples = test::files_with_extension(test::source_dir() / "examples/antares", ".antares");
  ASSERT_EQ(examples.size(), 40u);
  for (const auto& path : examples) {
    SCOPED_TRACE(path.string());
    auto file = core::SourceFile::make(path.string(), test::read_file(path));
    try {
      AntaresSource s = read_antares(*file);
      EXPECT_FALSE(s.program.statements.empty());
    } catch (const core::Error& e) {
      ADD_FAILURE() << e.render();
    }
  }
}

TEST(AntaresSource, GoldenAstDumps) {
  for (const char* name :
       {"matmul", "conv_winograd_3x3", "conv_winograd_3x3_external_helpers", "convolution_with_pad",
        "convolution_with_pad_fused_reduce_axis", "scatter_4d", "one_hot", "multiple_outputs",
        "condition_relu_dynamic_dtype", "logical_bool_operation", "softmax", "scaler_compute",
        "cast"}) {
    SCOPED_TRACE(name);
    auto path = test::source_dir() / "examples/antares" / (std::string(name) + ".antares");
    auto file = core::SourceFile::make(path.string(), test::read_file(path));
    std::string failure = test::check_golden(test::source_dir() / "tests/parser/golden" /
                                                 (std::string(name) + ".ast"),
                                             dump_source(read_antares(*file)));
    EXPECT_TRUE(failure.empty()) << failure;
  }
}

TEST(AntaresSource, BareProgram) {
  AntaresSource s = read_text("output0[N] = input0[N] + 1");
  EXPECT_EQ(ast::dump(s.program), "(= (sub output0 N) (+ (sub input0 N) 1))\n");
  EXPECT_TRUE(s.inputs.empty());
}

TEST(AntaresSource, DashFormWithPreambleArithmetic) {
  AntaresSource s = read_text("- _A, _B = 7, -3; _Q, _M = _A // _B, _A % _B\n"
                              "_C = (_A - 1) * 2\n"
                              "einstein_v2(f\"out[N] = inp[N] * {_Q} + {_M} + {_C} + {_C}\", "
                              "{\"inp\": {\"dtype\": \"int32\", \"shape\": [_C]}})");
  // Python floors: 7 // -3 == -3 and 7 % -3 == -2.
  EXPECT_EQ(ast::dump(s.program),
            "(= (sub out N) (+ (+ (+ (* (sub inp N) (- 3)) (- 2)) 12) 12))\n");
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.inputs[0].shape, core::Shape{12});
  EXPECT_EQ(s.inputs[0].dtype, core::DType::Int32);
}

TEST(AntaresSource, StringFormOfInputDictAndExtraOutputs) {
  AntaresSource s =
      read_text("COMPUTE_V1='- einstein_v2(\"a[N] = x[N]; b[N] = a[N]\", input_dict={\"x\": "
                "\"float16[4, 8]\"}, extra_outputs=[\"a\"])' make");
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.inputs[0].dtype, core::DType::Float16);
  EXPECT_EQ(s.inputs[0].shape, (core::Shape{4, 8}));
  ASSERT_EQ(s.extra_outputs.size(), 1u);
  EXPECT_EQ(s.extra_outputs[0].name, "a");
}

TEST(AntaresSource, TripleQuotedProgramWithContinuations) {
  AntaresSource s = read_text("- _K = 3; \\\n einstein_v2(f\"\"\" \\\n"
                              "  o[N] +=! i[N, K] where K in {_K}; \\\n"
                              "  p[N] = o[N] \\\n"
                              "\"\"\", {})\n");
  EXPECT_EQ(ast::dump(s.program),
            "(+=! (sub o N) (sub i N K) (in K 3))\n(= (sub p N) (sub o N))\n");
}

TEST(AntaresSource, SpansOfExpandedTextPointIntoTheFile) {
  std::string text = "- _S = 2; einstein_v2(f\"o[N] = i[N * {_S}]\", {})";
  auto file = core::SourceFile::make("t", text);
  AntaresSource s = read_antares(*file);
  const auto& assign = std::get<ast::Assign>(s.program.statements[0]->node);
  const auto& sub = std::get<ast::Subscript>(assign.value->node);
  const auto& mul = std::get<ast::Binary>(sub.indices[0]->node);
  EXPECT_EQ(mul.rhs->span.text(), "{_S}");
  EXPECT_EQ(assign.target->span.text(), "o[N]");
  EXPECT_EQ(sub.indices[0]->span.text(), "N * {_S}");
}

struct BadSource {
  const char* text;
  const char* rendered;

  friend void PrintTo(const BadSource& b, std::ostream* os) { *os << b.text; }
};

class AntaresSourceErrors : public ::testing::TestWithParam<BadSource> {};

TEST_P(AntaresSourceErrors, RenderedDiagnostic) {
  auto file = core::SourceFile::make("bad.antares", GetParam().text);
  try {
    read_antares(*file);
    ADD_FAILURE() << "no error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.render(), GetParam().rendered);
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, AntaresSourceErrors,
    ::testing::Values(
        BadSource{"- _A = 1 / 2; einstein_v2(\"o[N] = i[N]\", {})",
                  "bad.antares:1:10: error: `/` gives a float in Python; use `//` for integer "
                  "division\n"
                  "- _A = 1 / 2; einstein_v2(\"o[N] = i[N]\", {})\n"
                  "         ^\n"},
        BadSource{"- einstein_v2(f\"o[N] = i[N] + {_X}\", {})",
                  "bad.antares:1:32: error: `_X` is not defined\n"
                  "- einstein_v2(f\"o[N] = i[N] + {_X}\", {})\n"
                  "                               ^~\n"},
        BadSource{"- _A = 1", "bad.antares:1:2: error: the COMPUTE_V1 text has no "
                              "einstein_v2(...) call\n"
                              "- _A = 1\n"
                              " ^\n"},
        BadSource{"- _A, _B = 1, 2, 3; einstein_v2(\"o[N] = i[N]\", {})",
                  "bad.antares:1:12: error: cannot unpack a list into 2 names\n"
                  "- _A, _B = 1, 2, 3; einstein_v2(\"o[N] = i[N]\", {})\n"
                  "           ^~~~~~~\n"},
        BadSource{"- einstein_v2(\"o[N] = i[N]\", {\"i\": {\"dtype\": \"float8\", \"shape\": "
                  "[2]}})",
                  "bad.antares:1:46: error: unknown dtype \"float8\"\n"
                  "- einstein_v2(\"o[N] = i[N]\", {\"i\": {\"dtype\": \"float8\", \"shape\": "
                  "[2]}})\n"
                  "                                             ^~~~~~~~\n"},
        BadSource{"COMPUTE_V1='einstein_v2(\"o[N] = i[N]\", {})' make",
                  "bad.antares:1:13: error: a COMPUTE_V1 value starts with `- `\n"
                  "COMPUTE_V1='einstein_v2(\"o[N] = i[N]\", {})' make\n"
                  "            ^\n"}));

} // namespace
} // namespace teval
