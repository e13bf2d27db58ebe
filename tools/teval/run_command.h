// `teval run` and `teval lower`: evaluate a program, or print its loop nest.
#pragma once

#include <string>
#include <vector>

namespace teval::tools {

/// The commands that read one program.
enum class Command {
  Run,   ///< `teval run`: evaluate it and write or print the outputs
  Lower, ///< `teval lower`: print its loop nest
};

/// Runs \p command with \p args (the words after the command name).
/// Returns the exit code: 0 ok, 1 the program or its inputs are wrong (a
/// diagnostic on stderr, no output written), 2 a usage error.
int run_command(const std::vector<std::string>& args, Command command = Command::Run);

/// The texts of `teval run --help` and `teval lower --help`.
extern const char* const kRunHelp;
extern const char* const kLowerHelp;

} // namespace teval::tools
