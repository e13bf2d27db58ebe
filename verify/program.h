// A generated test program and the differential check of every backend
// against the interpreter.
#pragma once

#include "core/backend.h"
#include "core/graph.h"
#include "core/kernel.h"
#include "core/source.h"
#include "parser/antares/antares.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace teval::verify {

/// A program text in one notation with the types of its inputs.
struct Program {
  std::string lang; ///< "antares", "tile" or "mlir"
  std::string text;
  /// The inputs' dtypes and shapes, by name, in the order they were made.
  std::vector<std::pair<std::string, parser::InputType>> inputs;
  /// The Tile function to run (empty for Antares).
  std::string entry;
  /// Antares: tensors besides the last statement's output that are outputs
  /// (extra_outputs), so every statement's result is compared.
  std::vector<std::string> extra_outputs;
};

/// The text teval reads for \p p: the program itself, or for Antares with
/// extra outputs a COMPUTE_V1 value declaring the inputs and the outputs.
std::string source(const Program& p);

/// \p s in single quotes for a POSIX shell (every `'` escaped).
std::string shell_quote(const std::string& s);

/// For Antares, the COMPUTE_V1 value that declares every input (and the
/// extra outputs): `- einstein_v2("...", input_dict={...})`, as Antares
/// reads it. Tile programs have none (empty).
std::string compute_v1_value(const Program& p);

/// The whole line an Antares build takes: `COMPUTE_V1='<value>' make`.
std::string compute_v1_line(const Program& p);

/// Shows \p p in RapidCheck's reports: the text and the input types.
void showValue(const Program& p, std::ostream& os);

/// The `teval run` command line that reruns \p p on the inputs of \p seed.
std::string command_line(const Program& p, uint64_t seed);

/// What a program elaborates to.
struct Elaborated {
  /// The text the kernel's spans point into.
  std::shared_ptr<const core::SourceFile> source;
  /// The kernel; for MLIR, the einstein_v2 decomposition of its op graph.
  core::Kernel kernel;
  /// MLIR: the op graph, whose native evaluation is the ground truth the
  /// decomposition must give, and the constants the decomposition takes as
  /// inputs besides arg0, arg1, ...
  std::optional<core::Graph> graph;
  std::map<std::string, core::Tensor> constants;
  /// MLIR: the function's text, which the graph's spans point into.
  std::shared_ptr<const core::SourceFile> graph_source;
};

/// Elaborates \p p, read as a file named \p name holding \p text (by
/// default source(p)). Throws Error when the text does not elaborate.
Elaborated elaborate_program(const Program& p, const std::string& name = "<generated>",
                             const std::optional<std::string>& text = std::nullopt);

/// The kernel of \p p. Its spans point into \p keep, which must outlive the
/// kernel. Throws Error when the text does not elaborate.
core::Kernel elaborate(const Program& p, std::shared_ptr<const core::SourceFile>& keep);

/// How a backend disagreed with the first one.
struct Disagreement {
  /// "outputs" (a different value), "error" (a different diagnostic, or
  /// one where the other had none), "hang" (ran past its time budget) or
  /// "elaboration" (the generated program does not elaborate).
  std::string kind;
  /// The backend that disagreed ("" for elaboration).
  std::string backend;
  /// What differs, in words, with the loop nest where it helps.
  std::string what;
};

/// For an MLIR program, its graph's native evaluation on \p inputs (the
/// kernel's, in interp::input_ids order) against \p decomposition, the
/// kernel's outcome on the interpreter: the same values, or an error in
/// both. Nothing for other programs.
std::optional<Disagreement> native_disagreement(const Elaborated& e,
                                                const std::vector<core::Tensor>& inputs,
                                                const core::Outcome& decomposition);

/// Runs \p p on the seeded random inputs of \p seed with every backend
/// and compares each with the first: the same outputs bit for bit (any NaN
/// equals any NaN) or the same rendered error. Every backend after the
/// first runs under core::hang_budget() of the first's time. Returns the
/// first disagreement, or nothing when all agree. A program that does not
/// elaborate is a disagreement too: generated programs are valid by
/// construction.
/// When \p outcome is given it receives the first backend's outcome: empty
/// for success, else its rendered error. A backend that cannot run the
/// kernel (core::Outcome::unsupported) gives no verdict; \p skipped, when
/// given, is set when one did not.
std::optional<Disagreement> disagreement(const Program& p, uint64_t seed,
                                         const std::vector<core::Backend*>& backends,
                                         std::string* outcome = nullptr, bool* skipped = nullptr);

/// Compares backend \p name's outcome \p o on \p kernel with the outcome
/// \p reference of backend \p first: a hang (past \p budget), a different
/// error, or an output that is not bit-identical is a disagreement.
std::optional<Disagreement> compare_outcomes(const core::Kernel& kernel, const std::string& first,
                                             const core::Outcome& reference,
                                             const std::string& name, const core::Outcome& o,
                                             std::chrono::milliseconds budget);

} // namespace teval::verify
