// `teval gen` and `teval fuzz`: campaigns for other compilers.
#pragma once

#include <string>
#include <vector>

namespace teval::tools {

extern const char* const kGenHelp;
extern const char* const kFuzzHelp;

/// `teval gen`: a corpus of generated cases. Returns the exit status.
int gen_command(const std::vector<std::string>& args);

/// `teval fuzz`: a differential campaign. Returns the exit status.
int fuzz_command(const std::vector<std::string>& args);

} // namespace teval::tools
