// `teval run`: evaluate a program with the ground-truth interpreter.
#pragma once

#include <string>
#include <vector>

namespace teval::tools {

/// Runs `teval run` with \p args (the words after "run"). Returns the exit
/// code: 0 ok, 1 the program or its inputs are wrong (a diagnostic on
/// stderr, no output written), 2 a usage error.
int run_command(const std::vector<std::string>& args);

/// The text of `teval run --help`.
extern const char* const kRunHelp;

} // namespace teval::tools
