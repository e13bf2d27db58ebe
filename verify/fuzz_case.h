// One case of a campaign: the program and inputs of a case index, and its
// check on the backends under test, run in a sandbox so that a crash or a
// hang of the code under test is a finding.
#pragma once

#include "verify/external.h"
#include "verify/profile.h"
#include "verify/program.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace teval::verify {

/// The programs of a campaign: case i of (lang, seed) is the same program
/// and the same inputs on every machine and in every run, so shards and
/// resumed campaigns never depend on what ran before.
struct CaseSpace {
  std::string lang = "antares"; ///< antares, tile, or all (even cases Antares, odd Tile)
  uint64_t seed = 0;
  /// What the cases may contain (the compiler under test's support).
  Profile profile;
  /// Only programs the interpreter runs without an error on their inputs
  /// (a campaign against a compiler that is not asked about errors).
  bool valid_only = false;
};

struct Case {
  uint64_t index = 0;
  Program program;
  uint64_t input_seed = 0;
};

/// Case \p index of \p space: the generator at size index % 100 (as
/// RapidCheck's sizes cycle) from a random stream keyed by the seed and
/// the index. With a profile, the first of up to kProfileAttempts
/// programs (each from a stream keyed by the attempt too) that elaborates
/// and that the profile admits, and with valid_only that the interpreter
/// runs without an error on its inputs; the last one when none does.
inline constexpr int kProfileAttempts = 2000;
Case make_case(const CaseSpace& space, uint64_t index);

/// The notation \p space gives case \p index.
std::string case_lang(const CaseSpace& space, uint64_t index);

/// The file name a program is written to: program.antares or program.tile.
std::string program_file_name(const Program& p);

/// What a campaign tests.
struct Target {
  /// teval's own engines, compared bit for bit with the interpreter:
  /// "ireval", "jit".
  std::vector<std::string> engines;
  /// Another compiler, when given.
  std::optional<ExternalBackend> external;
  /// How the external backend's outputs are judged: bit for bit against
  /// the interpreter, or by teval check's rigorous verdict.
  enum class Compare { Bits, Check } compare = Compare::Check;
  /// With Compare::Check: the backend may fuse a product into the sum or
  /// addition it feeds (teval check --fma).
  bool fma = false;
  /// The external backend must fail (exit non-zero) where the interpreter
  /// reports an error; otherwise such cases are not given to it.
  bool expect_errors = false;
  /// A budget for teval's own stages (elaboration, the interpreter, one
  /// compilation), far above what generated programs need.
  std::chrono::milliseconds stage_budget{60'000};
  /// Where the external backend's files are made (a fresh directory per
  /// run below it, removed afterwards).
  std::string scratch_dir = "/tmp";
};

/// The engine names Target::engines accepts.
bool known_engine(const std::string& name);

/// The result of checking one case.
struct CaseResult {
  /// The first disagreement, if any. Kinds (docs/TESTING.md): teval's
  /// engines "outputs", "error", "hang", "crash"; the reference itself
  /// "elaboration", "crash", "hang" (backend "interp"); the external
  /// backend "crash", "exit", "hang", "memory", "missing-output",
  /// "unreadable-output", "dtype", "shape", "nan", "inf", "value",
  /// "no-error" (backend "external").
  std::optional<Disagreement> disagreement;
  /// The interpreter reported an error for this case (the program is meant
  /// to fail).
  bool reference_error = false;
  /// The external backend was not run (the program is meant to fail and
  /// errors are not expected of it).
  bool external_skipped = false;
  /// The external backend declined the program (exit status kDeclined:
  /// its compiler does not support it), so it gave no verdict.
  bool external_declined = false;
  /// One of teval's engines could not run the case (core::Outcome::
  /// unsupported: the DSP without its tool chain, or a kernel calling what
  /// its runtime does not define), so it gave no verdict.
  bool engine_unsupported = false;
};

/// Checks \p p on the inputs of \p input_seed: runs the interpreter and
/// every backend of \p target in a forked child (sandbox.h) and compares.
/// With \p save_dir, writes there what a finding needs: the program
/// (program.*, and compute_v1.txt for Antares), inputs/NAME.npy, the
/// interpreter's outputs in expected/ (or expected/error.txt), and each
/// backend's in outputs/BACKEND/ (NAME.npy, error.txt, or what it said).
CaseResult check_case(const Program& p, uint64_t input_seed, const Target& target,
                      const std::string& save_dir = "");

/// The text of a program file: for Antares the COMPUTE_V1 value that
/// declares every input (compute_v1_value()), for Tile the functions, for
/// MLIR the function.
std::string program_file_text(const Program& p);

/// \p p elaborated from program_file_text() as the file \p name, so that
/// diagnostics point into the program file as written.
Elaborated elaborate_file(const Program& p, const std::string& name);

/// Writes \p text to the file \p path, making its directory; throws
/// core::Error(Input) when that fails.
void write_text_file(const std::string& path, const std::string& text);

/// Writes the program files of \p p into \p dir: program.antares or
/// program.tile (program_file_text()), and compute_v1.txt for Antares (the
/// line an Antares build takes).
void write_program_files(const Program& p, const std::string& dir);

} // namespace teval::verify
