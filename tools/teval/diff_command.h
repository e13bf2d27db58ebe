// `teval diff`: a differential campaign from the command line.
#pragma once

#include <string>
#include <vector>

namespace teval::tools {

/// Runs `teval diff` with \p args. Returns 0 when every backend agreed on
/// every case, 1 when some case disagreed, 2 on a usage error.
int diff_command(const std::vector<std::string>& args);

extern const char* const kDiffHelp;

} // namespace teval::tools
