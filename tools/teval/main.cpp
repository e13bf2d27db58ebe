// teval: a semantic reference engine for tensor index notations.
#include "tools/teval/campaign_commands.h"
#include "tools/teval/check_command.h"
#include "tools/teval/diff_command.h"
#include "tools/teval/repl_command.h"
#include "tools/teval/rules_command.h"
#include "tools/teval/run_command.h"

#include <iostream>
#include <new>
#include <string>
#include <vector>

namespace {

const char* const kHelp = R"(usage: teval [<command> [options]]

teval reads the index notations tensor compilers use to describe kernels,
gives every program one precise, documented meaning (docs/SEMANTICS.md) and
evaluates it exactly. Without a command, teval opens an interactive session
(the REPL; see teval repl --help).

commands:
  repl      the interactive session, or a script of REPL entries
  run       evaluate a program with the ground-truth interpreter
  lower     print the loop nest a program lowers to
  jit       print the LLVM IR or assembly a program compiles to
  emit      print a program as a complete C program (teval emit --to c)
  check     judge another compiler's output: exact, within a rigorous bound,
            or a mismatch with its worst element
  diff      check every backend against the interpreter on random programs
  gen       write a corpus of generated programs, inputs and expected results
  fuzz      a resumable, parallel campaign against teval's engines or another
            compiler, with shrunk and grouped findings
  rules     check, expand, apply and verify Hexagon HTP optimization rules

Run `teval <command> --help` for the options of a command.

exit status: 0 success; 1 the program or its inputs are wrong; 2 a usage
error.
)";

int dispatch(const std::vector<std::string>& args);

} // namespace

int main(int argc, char** argv) {
  // Every command turns the allocations the machine refuses into a
  // diagnostic; this is the last line for those it does not.
  try {
    return dispatch({argv + 1, argv + argc});
  } catch (const std::bad_alloc&) {
    std::cout.flush();
    std::cerr << "teval: error: out of memory\n";
    return 1;
  }
}

namespace {

int dispatch(const std::vector<std::string>& args) {
  if (args.empty())
    return teval::tools::repl_command({});
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kHelp;
    return 0;
  }
  if (args[0] == "--version") {
    std::cout << "teval 0.1.0\n";
    return 0;
  }
  if (args[0] == "repl")
    return teval::tools::repl_command({args.begin() + 1, args.end()});
  if (args[0] == "run")
    return teval::tools::run_command({args.begin() + 1, args.end()});
  if (args[0] == "lower")
    return teval::tools::run_command({args.begin() + 1, args.end()}, teval::tools::Command::Lower);
  if (args[0] == "jit")
    return teval::tools::run_command({args.begin() + 1, args.end()}, teval::tools::Command::Jit);
  if (args[0] == "emit")
    return teval::tools::run_command({args.begin() + 1, args.end()}, teval::tools::Command::Emit);
  if (args[0] == "check")
    return teval::tools::check_command({args.begin() + 1, args.end()});
  if (args[0] == "diff")
    return teval::tools::diff_command({args.begin() + 1, args.end()});
  if (args[0] == "gen")
    return teval::tools::gen_command({args.begin() + 1, args.end()});
  if (args[0] == "fuzz")
    return teval::tools::fuzz_command({args.begin() + 1, args.end()});
  if (args[0] == "rules")
    return teval::tools::rules_command({args.begin() + 1, args.end()});
  std::cerr << "teval: unknown command '" << args[0] << "'\n(see teval --help)\n";
  return 2;
}

} // namespace
