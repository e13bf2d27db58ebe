// The options of `teval run`, `lower`, `jit` and `emit` (internal to the
// command line tool), and their parsing.
#pragma once

#include "parser/tile/tile.h"
#include "tools/teval/run_inputs.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace teval::tools {

struct Options {
  std::optional<std::string> file;
  std::optional<std::string> text;
  std::string lang; // empty: from the file name
  std::string entry;
  std::map<std::string, parser::TileParam> params;
  std::vector<InputArg> inputs;
  uint64_t seed = 0;
  int threads = 0; // --engine jit: 0, every core
  std::optional<std::string> out_dir;
  std::optional<std::string> save_inputs;
  std::optional<std::string> dump_values; // an MLIR function's every value
  bool print = false;
  bool dump_kernel = false;
  std::string engine = "interp";
  std::string emit;
  std::string target = "host";
  int64_t max_memory = 0; // 0: the default budget
  double timeout = 0;     // seconds; 0: none
  std::string timeout_text;
  bool no_progress = false;
  bool exact = false;
  bool schedule = false;                            // teval lower: the nest the host JIT compiles
  bool json = false;                                // teval lower --json: the typed kernel as data
  std::string to;                                   // teval emit --to LANGUAGE
  std::optional<std::string> input_dir, output_dir; // teval emit --to mlir: the files' places
  bool vectorize = false; // teval emit --to mlir --vectorize: a transform script
  bool any_order = false; // --order any: reductions in any order (compiled engines)
  bool fma = false;       // --fma: products fused into sums (compiled engines)
  bool no_cache = false;  // --no-cache: the JIT compiles even what it has cached
  bool help = false;
};

/// \p args parsed; throws UsageError (cli_support.h) for a bad option.
Options parse_options(const std::vector<std::string>& args);

} // namespace teval::tools
