// `teval check`: the oracle's verdict on another compiler's output.
#pragma once

#include <string>
#include <vector>

namespace teval::tools {

/// Runs `teval check` with \p args. Returns 0 when every candidate passes,
/// 1 for a mismatch or a wrong program or input, 2 for a usage error.
int check_command(const std::vector<std::string>& args);

/// The text of `teval check --help`.
extern const char* const kCheckHelp;

} // namespace teval::tools
