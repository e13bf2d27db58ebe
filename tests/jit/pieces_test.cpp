// A kernel of several heavy parts compiles in pieces, each a module of its
// own optimised and compiled on a thread of its own (jit/codegen.h,
// generate_pieces): the pieces must link into one kernel that computes and
// fails exactly as the interpreter does, with error sites numbered across
// the pieces.
#include "core/lower.h"
#include "core/schedule.h"
#include "core/transform.h"
#include "interp/interpreter.h"
#include "interp/ireval.h"
#include "interp/random_inputs.h"
#include "jit/codegen.h"
#include "jit/jit.h"
#include "tests/support/programs.h"

#include <gtest/gtest.h>

namespace teval {
namespace {

using core::DType;

// A padded convolution whose 24-wide rows split into a 16-wide and an
// 8-wide register tile (two heavy statements), then a statement in the
// entry's piece that scales each output channel by an integer quotient.
const char* const kTwoTilesThenADivision =
    "output0[N, F, HO, WO] +=! input0[N, C, HO + KH - 1, WO + KW - 1].when([HO + KH - 1 >= 0, "
    "HO + KH - 1 < 4, WO + KW - 1 >= 0, WO + KW - 1 < 24], 0.0) * input1[F, C, KH, KW] "
    "where HO in 4, WO in 24; output1[F, HO, WO] = output0[0, F, HO, WO] * (input2[F] // "
    "input3[F]).cast(`float32`)";

std::map<std::string, core::Tensor> inputs(int divisor) {
  core::Tensor x(DType::Float32, {1, 2, 4, 24}), w(DType::Float32, {4, 2, 3, 3});
  for (int64_t i = 0; i < x.numel(); ++i)
    x.set(i, core::Scalar::of_float(DType::Float32, static_cast<double>(i % 7) - 3));
  for (int64_t i = 0; i < w.numel(); ++i)
    w.set(i, core::Scalar::of_float(DType::Float32, static_cast<double>(i % 5) * 0.5 - 1));
  return {{"input0", x},
          {"input1", w},
          {"input2", test::tensor(DType::Int32, {4}, {7, -7, 5, 9})},
          {"input3", test::tensor(DType::Int32, {4}, {2, 1, static_cast<double>(divisor), 3})}};
}

TEST(Pieces, ATwoTileKernelIsCompiledInThreePieces) {
  core::Kernel k = test::elaborate(kTwoTilesThenADivision, inputs(2));
  // Its rows split in two, not walked as one (core::coalesce_rows).
  core::LoopNest nest = core::schedule(core::lower(k), {.coalesce_points_per_element = 0});
  jit::GeneratedPieces g = jit::generate_pieces(nest, "entry", "", "");
  ASSERT_FALSE(g.sites.empty()); // the division's
  ASSERT_EQ(g.pieces.size(), 3u);
  // The tiles' functions are defined in pieces 1 and 2 and declared in 0.
  for (size_t i = 1; i < 3; ++i) {
    int defined = 0;
    for (const llvm::Function& f : *g.pieces[i].module)
      if (!f.isDeclaration() && f.hasExternalLinkage()) {
        ++defined;
        EXPECT_TRUE(f.getName().starts_with("entry."));
        EXPECT_NE(g.pieces[0].module->getFunction(f.getName()), nullptr);
      }
    EXPECT_EQ(defined, 1);
  }
}

// One heavy statement beside others is a piece of its own too, and so is
// each parallel statement (a chunk function the entry's piece declares),
// so that the threads compiling them finish together: a 32-wide
// convolution, everything parallel, is its tile, its fill, its padded
// copy and the entry, and runs on two threads as the interpreter does.
TEST(Pieces, OneHeavyStatementAndParallelOnesArePiecesOfTheirOwn) {
  core::Kernel k = test::elaborate(
      "output0[N, F, HO, WO] +=! input0[N, C, HO + KH - 1, WO + KW - 1].when([HO + KH - 1 >= 0, "
      "HO + KH - 1 < 4, WO + KW - 1 >= 0, WO + KW - 1 < 32], 0.0) * input1[F, C, KH, KW] "
      "where HO in 4, WO in 32",
      {{"input0", core::Tensor(DType::Float32, {2, 3, 4, 32})},
       {"input1", core::Tensor(DType::Float32, {8, 3, 3, 3})}});
  const core::ScheduleOptions everything_parallel{.parallel_points = 1};
  core::LoopNest nest = core::schedule(core::lower(k), everything_parallel);
  int parallel = 0;
  for (const core::Stmt& s : std::get<core::Block>(nest.root->node).stmts) {
    const auto* f = std::get_if<core::For>(&s->node);
    parallel += f && f->kind == core::LoopKind::Parallel;
  }
  ASSERT_EQ(parallel, 3) << core::to_string(nest); // the fill, the copy, the tile
  jit::GeneratedPieces g = jit::generate_pieces(nest, "entry", "", "");
  ASSERT_EQ(g.pieces.size(), 4u);
  for (size_t i = 1; i < g.pieces.size(); ++i)
    for (const llvm::Function& f : *g.pieces[i].module) {
      if (!f.isDeclaration() && f.hasExternalLinkage()) {
        EXPECT_NE(g.pieces[0].module->getFunction(f.getName()), nullptr) << f.getName().str();
      }
    }
  std::vector<core::Tensor> inputs = interp::make_inputs(k, {}, 3);
  core::Tensor want = interp::run(k, inputs).at(0);
  jit::Jit jit(jit::JitOptions{.scheduling = everything_parallel, .threads = 2});
  std::vector<core::Tensor> got = jit.compile(core::lower(k))->run(inputs);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(core::identical(got[0], want));
}

TEST(Pieces, APiecewiseKernelComputesAsTheInterpreter) {
  // Every engine agrees with the interpreter (test::run checks it); the
  // values themselves: a plain loop.
  auto in = inputs(2);
  core::Tensor got = test::out(kTwoTilesThenADivision, in, "output1");
  const core::Tensor& x = in.at("input0");
  const core::Tensor& w = in.at("input1");
  const float quotient[] = {3, -7, 2, 3}; // 7 // 2, -7 // 1, 5 // 2, 9 // 3
  for (int f = 0; f < 4; ++f)
    for (int ho = 0; ho < 4; ++ho)
      for (int wo = 0; wo < 24; ++wo) {
        float sum = 0;
        for (int c = 0; c < 2; ++c)
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw) {
              int h = ho + kh - 1, v = wo + kw - 1;
              float a = h >= 0 && h < 4 && v >= 0 && v < 24
                            ? static_cast<float>(x.get((c * 4 + h) * 24 + v).as_double())
                            : 0.0f;
              float b = static_cast<float>(w.get(((f * 2 + c) * 3 + kh) * 3 + kw).as_double());
              float product = a * b;
              sum = sum + product;
            }
        ASSERT_EQ(got.get((f * 4 + ho) * 24 + wo).as_double(), sum * quotient[f])
            << f << " " << ho << " " << wo;
      }
}

TEST(Pieces, APiecewiseKernelFailsAtTheInterpretersSite) {
  // The division's site is numbered after the tiles' pieces' sites.
  // test::error_of checks that every engine reports the same error.
  std::string error = test::error_of(kTwoTilesThenADivision, inputs(0));
  EXPECT_NE(error.find("integer division by zero: 5 / 0 (at F=2, HO=0, WO=0)"), std::string::npos)
      << error;
}

// Error sites inside the pieces: two statements that can fail, each made
// heavy by hand (its row vectorized, its two rows unrolled into a block of
// two vector loops). The second's division by zero must be reported with
// its own site, numbered after the first piece's, not the first's.
TEST(Pieces, EachPieceNumbersItsErrorSitesAfterTheOthers) {
  const std::string program = "output0[N, M] = input0[N, M] // input1[N, M]; "
                              "output1[N, M] = output0[N, M] // input2[N, M]";
  auto ints = [](std::initializer_list<double> v) {
    return test::tensor(DType::Int32, {2, 16}, v);
  };
  std::initializer_list<double> ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  std::initializer_list<double> zero_at_1_5 = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                               1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  std::map<std::string, core::Tensor> in = {
      {"input0", ints(ones)}, {"input1", ints(ones)}, {"input2", ints(zero_at_1_5)}};
  core::Kernel k = test::elaborate(program, in);
  core::LoopNest nest = core::lower(k);
  for (const char* v : {"M", "N"}) {
    // Both statements' loops of that name (lowering names each statement's own).
    for (int var : core::loop_vars(nest))
      if (nest.vars[static_cast<size_t>(var)].name == v)
        nest = *(std::string(v) == "M" ? core::vectorize(nest, var) : core::unroll(nest, var));
  }
  // Each statement's two unrolled rows in one statement, a loop of one
  // trip: root = allocate, fill, stmt (2 rows), fill, stmt (2 rows), free.
  std::vector<core::Stmt> top = std::get<core::Block>(nest.root->node).stmts;
  ASSERT_EQ(top.size(), 8u) << core::to_string(nest);
  auto once = [&](core::Stmt a, core::Stmt b) {
    return core::make_for(nest.add_var("once", DType::Int64), core::int64(0), core::int64(1),
                          core::make_block({std::move(a), std::move(b)}));
  };
  nest.root = core::make_block(
      {top[0], top[1], once(top[2], top[3]), top[4], once(top[5], top[6]), top[7]});
  jit::GeneratedPieces g = jit::generate_pieces(nest, "entry", "", "", 1);
  ASSERT_EQ(g.pieces.size(), 3u);
  std::string want;
  try {
    interp::ireval(nest, interp::make_inputs(k, in, 0));
  } catch (const core::Error& e) {
    want = e.render();
  }
  EXPECT_NE(want.find("0 (at N=1, M=5)"), std::string::npos) << want;
  jit::Jit jit(jit::JitOptions{.statements_per_function = 1, .schedule = false});
  std::string got;
  try {
    jit.compile(nest)->run(interp::make_inputs(k, in, 0));
  } catch (const core::Error& e) {
    got = e.render();
  }
  EXPECT_EQ(got, want);
}

} // namespace
} // namespace teval
