// Many kernels in one qemu-hexagon process: kernels loaded into the
// resident simulator run there, interleaved, with the right results;
// processes forked from the one that started it use it too; a conversation
// a dying process leaves unfinished, a kernel past its budget and a signal
// in the simulated program each end that simulator with an error naming the
// kernel, and the next run gets a fresh one.
#include "core/error.h"
#include "core/lower.h"
#include "jit/hexagon/dsp_runner.h"
#include "jit/hexagon/hexagon.h"
#include "tests/support/programs.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace teval {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// output0[N] = input0[N] * M + N over 300 int32 points.
struct Affine {
  int32_t m;
  std::unique_ptr<jit::DspKernel> kernel;
};

Affine affine(jit::HexagonCompiler& compiler, int32_t m) {
  core::Kernel k = test::elaborate("- einstein_v2(\"output0[N] = input0[N] * " + std::to_string(m) +
                                   " + N.cast(`int32`)\", {\"input0\": {\"dtype\": \"int32\", "
                                   "\"shape\": [300]}})");
  return {m, compiler.compile(core::lower(k), "affine" + std::to_string(m))};
}

core::Tensor ramp(int32_t from) {
  core::Tensor t(core::DType::Int32, {300});
  for (int64_t i = 0; i < 300; ++i)
    t.set(i, core::Scalar::of_int(core::DType::Int32, from + i * 7));
  return t;
}

// Whether \p a computes its formula on ramp(from), by a plain loop.
bool right(const Affine& a, int32_t from, std::chrono::milliseconds budget = 60s) {
  core::Tensor in = ramp(from);
  std::vector<core::Tensor> out = a.kernel->run(std::span(&in, 1), budget);
  for (int64_t i = 0; i < 300; ++i)
    if (out.at(0).get(i).i != (from + i * 7) * a.m + i)
      return false;
  return true;
}

// A kernel that runs for minutes under qemu: an int64 sum over 10^10 points.
std::unique_ptr<jit::DspKernel> endless(jit::HexagonCompiler& compiler) {
  core::Kernel k = test::elaborate("- einstein_v2(\"output0[] +=! (N * M).cast(`int64`) where N "
                                   "in 100000, M in 100000\", {})");
  return compiler.compile(core::lower(k), "endless");
}

TEST(DspSession, KernelsShareOneSimulator) {
  jit::HexagonCompiler compiler;
  std::vector<Affine> kernels;
  for (int32_t m : {3, -5, 11})
    kernels.push_back(affine(compiler, m));
  ASSERT_TRUE(right(kernels[0], 1));
  int simulator = jit::dsp::simulator_pid();
  ASSERT_GT(simulator, 0);
  for (int round = 0; round < 3; ++round)
    for (const Affine& a : kernels)
      EXPECT_TRUE(right(a, round * 1000 - 77)) << "affine" << a.m << ", round " << round;
  EXPECT_EQ(jit::dsp::simulator_pid(), simulator) << "every run in one qemu-hexagon";
  // A kernel compiled after others were freed reuses their slot.
  kernels.erase(kernels.begin());
  kernels.push_back(affine(compiler, 2));
  EXPECT_TRUE(right(kernels.back(), 9));
  EXPECT_TRUE(right(kernels.front(), 9));
  EXPECT_EQ(jit::dsp::simulator_pid(), simulator);
}

TEST(DspSession, ForkedProcessesShareTheSimulator) {
  jit::HexagonCompiler compiler;
  Affine a = affine(compiler, 13);
  jit::prepare_dsp_simulator();
  int simulator = jit::dsp::simulator_pid();
  ASSERT_GT(simulator, 0);
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Another kernel compiled and run in the child: same simulator.
    jit::HexagonCompiler own;
    Affine b = affine(own, -2);
    int said[3] = {right(a, 5), right(b, 6), jit::dsp::simulator_pid()};
    ::_exit(::write(report[1], said, sizeof said) == sizeof said ? 0 : 1);
  }
  ::close(report[1]);
  int said[3] = {};
  EXPECT_EQ(::read(report[0], said, sizeof said), static_cast<ssize_t>(sizeof said));
  ::close(report[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(said[0] && said[1]);
  EXPECT_EQ(said[2], simulator) << "the child ran in its parent's simulator";
  EXPECT_TRUE(right(a, 8));
  EXPECT_EQ(jit::dsp::simulator_pid(), simulator);
}

TEST(DspSession, AConversationLeftByADeadProcessIsNotContinued) {
  jit::HexagonCompiler compiler;
  Affine a = affine(compiler, 7);
  auto long_kernel = endless(compiler);
  jit::prepare_dsp_simulator();
  int simulator = jit::dsp::simulator_pid();
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      long_kernel->run({}, 600s);
    } catch (...) {
    }
    ::_exit(0);
  }
  std::this_thread::sleep_for(300ms); // the child waits for the outcome
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  // The simulator is still inside the endless kernel: it must not be fed
  // this request.
  EXPECT_TRUE(right(a, 3, 20s));
  EXPECT_NE(jit::dsp::simulator_pid(), simulator);
  jit::prepare_dsp_simulator();
  EXPECT_TRUE(right(a, 4));
}

TEST(DspSession, AKernelPastItsBudgetEndsItsSimulator) {
  jit::HexagonCompiler compiler;
  Affine a = affine(compiler, 5);
  auto long_kernel = endless(compiler);
  ASSERT_TRUE(right(a, 1));
  int simulator = jit::dsp::simulator_pid();
  try {
    long_kernel->run({}, 200ms);
    ADD_FAILURE() << "the endless kernel returned";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.kind(), core::ErrorKind::Limit);
    EXPECT_NE(std::string(e.what()).find("kernel endless on qemu-hexagon ran past its time budget"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(jit::dsp::simulator_pid(), -1);
  EXPECT_TRUE(right(a, 2));
  EXPECT_NE(jit::dsp::simulator_pid(), simulator);
}

// A kernel object that reads address 16: the simulated program gets
// SIGSEGV, in the simulator and in a qemu-hexagon of its own alike.
TEST(DspSession, ASignalInTheKernelIsNamed) {
  fs::path dir = test::scratch_dir("dsp-signal");
  std::ofstream(dir / "bad.c") << "int teval_kernel(void** b, void* c) {\n"
                                  "  return *(volatile int*)16;\n"
                                  "}\n";
  test::Result cc = test::run_shell("clang-19 --target=hexagon-unknown-linux-musl -mcpu=hexagonv67 "
                                    "-O1 -ffreestanding -c bad.c -o bad.o",
                                    dir);
  ASSERT_EQ(cc.exit_code, 0) << cc.err;
  jit::dsp::Executable bad(test::read_file(dir / "bad.o"), "bad");
  for (bool own : {false, true}) {
    try {
      if (own)
        bad.run_standalone({}, 60s);
      else
        bad.run({}, 60s);
      ADD_FAILURE() << "the bad kernel returned";
    } catch (const core::Error& e) {
      EXPECT_NE(std::string(e.what()).find(
                    "kernel bad on qemu-hexagon died with signal 11 (Segmentation fault)"),
                std::string::npos)
          << e.what();
    }
  }
  jit::HexagonCompiler compiler;
  EXPECT_TRUE(right(affine(compiler, 3), 1)) << "a fresh simulator after the signal";
}

} // namespace
} // namespace teval
