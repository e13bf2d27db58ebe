// REPL definitions: `x = float32[4, 8]`, `y = int32[16] in [0, 8)`,
// `w = load("w.npy")`.
#pragma once

#include "core/dtype.h"
#include "core/shape.h"
#include "core/source.h"
#include "interp/random_inputs.h"

#include <optional>
#include <string>

namespace teval::tools::repl {

/// One definition of a session tensor.
struct Definition {
  std::string name;
  core::Span name_span;
  /// What follows the `=`.
  core::Span value_span;
  /// A path for `load("PATH")`; empty for random data.
  std::string path;
  core::Span path_span;
  /// The dtype and shape of random data.
  core::DType dtype = core::DType::Float32;
  core::Shape shape;
  /// The values random data is drawn from (the dtype's default without
  /// `in [lo, hi)`).
  interp::RandomBounds bounds;
  bool has_bounds = false;
  /// The range as written, `[0, 8)`.
  core::Span bounds_span;
};

/// True when \p text has the form of a definition: `NAME = DTYPE[` or
/// `NAME = load(`, after optional spaces; with \p any_word also
/// `NAME = WORD[` for any word (in einstein_v2, where such a line cannot be a
/// statement, so a misspelt dtype is reported as one). Anything else is a
/// statement of the session's notation or a command.
bool looks_like_definition(std::string_view text, bool any_word);

/// Reads the definition that is the whole of \p entry (which
/// looks_like_definition). Grammar:
///
///     NAME = DTYPE '[' [DIM {',' DIM} [',']] ']' ['in' INTERVAL]
///     NAME = load '(' STRING ')'
///     INTERVAL = ('[' | '(') NUMBER ',' NUMBER (')' | ']')
///
/// Integer dtypes take integer bounds with either kind of end; floating
/// dtypes take `[lo, hi)` only (that is the range they are drawn from).
/// Throws Error with a span on any mistake: syntax, an unknown dtype, a bound
/// the dtype cannot hold, an empty range, a shape beyond teval's limits.
Definition read_definition(const core::SourceFile& entry);

} // namespace teval::tools::repl
