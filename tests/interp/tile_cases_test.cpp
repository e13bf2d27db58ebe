// The Tile tutorial's functions, in both spellings (examples/tile), run by
// every engine and compared bit for bit with numpy-computed expectations
// (tests/data/tile, made by make_reference.py there).
#include "core/error.h"
#include "core/format.h"
#include "core/npy.h"
#include "interp/interpreter.h"
#include "parser/tile/tile.h"
#include "parser/tile/tile_source.h"
#include "tests/support/programs.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <sstream>

namespace teval {
namespace {

namespace fs = std::filesystem;

struct Spelling {
  const char* file;
  int line; // which line of `entry` and `params` applies

  friend void PrintTo(const Spelling& s, std::ostream* os) { *os << s.file; }
};

std::map<std::string, parser::TileParam> params_of(const std::string& line) {
  std::map<std::string, parser::TileParam> out;
  std::stringstream words(line);
  std::string word;
  while (words >> word) {
    size_t eq = word.find('=');
    std::string value = word.substr(eq + 1);
    parser::TileParam p;
    p.list = value.front() == '[';
    std::stringstream items(p.list ? value.substr(1, value.size() - 2) : value);
    std::string item;
    while (std::getline(items, item, ','))
      p.values.push_back(std::stoll(item));
    out[word.substr(0, eq)] = p;
  }
  return out;
}

std::string line_of(const fs::path& p, int n) {
  if (!fs::exists(p))
    return "";
  std::stringstream s(test::read_file(p));
  std::string line;
  for (int i = 0; i <= n; ++i)
    std::getline(s, line);
  return line;
}

class TileCase : public ::testing::TestWithParam<std::tuple<std::string, Spelling>> {};

TEST_P(TileCase, MatchesNumpyReference) {
  auto [name, spelling] = GetParam();
  fs::path dir = test::source_dir() / "tests/data/tile" / name;
  fs::path source = test::source_dir() / "examples/tile" / spelling.file;
  auto file = core::SourceFile::make(source.string(), test::read_file(source));
  try {
    ast::Program program = parser::read_tile(*file);
    std::map<std::string, parser::InputType> types;
    std::map<std::string, core::Tensor> given;
    for (const fs::path& p : test::files_with_extension(dir, ".npy")) {
      core::Tensor t = core::read_npy(p.string());
      types[p.stem().string()] = {t.dtype(), t.shape(), {}};
      given.emplace(p.stem().string(), std::move(t));
    }
    core::Kernel k = parser::elaborate_tile(program, line_of(dir / "entry", spelling.line), types,
                                            params_of(line_of(dir / "params", spelling.line)));
    std::vector<core::Tensor> inputs;
    for (int id : interp::input_ids(k))
      inputs.push_back(given.at(k.tensors[id].name));
    // Every engine gives the interpreter's bits: the definitional walk,
    // IREval, the JIT and the DSP.
    std::vector<core::Tensor> out = test::run_everywhere(k, inputs);
    ASSERT_EQ(out.size(), 1u);
    auto expected = test::files_with_extension(dir / "expected", ".npy");
    ASSERT_EQ(expected.size(), 1u);
    EXPECT_EQ(k.tensors[k.outputs[0]].name, expected[0].stem().string());
    core::Tensor want = core::read_npy(expected[0].string());
    ASSERT_EQ(out[0].shape(), want.shape());
    for (int64_t i = 0; i < want.numel(); ++i)
      ASSERT_TRUE(core::identical(out[0].get(i), want.get(i)))
          << "element " << i << ": got " << core::format_scalar(out[0].get(i)) << ", expected "
          << core::format_scalar(want.get(i));
  } catch (const core::Error& e) {
    FAIL() << e.render();
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(test::source_dir() / "tests/data/tile"))
    if (entry.is_directory())
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Tutorial, TileCase,
                         ::testing::Combine(::testing::ValuesIn(case_names()),
                                            ::testing::Values(Spelling{"tutorial.tile", 0},
                                                              Spelling{"tutorial_py.tile", 1})),
                         [](const auto& info) {
                           return std::get<0>(info.param) +
                                  (std::get<1>(info.param).line == 0 ? "_cpp" : "_py");
                         });

} // namespace
} // namespace teval
