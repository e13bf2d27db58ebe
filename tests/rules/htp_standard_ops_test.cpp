// teval's standard ops and the ops file's selectors and functions, each
// model against values computed by hand or by a plain loop.
#include "core/error.h"
#include "rules/htp_ops.h"
#include "tests/rules/htp_test_support.h"

#include <gtest/gtest.h>

#include <cmath>

namespace teval::rules {
namespace {

using htp_test::graph;

core::Tensor run(const std::string& text) {
  return evaluate(graph(text), OpSet::standard(), {});
}

std::vector<int64_t> ints(const core::Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(t.get(i).i);
  return out;
}

std::vector<double> floats(const core::Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(t.get(i).f);
  return out;
}

// A quantized op computes on real values, (q - zero) * step, and
// requantizes into its output's encoding.
TEST(StandardOps, QuantizedArithmeticIsOnRealValues) {
  // a: (130 - 128) * 0.5 = 1, (100 - 128) * 0.5 = -14; b: (14 - 10) *
  // 0.25 = 1, (0 - 10) * 0.25 = -2.5. Sums 2 and -16.5; in zero 100 step
  // 0.75: 2 / 0.75 + 100 = 102.67 -> 103, -16.5 / 0.75 + 100 = 78.
  core::Tensor sum = run("const a: quint8[1, 1, 1, 2] zero 128 step 0.5 = [130, 100]\n"
                         "const b: quint8[1, 1, 1, 2] zero 10 step 0.25 = [14, 0]\n"
                         "s = Add(a, b): quint8[1, 1, 1, 2] zero 100 step 0.75\noutput s\n");
  EXPECT_EQ(ints(sum), (std::vector<int64_t>{103, 78}));
  // Products 1 and 35; 35 / 0.75 + 100 = 146.67 -> 147.
  core::Tensor product = run("const a: quint8[1, 1, 1, 2] zero 128 step 0.5 = [130, 100]\n"
                             "const b: quint8[1, 1, 1, 2] zero 10 step 0.25 = [14, 0]\n"
                             "s = Mul(a, b): quint8[1, 1, 1, 2] zero 100 step 0.75\noutput s\n");
  EXPECT_EQ(ints(product), (std::vector<int64_t>{101, 147}));
  // Float operands: plain arithmetic.
  core::Tensor f = run("const a: float32[1, 1, 1, 2] = [1.5, -2]\n"
                       "const b: float32[1, 1, 1, 2] = [0.25, 8]\n"
                       "s = Sub(a, b): float32[1, 1, 1, 2]\noutput s\n");
  EXPECT_EQ(floats(f), (std::vector<double>{1.25, -10}));
}

// Quantize rounds to nearest, ties to even, after clamping to the dtype's
// range; Dequantize and Requantize read the input's encoding.
TEST(StandardOps, QuantizationRoundsTiesToEvenAndSaturates) {
  // x / 0.5: -0.5, -1.5, 2.5, 3.5, 600, -600 -> -0 (0), -2, 2, 4, 127, -128.
  core::Tensor q = run("const x: float32[1, 1, 1, 6] = [-0.25, -0.75, 1.25, 1.75, 300, -300]\n"
                       "q = Quantize(x): qint8[1, 1, 1, 6] zero 0 step 0.5\noutput q\n");
  EXPECT_EQ(ints(q), (std::vector<int64_t>{0, -2, 2, 4, 127, -128}));
  // QUInt16 saturates at 65535 (its storage, int32, would hold more).
  core::Tensor wide = run("const x: float32[1, 1, 1, 2] = [63.5, -1]\n"
                          "q = Quantize(x): quint16[1, 1, 1, 2] zero 0 step 0.00048828125\n"
                          "output q\n");
  EXPECT_EQ(ints(wide), (std::vector<int64_t>{65535, 0}));
  // (5 + 3) * 0.125 = 1; (-32768 + 3) * 0.125 = -4095.625.
  core::Tensor d = run("const q: qint16[1, 1, 1, 2] zero -3 step 0.125 = [5, -32768]\n"
                       "d = Dequantize(q): float32[1, 1, 1, 2]\noutput d\n");
  EXPECT_EQ(floats(d), (std::vector<double>{1, -4095.625}));
  // To float16 when the output is float16: 0.1 * 3 -> 0.300048828125 (the
  // float16 nearest 0.30000000447).
  core::Tensor h = run("const q: quint8[1, 1, 1, 1] zero 0 step 0.1 = [3]\n"
                       "d = Dequantize(q): float16[1, 1, 1, 1]\noutput d\n");
  EXPECT_EQ(floats(h), (std::vector<double>{0.300048828125}));
  // (131 - 128) * 0.5 = 1.5 -> 1.5 / 0.25 = 6; (129 - 128) * 0.5 = 0.5 ->
  // 0.5 / 1 + 7 = 7.5 -> 8 (the even neighbour).
  core::Tensor r = run("const q: quint8[1, 1, 1, 1] zero 128 step 0.5 = [131]\n"
                       "r = Requantize(q): quint16[1, 1, 1, 1] zero 0 step 0.25\noutput r\n");
  EXPECT_EQ(ints(r), (std::vector<int64_t>{6}));
  core::Tensor tie = run("const q: quint8[1, 1, 1, 1] zero 128 step 0.5 = [129]\n"
                         "r = Requantize(q): quint8[1, 1, 1, 1] zero 7 step 1\noutput r\n");
  EXPECT_EQ(ints(tie), (std::vector<int64_t>{8}));
}

TEST(StandardOps, ReluVariantsClampRealValues) {
  // Reals (q - 10) * 0.5: -5, 0, 5, 15 -> clamped to [0, 6]: 0, 0, 5, 6 ->
  // codes 10, 10, 20, 22.
  core::Tensor six = run("const q: quint8[1, 1, 1, 4] zero 10 step 0.5 = [0, 10, 20, 40]\n"
                         "r = Relu6(q): quint8[1, 1, 1, 4] zero 10 step 0.5\noutput r\n");
  EXPECT_EQ(ints(six), (std::vector<int64_t>{10, 10, 20, 22}));
  core::Tensor mm = run("const x: float32[1, 1, 1, 3] = [-3, 0.5, 9]\n"
                        "const lo: float32[1, 1, 1, 1] = [-1]\n"
                        "const hi: float32[1, 1, 1, 1] = [2]\n"
                        "r = ReluMinMax(x, lo, hi): float32[1, 1, 1, 3]\noutput r\n");
  EXPECT_EQ(floats(mm), (std::vector<double>{-1, 0.5, 2}));
  // A bound between two codes: 1.2 / 0.5 + 10 = 12.4 -> 12.
  core::Tensor x = run("const q: quint8[1, 1, 1, 2] zero 10 step 0.5 = [5, 200]\n"
                       "const top: float32[1, 1, 1, 1] = [1.2]\n"
                       "r = ReluX(q, top): quint8[1, 1, 1, 2] zero 10 step 0.5\noutput r\n");
  EXPECT_EQ(ints(x), (std::vector<int64_t>{10, 12}));
}

// Softmax(in) and Softmax(in, beta, axis) along depth, against the formula
// in double.
TEST(StandardOps, SoftmaxWithAndWithoutBeta) {
  const double x[3] = {1, 2, 3.5};
  for (double beta : {1.0, 2.0}) {
    std::string g = "const x: float32[1, 1, 1, 3] = [1, 2, 3.5]\n";
    if (beta == 1.0) {
      g += "s = Softmax(x): float32[1, 1, 1, 3]\noutput s\n";
    } else {
      g += "const beta: float32[1, 1, 1, 1] = [2]\nconst axis: int32[1, 1, 1, 1] = [3]\n"
           "s = Softmax(x, beta, axis): float32[1, 1, 1, 3]\noutput s\n";
    }
    std::vector<double> got = floats(run(g));
    double sum = 0;
    for (double v : x)
      sum += std::exp(beta * (v - 3.5));
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(got[i], std::exp(beta * (x[i] - 3.5)) / sum, 1e-6) << beta << " " << i;
  }
}

TEST(StandardOps, SlicesLayoutAndCasts) {
  // Two pad elements in front of depth, then four from 0: 9, 9, 1, 2.
  core::Tensor pad = run("const x: float32[1, 1, 1, 3] = [1, 2, 3]\n"
                         "shape before = [0, 0, 0, 2]\nshape start = [0, 0, 0, 0]\n"
                         "shape size = [1, 1, 1, 4]\nconst v: float32[1, 1, 1, 1] = [9]\n"
                         "s = SlicePad_shape(x, before, start, size, v): float32[1, 1, 1, 4]\n"
                         "output s\n");
  EXPECT_EQ(floats(pad), (std::vector<double>{9, 9, 1, 2}));
  core::Tensor moved = run("const q: quint8[1, 1, 1, 2] zero 3 step 0.5 = [7, 250]\n"
                           "t = flat_to_vtcm(q): quint8[1, 1, 1, 2] zero 3 step 0.5\n"
                           "f = ForceFormat_Crouton(t): quint8[1, 1, 1, 2] zero 3 step 0.5\n"
                           "output f\n");
  EXPECT_EQ(ints(moved), (std::vector<int64_t>{7, 250}));
  // 1/3 in float32 to float16: 0x3555 = 0.333251953125.
  core::Tensor half = run("const x: float32[1, 1, 1, 1] = [0.33333334]\n"
                          "h = Cast_fp32_to_fp16_plain(x): float16[1, 1, 1, 1]\noutput h\n");
  EXPECT_EQ(floats(half), (std::vector<double>{0.333251953125}));
}

// Reshape keeps the row-major order of the elements; a different count is
// ill-typed. A quantized Softmax computes on real values and encodes into
// its output, float32 here ($encode).
TEST(StandardOps, ReshapeAndAQuantizedSoftmaxWithAFloatOutput) {
  // [[1, 2, 3], [4, 5, 6]] as [3, 2]: [[1, 2], [3, 4], [5, 6]].
  core::Tensor r = run("const x: float32[1, 1, 2, 3] = [1, 2, 3, 4, 5, 6]\n"
                       "r = Reshape(x): float32[1, 1, 3, 2]\noutput r\n");
  EXPECT_EQ(floats(r), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_THROW(run("const x: float32[1, 1, 2, 3] = [1, 2, 3, 4, 5, 6]\n"
                   "r = Reshape(x): float32[1, 1, 2, 2]\noutput r\n"),
               IllTyped);
  // Reals (q - 2) * 0.5: 0, 1, 2; beta 1.
  std::vector<double> got = floats(run("const q: quint8[1, 1, 1, 3] zero 2 step 0.5 = [2, 4, 6]\n"
                                       "const b: float32[1, 1, 1, 1] = [1]\n"
                                       "s = Softmax(q, b): float32[1, 1, 1, 3]\noutput s\n"));
  double sum = std::exp(-2.0) + std::exp(-1.0) + 1;
  EXPECT_EQ(got, (std::vector<double>{float(std::exp(-2.0) / sum), float(std::exp(-1.0) / sum),
                                      float(1 / sum)}));
}

// A definition is picked by the first input's dtype (exact, then class,
// then any) and then by the number of inputs.
TEST(StandardOps, SelectorsPickTheMostSpecificDefinition) {
  OpSet o =
      OpSet::read(core::SourceFile::make("ops.txt", "\"F\": out0[N] = in0[N]\n"
                                                    "\"F\"[float]: out0[N] = in0[N]\n"
                                                    "\"F\"[quantized]: out0[N] = in0[N]\n"
                                                    "\"F\"[qint8]: out0[N] = in0[N]\n"
                                                    "\"F\"[float, 2 inputs]: out0[N] = in0[N]\n"
                                                    "\"G\"[1 input]: out0[N] = in0[N]\n"));
  auto selected = [&](std::optional<HtpType> t, size_t n) {
    const OpDef* d = o.find("F", t, n);
    return d ? d->selector + "/" + std::to_string(d->inputs) : std::string("none");
  };
  EXPECT_EQ(selected(HtpType::Float16, 1), "float/-1");
  EXPECT_EQ(selected(HtpType::Float32, 2), "float/2");
  EXPECT_EQ(selected(HtpType::QInt8, 2), "QInt8/-1");
  EXPECT_EQ(selected(HtpType::QUInt16, 1), "quantized/-1");
  EXPECT_EQ(selected(HtpType::Int32, 1), "/-1");
  EXPECT_EQ(selected(std::nullopt, 0), "/-1");
  EXPECT_EQ(o.find("G", HtpType::Float32, 2), nullptr);
  EXPECT_NE(o.find("G", HtpType::Float32, 1), nullptr);
}

// An ops file's definitions of an op replace every standard model of it;
// the other models stay.
TEST(StandardOps, AnOpsFileReplacesTheModelsOfWhatItDefines) {
  OpSet o = OpSet::read(
      core::SourceFile::make("ops.txt", "\"Add\": out0[N, H, W, C] = in0[N, H, W, C]\n"),
      &OpSet::standard());
  const OpDef* add = o.find("Add", HtpType::QUInt8, 2);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->span.file->name(), "ops.txt");
  EXPECT_EQ(o.definitions().at("Add").size(), 1u);
  ASSERT_NE(o.find("Mul", HtpType::QUInt8, 2), nullptr);
  EXPECT_EQ(o.find("Mul", HtpType::QUInt8, 2)->span.file->name(), "<standard ops>");
  // The text `teval rules ops` prints reads back as an ops file.
  EXPECT_NO_THROW(OpSet::read(core::SourceFile::make("copy.txt", OpSet::standard_text())));
}

TEST(StandardOps, SelectorAndFunctionMistakesAreErrorsOfTheOpsFile) {
  auto error_of = htp_test::ops_file_error;
  EXPECT_EQ(error_of("\"F\"[floaty]: out0[N] = in0[N]\n"),
            "ops.txt:1:4: error: malformed selector item 'floaty': expected one dtype (float32, "
            "quint8, ...), float or quantized, and one count ('2 inputs')");
  EXPECT_EQ(error_of("\"F\"[float, quantized]: out0[N] = in0[N]\n"),
            "ops.txt:1:4: error: malformed selector item 'quantized': expected one dtype "
            "(float32, quint8, ...), float or quantized, and one count ('2 inputs')");
  EXPECT_EQ(error_of("\"F\"[float: out0[N] = in0[N]\n"),
            "ops.txt:1:4: error: expected ']' after the selector");
  EXPECT_EQ(error_of("\"F\"[float]: out0[N] = in0[N]\n\"F\"[float]: out0[N] = -in0[N]\n"),
            "ops.txt:2:1: error: op \"F\"[float] is defined twice");
  EXPECT_EQ(error_of("\"F\": out0[N] = in0[N]\n\"F\"[float]: out0[N] = -in0[N]\n"), "no error");
  EXPECT_EQ(error_of("\"F\": out0[N] = $real(2 * in0[N])\n"),
            "ops.txt:1:1: error: in the program of F: $real(...) takes an element of an input, "
            "inK[...]");
  EXPECT_EQ(error_of("\"F\": out0[N] = $quantize(in0[N]\n"),
            "ops.txt:1:1: error: in the program of F: an unclosed $quantize(...)");
  // A float node has no quantized range: the node's type error.
  Graph g = graph("const a: float32[1, 1, 1, 1] = [1]\nq = Quantize(a): float32[1, 1, 1, 1]\n"
                  "output q\n");
  try {
    evaluate(g, OpSet::standard(), {});
    ADD_FAILURE() << "a float Quantize was evaluated";
  } catch (const IllTyped& e) {
    EXPECT_EQ(e.message, "Quantize's definition uses $out0.qmin of a float32[1, 1, 1, 1] tensor, "
                         "which is not quantized");
  }
}

} // namespace
} // namespace teval::rules
