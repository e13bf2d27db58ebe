// `teval run`, `teval lower` and `teval jit`: evaluate a program, or print
// its loop nest or compiled code.
#pragma once

#include <string>
#include <vector>

namespace teval::tools {

/// The commands that read one program.
enum class Command {
  Run,   ///< `teval run`: evaluate it and write or print the outputs
  Lower, ///< `teval lower`: print its loop nest
  Jit,   ///< `teval jit`: print its compiled code
};

/// Runs \p command with \p args (the words after the command name).
/// Returns the exit code: 0 ok, 1 the program or its inputs are wrong (a
/// diagnostic on stderr, no output written), 2 a usage error.
int run_command(const std::vector<std::string>& args, Command command = Command::Run);

/// The texts of `teval run --help`, `teval lower --help` and
/// `teval jit --help`.
extern const char* const kRunHelp;
extern const char* const kLowerHelp;
extern const char* const kJitHelp;

} // namespace teval::tools
