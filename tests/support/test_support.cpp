// Helpers shared by the tests.
#include "tests/support/test_support.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace teval::test {

std::filesystem::path source_dir() {
  return TEVAL_SOURCE_DIR;
}
std::filesystem::path binary_dir() {
  return TEVAL_BINARY_DIR;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

std::vector<std::filesystem::path> files_with_extension(const std::filesystem::path& dir,
                                                        const std::string& extension) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == extension)
      out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string check_golden(const std::filesystem::path& golden, const std::string& actual) {
  const char* update = std::getenv("TEVAL_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    write_file(golden, actual);
    return {};
  }
  if (!std::filesystem::exists(golden))
    return "missing golden file " + golden.string() + " (run with TEVAL_UPDATE_GOLDEN=1)";
  std::string expected = read_file(golden);
  if (expected == actual)
    return {};
  return "mismatch with " + golden.string() + "\n--- expected\n" + expected + "--- actual\n" +
         actual;
}

std::filesystem::path scratch_dir(const std::string& name) {
  std::filesystem::path p = binary_dir() / "test-scratch" / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

std::vector<std::string> split_fields(const std::string& line) {
  auto trim = [](const std::string& f) {
    size_t b = f.find_first_not_of(" \t"), e = f.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : f.substr(b, e - b + 1);
  };
  std::vector<std::string> fields;
  for (size_t at = 0;;) {
    size_t bar = line.find(" | ", at);
    fields.push_back(trim(line.substr(at, bar == std::string::npos ? bar : bar - at)));
    if (bar == std::string::npos)
      return fields;
    at = bar + 3;
  }
}

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {

// Every test process, and every command it runs, uses the build's own
// kernel cache (build/test-scratch/kernel-cache) instead of the user's.
[[maybe_unused]] const bool kHermeticKernelCache = [] {
  setenv("TEVAL_CACHE_DIR", (binary_dir() / "test-scratch" / "kernel-cache").c_str(), 1);
  return true;
}();

// Runs \p line (a shell command) with its output captured.
Result capture(const std::string& line, const std::filesystem::path& cwd) {
  static int calls = 0;
  std::filesystem::path scratch =
      scratch_dir("cli-capture-" + std::to_string(getpid()) + "-" + std::to_string(calls++));
  std::string cmd = "cd " + shell_quoted(cwd.string()) + " && { " + line + "\n} > " +
                    shell_quoted((scratch / "out").string()) + " 2> " +
                    shell_quoted((scratch / "err").string());
  int status = std::system(cmd.c_str());
  Result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(scratch / "out");
  r.err = read_file(scratch / "err");
  return r;
}

} // namespace

Result run_shell(const std::string& command, const std::filesystem::path& cwd) {
  std::string path = (binary_dir() / "bin").string();
  return capture("PATH=" + shell_quoted(path) + ":\"$PATH\"; export PATH\n" + command, cwd);
}

Result run_teval(const std::string& args, const std::filesystem::path& cwd) {
  return capture(shell_quoted((binary_dir() / "bin/teval").string()) + " " + args, cwd);
}
} // namespace teval::test
