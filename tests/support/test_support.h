// Helpers shared by the tests: paths, files, golden comparison.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

// TEVAL_TEST_ASAN: built with AddressSanitizer (GCC defines
// __SANITIZE_ADDRESS__; clang 19 answers __has_feature only).
#if defined(__SANITIZE_ADDRESS__)
#define TEVAL_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEVAL_TEST_ASAN 1
#endif
#endif

namespace teval::test {

/// The repository root and the build directory.
std::filesystem::path source_dir();
std::filesystem::path binary_dir();

std::string read_file(const std::filesystem::path& p);
void write_file(const std::filesystem::path& p, const std::string& text);

/// Files of \p dir whose names end in \p extension, sorted.
std::vector<std::filesystem::path> files_with_extension(const std::filesystem::path& dir,
                                                        const std::string& extension);

/// Compares \p actual with the golden file \p golden; with the environment
/// variable TEVAL_UPDATE_GOLDEN=1 set it rewrites the file instead.
/// Returns a gtest failure message, or an empty string when they match.
std::string check_golden(const std::filesystem::path& golden, const std::string& actual);

/// The fields of a corpus line: \p line split at each " | " (a lone `|`,
/// as in a shell pipe, stays inside its field), each trimmed of blanks.
std::vector<std::string> split_fields(const std::string& line);

/// \p s in single quotes for /bin/sh.
std::string shell_quoted(const std::string& s);

/// What a run of the `teval` command did.
struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs build/bin/teval with \p args (already shell-quoted) in directory
/// \p cwd, capturing its standard output and error.
Result run_teval(const std::string& args, const std::filesystem::path& cwd);

/// Runs \p command with /bin/sh in directory \p cwd, with `teval` (the
/// build's) first on PATH, as a user types a documented example.
Result run_shell(const std::string& command, const std::filesystem::path& cwd);

/// A fresh empty directory under the build tree for one test.
std::filesystem::path scratch_dir(const std::string& name);

} // namespace teval::test
