// `teval` with no arguments and `teval repl`: the interactive session on a
// terminal (libedit), or a script read from stdin or a file.
#pragma once

#include <string>
#include <vector>

namespace teval::tools {

/// Runs the REPL with \p args (the words after `repl`). With stdin a
/// terminal and no FILE: line editing, history in ~/.teval_history, Tab
/// completion; Ctrl-C cancels the input, Ctrl-D or :quit leaves (exit 0).
/// Otherwise the input is a script: results on stdout, and at the first
/// error a diagnostic on stderr and exit 1. Exit 2 on a usage error.
int repl_command(const std::vector<std::string>& args);

/// The text of `teval repl --help`.
extern const char* const kReplHelp;

} // namespace teval::tools
