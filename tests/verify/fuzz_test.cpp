// The pieces of `teval fuzz`: the sandbox, case addressing, the shrinker
// and signatures.
#include "core/error.h"
#include "verify/emit_mlir.h"
#include "verify/fuzz.h"
#include "verify/fuzz_case.h"
#include "verify/program.h"
#include "verify/sandbox.h"
#include "verify/shrink.h"

#include <gtest/gtest.h>

#include <csignal>
#include <thread>

namespace teval::verify {
namespace {

using namespace std::chrono_literals;

TEST(Sandbox, ReturnsWhatTheChildReturns) {
  ChildResult r = run_in_child([](Stage&) { return std::string("hello\n\0x", 8); }, 10s);
  EXPECT_EQ(r.end, ChildResult::End::Returned);
  EXPECT_EQ(r.payload, std::string("hello\n\0x", 8));
}

TEST(Sandbox, ACrashNamesItsStageAndSignal) {
  ChildResult r = run_in_child(
      [](Stage& s) {
        s.begin("jit", 10s);
        std::raise(SIGSEGV);
        return std::string("unreachable");
      },
      10s);
  EXPECT_EQ(r.end, ChildResult::End::Crashed);
  EXPECT_EQ(r.stage, "jit");
  // Under AddressSanitizer its own handler reports the SIGSEGV and aborts.
  EXPECT_TRUE(r.detail.find("signal 11") != std::string::npos ||
              r.detail.find("signal 6") != std::string::npos ||
              r.detail.find("exited with status 1") != std::string::npos)
      << r.detail;
}

TEST(Sandbox, AStagePastItsBudgetIsKilledAsAHang) {
  auto start = std::chrono::steady_clock::now();
  ChildResult r = run_in_child(
      [](Stage& s) {
        s.begin("first", 10s);
        s.begin("slow", 10ms);
        for (;;)
          std::this_thread::sleep_for(1s);
        return std::string();
      },
      10s);
  EXPECT_EQ(r.end, ChildResult::End::Hung);
  EXPECT_EQ(r.stage, "slow");
  // The budget of the stage that hung, plus the grace, not the first's.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 8s);
}

TEST(Cases, ACaseDependsOnlyOnTheSeedAndItsIndex) {
  CaseSpace space{"all", 7};
  Case a = make_case(space, 12345);
  Case b = make_case(space, 12345);
  EXPECT_EQ(a.program.text, b.program.text);
  EXPECT_EQ(a.input_seed, b.input_seed);
  EXPECT_EQ(a.program.lang, "tile"); // odd cases of `all` are Tile
  EXPECT_EQ(make_case(space, 12344).program.lang, "antares");
  EXPECT_NE(make_case(space, 12346).program.text +
                std::to_string(make_case(space, 12346).input_seed),
            a.program.text + std::to_string(a.input_seed));
}

// The linalg profile (MLIR's backends): Tile cases that teval emit --to mlir
// expresses. Without it most Tile cases have a constraint, a read that
// skips its point or a write linalg has no form for.
TEST(Cases, TheLinalgProfileDrawsWhatTheMlirEmitterExpresses) {
  auto expressed = [](const core::Kernel& k) {
    try {
      emit_mlir(k, "<test>", {});
      return true;
    } catch (const Inexpressible&) {
      return false;
    }
  };
  CaseSpace plain{"tile", 7};
  CaseSpace narrow = plain;
  narrow.profile = *Profile::named("linalg");
  int declined = 0;
  for (uint64_t i = 0; i < 40; ++i) {
    try {
      declined += !expressed(elaborate_program(make_case(plain, i).program).kernel);
    } catch (const core::Error&) { // a program the interpreter rejects
    }
    EXPECT_TRUE(expressed(elaborate_program(make_case(narrow, i).program).kernel)) << i;
  }
  EXPECT_GE(declined, 20);
}

Program antares(const std::string& text,
                std::vector<std::pair<std::string, parser::InputType>> inputs) {
  return Program{"antares", text, std::move(inputs), "", {}};
}

parser::InputType f32(core::Shape shape) {
  return {core::DType::Float32, std::move(shape), {}};
}

bool elaborates(const Program& p) {
  std::shared_ptr<const core::SourceFile> keep;
  try {
    elaborate(p, keep);
  } catch (const core::Error&) {
    return false;
  }
  return true;
}

TEST(Shrink, StatementsAreSplitAtTopLevelSemicolons) {
  EXPECT_EQ(antares_statements("a[N] = b[N]; c[N] = a[N].when([N < 1; ], 0.0) ;"),
            (std::vector<std::string>{"a[N] = b[N]", "c[N] = a[N].when([N < 1; ], 0.0)"}));
}

TEST(Shrink, ADroppedStatementsOutputBecomesAnInputOfItsType) {
  Program p = antares("mediate0[N] = input0[N] + 1.0; output0[N] = mediate0[N] * 2.0",
                      {{"input0", f32({3})}});
  std::vector<Program> c = shrink_candidates(p);
  auto it = std::find_if(c.begin(), c.end(), [](const Program& q) {
    return q.text == "output0[N] = mediate0[N] * 2.0";
  });
  ASSERT_NE(it, c.end());
  ASSERT_EQ(it->inputs.size(), 1u); // input0 is no longer read
  EXPECT_EQ(it->inputs[0].first, "mediate0");
  EXPECT_EQ(it->inputs[0].second.shape, core::Shape({3}));
}

TEST(Shrink, ReachesTheSmallestProgramThatStillFails) {
  // "Fails" while the program divides: the shrinker must keep one division
  // and drop everything else.
  Program p = antares("mediate0[N, M] = input0[N, M] * 3.5 + input1[M]; "
                      "output0[N] +=! (mediate0[N, M] / input1[M]).call(`exp`) where N in 4",
                      {{"input0", f32({4, 5})}, {"input1", f32({5})}});
  ShrinkResult r = shrink(
      p, [](const Program& q) { return elaborates(q) && q.text.find('/') != std::string::npos; });
  EXPECT_EQ(statement_count(r.program), 1) << r.program.text;
  EXPECT_LE(r.program.inputs.size(), 2u) << r.program.text;
  EXPECT_LT(r.program.text.size(), 40u) << r.program.text;
  for (const auto& [name, type] : r.program.inputs)
    for (int64_t d : type.shape)
      EXPECT_LE(d, 1) << name;
}

TEST(Shrink, ATileContractionAnEpilogueReadsBecomesAnInputAndUnusedInputsGo) {
  // "Fails" while the program takes remainder: the contraction, its index
  // variables and both inputs must go, O becoming the one input.
  Program p;
  p.lang = "tile";
  p.entry = "f";
  p.text = "Tensor f(const Tensor& A, const Tensor& B) {\n"
           "  TensorDim DA0, DB0;\n"
           "  TensorIndex i, j;\n"
           "  A.bind_dims(DA0);\n"
           "  B.bind_dims(DB0);\n"
           "  auto O = TensorOutput(DA0);\n"
           "  O(i) += A(i) * B(j);\n"
           "  O.add_constraint(j < 2);\n"
           "  auto E = remainder((O * 1.5));\n"
           "  return E;\n"
           "}\n";
  p.inputs = {{"A", f32({3})}, {"B", f32({4})}};
  ShrinkResult r = shrink(p, [](const Program& q) {
    return elaborates(q) && q.text.find("remainder(") != std::string::npos;
  });
  EXPECT_EQ(statement_count(r.program), 1) << r.program.text;
  ASSERT_EQ(r.program.inputs.size(), 1u) << r.program.text;
  EXPECT_EQ(r.program.inputs[0].first, "O");
  EXPECT_EQ(r.program.text.find("TensorIndex"), std::string::npos) << r.program.text;
  EXPECT_EQ(r.program.text.find("bind_dims"), std::string::npos) << r.program.text;
}

TEST(Shrink, ATileEpilogueIsDroppedWhenTheContractionAloneFails) {
  Program p;
  p.lang = "tile";
  p.entry = "f";
  p.text = "Tensor f(const Tensor& A) {\n"
           "  TensorDim DA0;\n"
           "  TensorIndex i;\n"
           "  A.bind_dims(DA0);\n"
           "  auto O = TensorOutput(DA0);\n"
           "  O(i / 2) = A(i);\n"
           "  auto E = exp(O);\n"
           "  return E;\n"
           "}\n";
  p.inputs = {{"A", f32({4})}};
  ShrinkResult r = shrink(p, [](const Program& q) {
    return elaborates(q) && q.text.find("O(i / 2) = ") != std::string::npos;
  });
  EXPECT_EQ(statement_count(r.program), 1) << r.program.text;
  EXPECT_NE(r.program.text.find("return O;"), std::string::npos) << r.program.text;
}

TEST(Signature, NamesSizesAndConstantsDoNotMatterButOperatorsDo) {
  Disagreement d{"value", "external", ""};
  std::string a = finding_signature(
      antares("output0[N] = input0[N] * 2.0 where N in 3", {{"input0", f32({3})}}), d);
  std::string b = finding_signature(
      antares("output1[M] = input4[M] * 7.5 where M in 9", {{"input4", f32({9})}}), d);
  std::string c = finding_signature(
      antares("output0[N] = input0[N] + 2.0 where N in 3", {{"input0", f32({3})}}), d);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a.rfind("external-value-", 0), 0u);
  Disagreement e{"crash", "jit", ""};
  EXPECT_NE(finding_signature(
                antares("output0[N] = input0[N] * 2.0 where N in 3", {{"input0", f32({3})}}), e),
            a);
}

// Another compiler's crash or failed exit is grouped by its first
// diagnostic, with numbers, addresses and paths taken out: one assertion
// reached from programs of different shapes is one finding; another
// message is another. Without a message, the program's shape decides.
TEST(Signature, ACompilersFailureIsGroupedByWhatItSaid) {
  auto said = [](const std::string& err) {
    return Disagreement{"exit", "external",
                        "the command exited with status 1\nits standard error ends:\n" + err};
  };
  Program mul = antares("output0[N] = input0[N] * 2.0 where N in 3", {{"input0", f32({3})}});
  Program sum = antares("output0[N] +=! input0[N, K] where N in 3", {{"input0", f32({3, 4})}});
  std::string a = finding_signature(
      mul, said("note: compiling\nerror: /tmp/x1/a.mlir:3:7: op 12 failed at 0x7ffd12\n"));
  std::string b = finding_signature(
      sum, said("note: compiling\nerror: /var/y/b.mlir:40:1: op 7 failed at 0x5a0\nmore\n"));
  std::string c = finding_signature(sum, said("error: unsupported reduction\n"));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a.rfind("external-exit-", 0), 0u);
  // No diagnostic: the shapes differ.
  EXPECT_NE(finding_signature(mul, said("")), finding_signature(sum, said("")));
}

// A wrong value is grouped by the program's shape with the kinds of its
// reductions merged: one wrong loop transformation shows under each.
TEST(Signature, AWrongValueUnderEveryReductionIsOneFinding) {
  Disagreement d{"value", "external", ""};
  auto with = [&](const std::string& op) {
    return finding_signature(
        antares("output0[N] " + op + " input0[N, K] where N in 3", {{"input0", f32({3, 4})}}), d);
  };
  EXPECT_EQ(with("+=!"), with(">=!"));
  EXPECT_EQ(with("+=!"), with("*=!"));
  Disagreement crash{"crash", "jit", ""};
  auto crashed = [&](const std::string& op) {
    return finding_signature(
        antares("output0[N] " + op + " input0[N, K] where N in 3", {{"input0", f32({3, 4})}}),
        crash);
  };
  EXPECT_NE(crashed("+=!"), crashed(">=!"));
}

} // namespace
} // namespace teval::verify
