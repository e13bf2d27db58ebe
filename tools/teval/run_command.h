// `teval run`, `teval lower` and `teval jit`: evaluate a program, or print
// its loop nest or compiled code.
#pragma once

#include "core/graph.h"
#include "core/kernel.h"
#include "core/source.h"
#include "core/tensor.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace teval::tools {

/// The commands that read one program.
enum class Command {
  Run,   ///< `teval run`: evaluate it and write or print the outputs
  Lower, ///< `teval lower`: print its loop nest
  Jit,   ///< `teval jit`: print its compiled code
  Emit,  ///< `teval emit --to c`: print it as another compiler's program
};

/// Runs \p command with \p args (the words after the command name).
/// Returns the exit code: 0 ok, 1 the program or its inputs are wrong (a
/// diagnostic on stderr, no output written), 2 a usage error.
int run_command(const std::vector<std::string>& args, Command command = Command::Run);

/// A program read and elaborated as `teval run` reads it, with the
/// inputs it runs on (read from files or seeded random).
struct LoadedProgram {
  std::shared_ptr<const core::SourceFile> file;
  /// For an MLIR function, the text of the einstein_v2 decomposition the
  /// kernel is made from.
  std::shared_ptr<const core::SourceFile> decomposition;
  core::Kernel kernel;
  std::vector<core::Tensor> inputs; ///< in interp::input_ids() order
  /// An MLIR function's values asked for by name, and the kernel output
  /// each is; graph_values: the program is an MLIR function.
  std::map<std::string, size_t> values;
  bool graph_values = false;
  /// An MLIR function with no einstein_v2 decomposition (an op or an
  /// element type kernels do not have: control flow, sort, complex
  /// values, ...): its graph, whose outputs are its results and then the
  /// values asked for, and why there is no kernel; `kernel` is empty and
  /// `inputs` are the graph's.
  std::optional<core::Graph> native;
  std::string native_reason;
};

/// Reads the program that \p args name with `teval run`'s program and
/// input options only (FILE or -e, --lang, --entry, -p, -i, --seed,
/// --max-memory, --timeout, --save-inputs is not among them). Throws
/// UsageError for other options or a missing program, Error for a wrong
/// program or input. \p command names the caller in warnings. Of an MLIR
/// function, the values \p values names (core::find_value: `%5`, `%2/%0`)
/// become outputs too, after its results; a name that is no value is
/// skipped. Each of \p givens (`teval check --given`) makes an MLIR
/// function's value an input holding the array given: what is computed from
/// it is computed from that array (give_value).
LoadedProgram load_program(const std::vector<std::string>& args, const std::string& command,
                           const std::vector<std::string>& values = {},
                           const std::vector<std::pair<std::string, core::Tensor>>& givens = {});

/// The tensor a NAME=PATH argument names: a .npy file (C or Fortran
/// order), array KEY of a .npz archive (PATH.npz:KEY), or the array named
/// \p name (PATH.npz). Throws Error(Input).
core::Tensor read_tensor_argument(const std::string& name, const std::string& path);

/// The texts of `teval run --help`, `teval lower --help` and
/// `teval jit --help`.
extern const char* const kRunHelp;
extern const char* const kLowerHelp;
extern const char* const kEmitHelp;
extern const char* const kJitHelp;

} // namespace teval::tools
