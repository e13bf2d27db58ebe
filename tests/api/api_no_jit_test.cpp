// The public C++ API linked without the teval::jit component: every other
// engine runs, and the JIT is a clear error naming the component.
#include "teval/teval.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace {

using teval::DType;
using teval::Engine;

TEST(ApiWithoutJit, EveryOtherEngineRunsAndTheJitIsAClearError) {
  std::vector<float> x{1, 2, 3};
  std::map<std::string, teval::TensorRef> in{{"input0", {DType::Float32, {3}, x.data(), {}}}};
  teval::LoadOptions options;
  options.inputs["input0"] = {DType::Float32, {3}};
  teval::Program p = teval::Program::load("output0[N] = input0[N] * 2.0", options);
  for (Engine e : {Engine::Interpreter, Engine::IREval, Engine::Exact})
    EXPECT_EQ(static_cast<const float*>(p.run(in, e).at("output0").data())[2], 6.0f);
  try {
    p.run(in, Engine::Jit);
    FAIL() << "no error";
  } catch (const teval::Error& e) {
    EXPECT_EQ(e.error().message,
              "Engine::Jit needs the JIT: link teval::jit (find_package(teval COMPONENTS jit))");
  }
  EXPECT_THROW(p.jit_asm(), teval::Error);
}

TEST(ApiWithoutJit, TheProcessDoesNotLoadLlvm) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    EXPECT_EQ(line.find("libLLVM"), std::string::npos) << line;
}

} // namespace
