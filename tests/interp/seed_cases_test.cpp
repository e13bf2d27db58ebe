// The seed's Antares examples at reduced shapes, run by every engine and
// compared with numpy-computed expectations (tests/data/antares, made by
// make_reference.py there).
#include "core/error.h"
#include "core/format.h"
#include "core/npy.h"
#include "interp/interpreter.h"
#include "parser/antares/antares.h"
#include "tests/support/programs.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

namespace teval {
namespace {

namespace fs = std::filesystem;

// Distance in units in the last place between two float32 values.
int64_t ulps(float a, float b) {
  auto key = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? int64_t{INT32_MIN} - i : int64_t{i};
  };
  return std::llabs(key(a) - key(b));
}

std::string compare(const core::Tensor& actual, const core::Tensor& expected, int64_t tolerance) {
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape())
    return "got " + std::string(core::name(actual.dtype())) + core::to_string(actual.shape()) +
           ", expected " + std::string(core::name(expected.dtype())) +
           core::to_string(expected.shape());
  for (int64_t i = 0; i < actual.numel(); ++i) {
    core::Scalar a = actual.get(i), e = expected.get(i);
    if (core::identical(a, e))
      continue;
    if (tolerance > 0 && a.dtype == core::DType::Float32 &&
        ulps(static_cast<float>(a.f), static_cast<float>(e.f)) <= tolerance)
      continue;
    return "element " + std::to_string(i) + ": got " + core::format_scalar(a) + ", expected " +
           core::format_scalar(e);
  }
  return {};
}

class SeedCase : public ::testing::TestWithParam<std::string> {};

TEST_P(SeedCase, MatchesNumpyReference) {
  fs::path dir = test::source_dir() / "tests/data/antares" / GetParam();
  auto file = core::SourceFile::make((dir / "program.antares").string(),
                                     test::read_file(dir / "program.antares"));
  try {
    parser::AntaresSource source = parser::read_antares(*file);
    std::map<std::string, parser::InputType> types = parser::declared_inputs(source);
    std::map<std::string, core::Tensor> given;
    for (const fs::path& p : test::files_with_extension(dir, ".npy"))
      given.emplace(p.stem().string(), core::read_npy(p.string()));
    for (const auto& [name, t] : given) {
      ASSERT_TRUE(types.count(name)) << name << " is not declared";
      EXPECT_EQ(types[name].dtype, t.dtype()) << name;
      EXPECT_EQ(types[name].shape, t.shape()) << name;
    }
    core::Kernel kernel = parser::elaborate_antares(source, types);
    std::vector<core::Tensor> inputs;
    for (int id : interp::input_ids(kernel))
      inputs.push_back(given.at(kernel.tensors[id].name));
    // Every engine gives the interpreter's bits: the definitional walk,
    // IREval, the JIT and the DSP.
    std::vector<core::Tensor> outputs = test::run_everywhere(kernel, inputs);

    int64_t tolerance = 0;
    if (fs::exists(dir / "tolerance"))
      tolerance = std::stoll(test::read_file(dir / "tolerance"));
    auto expected = test::files_with_extension(dir / "expected", ".npy");
    ASSERT_EQ(outputs.size(), expected.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string& name = kernel.tensors[kernel.outputs[i]].name;
      fs::path want = dir / "expected" / (name + ".npy");
      ASSERT_TRUE(fs::exists(want)) << "no expectation for output " << name;
      std::string diff = compare(outputs[i], core::read_npy(want.string()), tolerance);
      EXPECT_TRUE(diff.empty()) << name << ": " << diff;
    }
  } catch (const core::Error& e) {
    FAIL() << e.render();
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(test::source_dir() / "tests/data/antares"))
    if (entry.is_directory())
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Antares, SeedCase, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

TEST(SeedCases, OneCasePerSeedExample) {
  EXPECT_EQ(case_names().size(),
            test::files_with_extension(test::source_dir() / "examples/antares", ".antares").size());
}

} // namespace
} // namespace teval
