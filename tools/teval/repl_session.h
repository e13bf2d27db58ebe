// The state of a `teval` REPL session and the meaning of each entry, apart
// from any terminal: definitions, statements in the current notation and
// `:` commands. docs/REPL.md describes what users see.
#pragma once

#include "core/backend.h"
#include "core/kernel.h"
#include "core/source.h"
#include "core/tensor.h"
#include "parser/ast.h"
#include "tools/teval/array_print.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace teval::tools::repl {

/// The notation statements are read in.
enum class Lang { Antares, Tile };

/// One tensor of the session and where its value came from.
struct Variable {
  core::Tensor value;
  /// "random, seed 0", "load(\"w.npy\")", "line 3".
  std::string origin;
};

/// What an entry asks the caller to do besides printing.
struct Outcome {
  /// The text to print on stdout (empty, or ending in a newline).
  std::string text;
  /// `:quit` was entered.
  bool quit = false;
};

/// A REPL session. Every entry either succeeds, changing the session, or
/// throws core::Error and leaves the session exactly as it was.
class Session {
public:
  /// The engines statements may run on (`:set engine`, `teval repl
  /// --engine`): interp, ireval, jit and hexagon.
  static const std::vector<std::string>& engines();

  /// A session whose statements run on \p engine, one of engines().
  explicit Session(std::string engine = "interp");

  /// Runs one entry (possibly several lines): a `:command`, a definition
  /// `NAME = ...`, a bare tensor name (prints it) or statements in the
  /// current notation. Throws core::Error, pointing into \p entry.
  Outcome execute(const std::shared_ptr<const core::SourceFile>& entry);

  /// The names of the session's tensors, sorted.
  std::vector<std::string> variable_names() const;
  Lang lang() const { return lang_; }
  const PrintOptions& print_options() const { return print_; }

  /// The text of `:help`.
  static const char* const kHelp;

private:
  Outcome command(const std::shared_ptr<const core::SourceFile>& entry);
  Outcome define(const std::shared_ptr<const core::SourceFile>& entry);
  std::optional<Outcome> copy(const core::SourceFile& entry);
  Outcome statements(const std::shared_ptr<const core::SourceFile>& entry);
  Outcome antares(const std::shared_ptr<const core::SourceFile>& entry, bool type_only);
  Outcome antares_expression_type(const std::shared_ptr<const core::SourceFile>& entry);
  Outcome tile(const std::shared_ptr<const core::SourceFile>& entry, bool type_only);
  // Evaluates \p kernel on the session's tensors (and seeded random data for
  // inputs an input_dict declares), stores the outputs, returns their
  // printout. \p order lists the output names in the order to print.
  Outcome run(core::Kernel kernel, const std::map<std::string, std::string>& renamed,
              const std::vector<std::string>& order,
              const std::shared_ptr<const core::SourceFile>& entry);
  std::string show(const std::string& name, const core::Tensor& t) const;

  // The entry without a trailing `;` (`;;` in Tile, whose C++ statements
  // end in `;`), which asks for no printing; nullptr when there is none.
  std::shared_ptr<const core::SourceFile>
  without_silencer(const std::shared_ptr<const core::SourceFile>& entry) const;
  Outcome execute_entry(const std::shared_ptr<const core::SourceFile>& entry);
  core::Backend& backend();

  std::map<std::string, Variable> vars_;
  Lang lang_ = Lang::Antares;
  PrintOptions print_;
  uint64_t seed_ = 0;
  // Who evaluates statements: one of engines() (:set engine).
  std::string engine_;
  std::unique_ptr<core::Backend> backend_;
  // Whether every entry reports its wall time (:set time on).
  bool time_ = false;
  // Tile declarations (TensorDim, TensorIndex, bind_dims) of earlier
  // entries, which later Tile entries see.
  std::vector<ast::StmtPtr> tile_declarations_;
  // The kernel of the last statement that ran, for :lower and :jit.
  std::optional<core::Kernel> last_kernel_;
  // The sources the kept ASTs and kernels point into.
  std::vector<std::shared_ptr<const core::SourceFile>> sources_;
};

} // namespace teval::tools::repl
