// Another compiler as a backend: a command line that reads a program file
// and a directory of .npy inputs and writes one .npy per output.
#pragma once

#include "core/kernel.h"
#include "core/tensor.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace teval::verify {

/// The exit status by which a command declines a program its compiler
/// does not support (as automake's test harness skips a test): counted as
/// unsupported, never a finding.
inline constexpr int kDeclined = 77;

/// The command and its budgets.
struct ExternalBackend {
  /// A shell command (run by /bin/sh -c) with the placeholders {program}
  /// (the program file), {inputs} (a directory with NAME.npy per input),
  /// {outdir} (where the command writes NAME.npy per output), and also
  /// {lang} (antares or tile) and {entry} (the Tile function, else "").
  std::string command;
  std::chrono::milliseconds timeout{60'000};
  /// The resident memory the command's process group may hold, in bytes;
  /// watched while it runs (every 50 ms), so a command built with a
  /// sanitizer, which reserves terabytes of address space, runs as well.
  /// 0: none.
  int64_t memory = int64_t{4} << 30;
  /// Environment variables the command reads, set for it to these values
  /// (`--backend-env`: recorded when the campaign began, so a resumed
  /// campaign and reproduce.sh see what the first run saw).
  std::map<std::string, std::string> environment;
};

/// \p command with every placeholder replaced by its value, shell-quoted.
/// Throws core::Error(Input) naming an unknown `{word}` placeholder.
std::string expand_command(const std::string& command,
                           const std::map<std::string, std::string>& values);

/// The placeholders expand_command() knows (for usage checks).
bool known_placeholder(const std::string& word);

/// What running the command once gave.
struct ExternalRun {
  enum class End {
    Ok,         ///< exited 0; outputs read
    Crash,      ///< killed by a signal
    Exit,       ///< exited non-zero
    Hang,       ///< still running at the timeout (killed)
    Memory,     ///< past its resident-memory budget (killed)
    Missing,    ///< exited 0 without writing some output
    Unreadable, ///< an output is not a .npy file teval reads
    Declined,   ///< exited kDeclined: the compiler does not support the program
  };
  End end = End::Ok;
  /// The outputs by name (End::Ok).
  std::map<std::string, core::Tensor> outputs;
  /// How it ended, in words, with its first diagnostic (after "its first
  /// diagnostic:\n", when its standard error has one) and the end of its
  /// standard error (after "its standard error ends:\n").
  std::string detail;
  double seconds = 0;
};

/// The first line of \p text that reads like a diagnostic (an error, an
/// assertion, a fatal signal, a segmentation fault), or "".
std::string first_diagnostic_line(const std::string& text);

/// Runs \p backend with \p placeholders (the files of the case, already
/// written; "outdir" is where the outputs are read from), expecting
/// \p outputs. The command runs in teval's working directory, in its own
/// process group, with stdin from /dev/null and stdout and stderr in
/// work_dir/stdout.txt and stderr.txt; the group is killed at the timeout.
ExternalRun run_external(const ExternalBackend& backend, const std::string& work_dir,
                         const std::map<std::string, std::string>& placeholders,
                         const std::vector<std::string>& outputs);

} // namespace teval::verify
