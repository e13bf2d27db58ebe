// `teval rules`: reading, checking, expanding, applying and verifying
// Hexagon HTP op-package optimization rules.
#pragma once

#include <string>
#include <vector>

namespace teval::tools {

/// Runs `teval rules SUBCOMMAND ...` with \p args (after "rules"). Returns
/// the exit status: 0 success, 1 a malformed rule (check, expand, apply) or
/// an unsound one (verify), 2 a usage error.
int rules_command(const std::vector<std::string>& args);

} // namespace teval::tools
