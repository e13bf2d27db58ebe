// Stopping evaluations: every backend stops at a request or at the end of
// its time budget, throws Error{Interrupted}, and runs the next kernel
// normally afterwards.
#include "core/backend.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "interp/random_inputs.h"
#include "tests/support/programs.h"

#include <gtest/gtest.h>

#include <thread>

namespace teval {
namespace {

// 2^39 points: hours for the interpreter, minutes for compiled code.
const char* const kEndless =
    "output0[M] +=! input0[M] + (K + L).cast(`float32`) where K in 1048576, L in 524288";
const char* const kSmall = "output0[N] = input0[N] * 2";

const core::Tensor& one_two_three() {
  static const core::Tensor t = test::tensor(core::DType::Float32, {3}, {1, 2, 3});
  return t;
}

// input0 = [1, 2, 3] for kSmall, random data for kEndless.
std::vector<core::Tensor> inputs(const core::Kernel& k) {
  if (k.tensors.at(0).shape == core::Shape{3}) // inputs come first
    return {one_two_three()};
  return interp::make_inputs(k, {}, 0);
}

TEST(Interrupt, BudgetStopsAnEndlessRunOnEveryBackend) {
  core::Kernel endless =
      test::elaborate(kEndless, {{"input0", test::tensor(core::DType::Float32, {1}, {0.5})}});
  core::Kernel small = test::elaborate(kSmall, {{"input0", one_two_three()}});
  for (auto& backend : test::make_backends()) {
    core::Outcome o =
        core::evaluate(*backend, endless, inputs(endless), std::chrono::milliseconds(100));
    EXPECT_TRUE(o.hang) << backend->name();
    EXPECT_TRUE(o.outputs.empty()) << backend->name();
    EXPECT_EQ(o.error, "") << backend->name();
    // The backend is usable afterwards, and a run within budget is no hang.
    core::Outcome next =
        core::evaluate(*backend, small, inputs(small), std::chrono::milliseconds(10'000));
    EXPECT_FALSE(next.hang) << backend->name();
    ASSERT_EQ(next.outputs.size(), 1u) << backend->name() << ": " << next.error;
    EXPECT_EQ(test::values(next.outputs[0]), (std::vector<double>{2, 4, 6})) << backend->name();
  }
}

TEST(Interrupt, ARequestFromAnotherThreadStopsTheRun) {
  core::Kernel endless =
      test::elaborate(kEndless, {{"input0", test::tensor(core::DType::Float32, {1}, {0.5})}});
  for (auto& backend : test::make_backends()) {
    std::unique_ptr<core::Executable> e = backend->prepare(endless);
    core::Interrupt interrupt;
    core::InterruptScope scope(interrupt);
    std::thread requester([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      interrupt.request();
    });
    try {
      e->run(inputs(endless));
      ADD_FAILURE() << backend->name() << " finished 2^39 points";
    } catch (const core::Error& error) {
      EXPECT_EQ(error.kind(), core::ErrorKind::Interrupted) << backend->name();
      EXPECT_EQ(error.render(), "error: evaluation interrupted\n");
    }
    requester.join();
  }
}

TEST(Interrupt, ARequestMadeBeforeTheRunStopsItAtOnce) {
  core::Kernel small = test::elaborate(kSmall, {{"input0", one_two_three()}});
  for (auto& backend : test::make_backends()) {
    std::unique_ptr<core::Executable> e = backend->prepare(small);
    core::Interrupt interrupt;
    core::InterruptScope scope(interrupt);
    interrupt.request();
    EXPECT_THROW(e->run(inputs(small)), core::Error) << backend->name();
    interrupt.reset();
    EXPECT_EQ(test::values(e->run(inputs(small)).at(0)), (std::vector<double>{2, 4, 6}))
        << backend->name();
  }
}

TEST(Interrupt, OutsideAScopeNothingPolls) {
  core::Interrupt interrupt;
  interrupt.request();
  EXPECT_EQ(core::current_interrupt(), nullptr);
  EXPECT_NO_THROW(core::poll_interrupt());
  {
    core::InterruptScope scope(interrupt);
    EXPECT_EQ(core::current_interrupt(), &interrupt);
    EXPECT_THROW(core::poll_interrupt(), core::Error);
  }
  EXPECT_EQ(core::current_interrupt(), nullptr);
}

} // namespace
} // namespace teval
