// A rule file's own #define macros, expanded as the C preprocessor expands
// them: token by token, with `#` (stringizing), `##` (pasting), empty
// bodies, variadic parameters and rescanning, before the rule is parsed.
// The macros of the HTP headers are expanded afterwards, on the parsed tree
// (htp_macros.h). Internal to parser/.
#pragma once

#include "core/source.h"
#include "parser/htp/htp_macros.h"
#include "parser/text.h"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace teval::parser::htp {

/// `#define NAME(params) body` or, object-like, `#define NAME body`; the
/// last parameter may be `...`.
struct TokenMacro {
  std::vector<std::string> params;
  bool function_like = true;
  std::string body;
};

/// What expanding a rule's text gave.
struct Preprocessed {
  MappedText text; ///< each byte mapped to the source it came from
  /// Uses left as written because of an error: a wrong argument count, an
  /// unterminated use, a `#` without a parameter, a paste that is not one
  /// token.
  FailedUses failed;
};

/// The file's macros in effect at one point, and their expansion.
class TokenMacros {
public:
  void define(const std::string& name, TokenMacro m) { macros_[name] = std::move(m); }
  void undefine(const std::string& name) { macros_.erase(name); }

  /// \p text (bytes of \p file from offset \p base on) with every use of
  /// these macros expanded, or nothing when it uses none. Bytes of an
  /// expansion map to the whole use; arguments keep their own bytes. The
  /// tokens made are taken from \p budget; an expansion that would make
  /// more throws Error(Limit) (\p file_limit: the budget is what is left of
  /// the file's, which the message says).
  std::optional<Preprocessed> expand(const core::SourceFile* file, std::string_view text,
                                     uint32_t base, size_t& budget, bool file_limit) const;

private:
  std::map<std::string, TokenMacro> macros_;
};

} // namespace teval::parser::htp
