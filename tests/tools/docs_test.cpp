// Every example in the documentation runs, as a user would type it: the
// command lines of README.md's and docs/*.md's `sh` blocks exit 0, the
// transcripts (blocks whose first line starts with `$ `) print what they
// show, the REPL's `:help` entries run, and the function tables of
// docs/SEMANTICS.md list exactly the functions the parsers accept.
#include "core/kernel.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

namespace teval {
namespace {

namespace fs = std::filesystem;

struct Block {
  fs::path file;
  int line = 0; ///< of the opening fence
  std::string lang;
  std::vector<std::string> lines;
};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

std::vector<Block> code_blocks(const fs::path& file) {
  std::vector<Block> out;
  std::vector<std::string> lines = split_lines(test::read_file(file));
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("```", 0) != 0)
      continue;
    Block b{file, static_cast<int>(i + 1), lines[i].substr(3), {}};
    for (++i; i < lines.size() && lines[i].rfind("```", 0) != 0; ++i)
      b.lines.push_back(lines[i]);
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<fs::path> documents() {
  std::vector<fs::path> out{test::source_dir() / "README.md"};
  for (const fs::path& p : test::files_with_extension(test::source_dir() / "docs", ".md"))
    out.push_back(p);
  return out;
}

// A directory where documented paths resolve as in the repository root
// (examples/, tests/, build/bin/teval) and outputs land out of the tree.
// Each test has its own: ctest runs them in parallel.
fs::path example_dir(const std::string& test) {
  fs::path dir = test::scratch_dir("docs-" + test);
  fs::create_directory_symlink(test::source_dir() / "examples", dir / "examples");
  fs::create_directory_symlink(test::source_dir() / "tests", dir / "tests");
  fs::create_directories(dir / "build/bin");
  fs::create_symlink(test::binary_dir() / "bin/teval", dir / "build/bin/teval");
  return dir;
}

// A command line of an `sh` block and the exit status it documents: 0, or
// N when its comment says `exits N`.
struct Command {
  std::string text;
  int exit_code = 0;
};

// The command lines of an `sh` block: continued lines joined, comments
// after two spaces dropped.
std::vector<Command> commands(const Block& b) {
  std::vector<Command> out;
  std::string pending;
  int exit_code = 0;
  for (std::string line : b.lines) {
    if (size_t c = line.find("  #"); c != std::string::npos) {
      if (size_t e = line.find("# exits ", c); e != std::string::npos)
        exit_code = std::stoi(line.substr(e + 8));
      line = line.substr(0, c);
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    bool continued = !line.empty() && line.back() == '\\';
    if (continued)
      line.pop_back();
    pending += line;
    if (continued)
      continue;
    if (pending.find_first_not_of(' ') != std::string::npos)
      out.push_back({pending, exit_code});
    pending.clear();
    exit_code = 0;
  }
  return out;
}

TEST(DocExamples, ShellCommandsRun) {
#if defined(TEVAL_TEST_ASAN)
  // What the pages say is checked by the Release pass; the sanitizers'
  // pass has the same commands in the tests of each command.
  GTEST_SKIP() << "the documents' commands are checked in the Release build";
#endif
  fs::path dir = example_dir("shell");
  int ran = 0;
  for (const fs::path& doc : documents())
    for (const Block& b : code_blocks(doc)) {
      if (b.lang != "sh")
        continue;
      for (const Command& cmd : commands(b)) {
        if (cmd.text.rfind("scripts/dev", 0) == 0)
          continue; // the set-up commands themselves: CI runs them
        test::Result r = test::run_shell(cmd.text, dir);
        EXPECT_EQ(r.exit_code, cmd.exit_code)
            << doc.filename().string() << ":" << b.line << ": " << cmd.text << "\n"
            << r.err;
        ++ran;
      }
    }
  EXPECT_GT(ran, 15);
}

// Whether \p actual matches the transcript's \p expected lines, where a
// line `...` stands for any number of lines.
bool matches(const std::vector<std::string>& expected, size_t e,
             const std::vector<std::string>& actual, size_t a) {
  if (e == expected.size())
    return a == actual.size();
  if (expected[e].find_first_not_of(' ') == expected[e].find("...") &&
      expected[e].find_last_not_of(' ') == expected[e].find("...") + 2) {
    for (size_t skip = a; skip <= actual.size(); ++skip)
      if (matches(expected, e + 1, actual, skip))
        return true;
    return false;
  }
  return a < actual.size() && expected[e] == actual[a] && matches(expected, e + 1, actual, a + 1);
}

// One `$ command` of a transcript and the lines it prints. An interactive
// `$ teval` session becomes a script of its entries (lines after the
// `teval> ` and `  ...> ` prompts); the terminal's banner is not printed
// then, and its `<input>` locations read `<stdin>`.
struct Transcript {
  std::string command;
  std::string input;
  std::vector<std::string> expected;
};

std::vector<Transcript> transcripts(const Block& b) {
  std::vector<Transcript> out;
  for (const std::string& line : b.lines) {
    if (line.rfind("$ ", 0) == 0) {
      out.push_back({line.substr(2), "", {}});
      continue;
    }
    if (out.empty())
      return {};
    Transcript& t = out.back();
    if (t.command == "teval") {
      if (line.rfind("teval> ", 0) == 0 || line.rfind("  ...> ", 0) == 0) {
        t.input += line.substr(7) + "\n";
        continue;
      }
      if (line.rfind("teval 0.1.0", 0) == 0)
        continue;
      std::string l = line;
      if (l.rfind("<input>:", 0) == 0)
        l = "<stdin>:" + l.substr(8);
      t.expected.push_back(l);
      continue;
    }
    t.expected.push_back(line);
  }
  return out;
}

TEST(DocExamples, TranscriptsPrintWhatTheyShow) {
  fs::path dir = example_dir("transcripts");
  int checked = 0;
  for (const fs::path& doc : documents())
    for (const Block& b : code_blocks(doc))
      for (const Transcript& t : transcripts(b)) {
        std::string cmd = t.command;
        if (!t.input.empty()) {
          test::write_file(dir / "session.teval", t.input);
          cmd += " < session.teval";
        }
        test::Result r = test::run_shell(cmd + " 2>&1", dir);
        std::vector<std::string> actual = split_lines(r.out);
        EXPECT_TRUE(matches(t.expected, 0, actual, 0)) << doc.filename().string() << ":" << b.line
                                                       << ": $ " << t.command << "\n--- shown\n"
                                                       <<
            [&] {
              std::string s;
              for (const std::string& l : t.expected)
                s += l + "\n";
              return s;
            }() << "--- printed\n" << r.out;
        ++checked;
      }
  EXPECT_GE(checked, 4);
}

TEST(DocExamples, ReplHelpEntriesRun) {
  fs::path dir = example_dir("help");
  test::Result help = test::run_shell("printf ':help\\n' | teval", dir);
  ASSERT_EQ(help.exit_code, 0) << help.err;
  // The entries are the indented lines between "Entries" and "Commands:",
  // each an example followed by its explanation after two or more spaces.
  std::vector<std::string> lines = split_lines(help.out);
  auto from = std::find_if(lines.begin(), lines.end(),
                           [](const std::string& l) { return l.rfind("Entries", 0) == 0; });
  auto to = std::find(lines.begin(), lines.end(), "Commands:");
  ASSERT_TRUE(from != lines.end() && to != lines.end());
  std::string script;
  int entries = 0;
  for (auto it = from + 1; it != to; ++it) {
    if (it->size() < 3 || it->rfind("  ", 0) != 0 || (*it)[2] == ' ')
      continue; // the heading's second line, or a continued explanation
    std::string entry = it->substr(2, it->find("   ") - 2);
    script += entry + "\n";
    ++entries;
  }
  EXPECT_GE(entries, 5);
  // load("w.npy") reads a file the session wrote first.
  test::Result r = test::run_shell("printf 'v = float32[2, 2]\\n:save v w.npy\\n' | teval && "
                                   "teval <<'EOF'\n" +
                                       script + "EOF",
                                   dir);
  EXPECT_EQ(r.exit_code, 0) << script << r.out << r.err;
}

// The rows of the markdown table after \p heading: their first cells, split
// at ", ".
std::set<std::string> first_column_names(const std::string& doc, const std::string& heading) {
  std::set<std::string> out;
  std::vector<std::string> lines = split_lines(doc);
  auto at = std::find(lines.begin(), lines.end(), heading);
  if (at == lines.end())
    return out;
  auto row =
      std::find_if(at, lines.end(), [](const std::string& l) { return l.rfind("|", 0) == 0; });
  for (row += 2; row < lines.end() && row->rfind("|", 0) == 0; ++row) {
    std::string cell = row->substr(1, row->find('|', 1) - 1);
    std::istringstream in(cell);
    for (std::string name; std::getline(in, name, ',');) {
      name.erase(0, name.find_first_not_of(' '));
      name.erase(name.find_last_not_of(' ') + 1);
      out.insert(name);
    }
  }
  return out;
}

TEST(DocExamples, FunctionTablesListTheFunctionsTevalAccepts) {
  std::set<std::string> accepted;
  for (core::Op op : core::named_functions())
    accepted.insert(std::string(core::spelling(op)));
  std::string semantics = test::read_file(test::source_dir() / "docs/SEMANTICS.md");
  EXPECT_EQ(first_column_names(semantics, "### `.call`"), accepted);
}

} // namespace
} // namespace teval
