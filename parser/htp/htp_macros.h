// Macros of HTP rule files: the seed's (IS_QUINT8, DIM_HEIGHT, SAME_SHAPE,
// AUTOSPLIT_SLICE, TYPICAL_SLICE, CHANGEDIM_SLICE, OpMultiOut), those of the
// HTP headers met in the wild (FROM_DEFAULT_PACKAGE, CAST_TO_FP16, OPCONST,
// TILE_HEIGHT, ...) and a file's own `#define`s. Internal to parser/.
#pragma once

#include "core/error.h"
#include "core/source.h"
#include "parser/ast.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace teval::parser::htp {

/// One macro: `NAME(params) body` or, object-like, `NAME body`.
struct MacroDef {
  std::vector<std::string> params;
  bool function_like = true;
  ast::ExprPtr body;
  /// Expands a use whose expansion no body can write (IS_DTYPE_ALL: one
  /// test per argument); used instead of the body when set.
  ast::ExprPtr (*native)(const std::vector<ast::ExprPtr>& args, core::Span use) = nullptr;
  /// For constructs outside the seed's grammar: the warning a use earns
  /// (once per file), naming the construct and what teval reads it as.
  std::string warning;
};

/// A use of a macro that has a warning.
struct MacroUse {
  std::string name;
  core::Span span;
  std::string warning;
};

/// Uses of macros left as written because of an error: the errors, and
/// each use's span (name to closing parenthesis).
struct FailedUses {
  std::vector<core::Diagnostic> errors;
  std::vector<core::Span> uses;
};

/// Whether \p s lies within one of \p uses.
inline bool inside(const core::Span& s, const std::vector<core::Span>& uses) {
  for (const core::Span& u : uses)
    if (s.file == u.file && s.begin >= u.begin && s.end <= u.end)
      return true;
  return false;
}

/// The most nodes one rule's macro expansion may visit. Rules in the wild
/// expand to at most a few hundred nodes; the limit keeps a file of
/// doubling macros (tests/data/htp/reject/blowup.cpp) to milliseconds per
/// rule.
inline constexpr size_t kMaxExpandedNodes = 100000;
/// The most nodes the expansions of all a file's rules may visit, per byte
/// of the file: without it, each rule of a file may use a doubling macro
/// and make the work grow as rules times kMaxExpandedNodes (a 14 KB file
/// took 8 s). Rules in the wild make fewer nodes than they have bytes.
inline constexpr size_t kExpandedNodesPerFileByte = 16;

/// A set of macros and their expansion.
class MacroTable {
public:
  /// The seed's constraint and replacement macros, with the seed's stated
  /// expansions.
  static const MacroTable& seed();
  /// Macros of the HTP headers that rules in the wild use.
  static const MacroTable& headers();

  void define(const std::string& name, MacroDef def) { macros_[name] = std::move(def); }
  void undefine(const std::string& name) { macros_.erase(name); }
  bool defines(const std::string& name) const { return macros_.count(name) != 0; }
  /// Every use in \p e expanded, repeatedly, to a tree with no uses left.
  /// Expanded nodes carry the span of the use they came from; arguments keep
  /// theirs. Throws Error for a recursion deeper than 64 expansions or a
  /// result of more than kMaxExpandedNodes nodes, and for a wrong argument
  /// count unless \p failed is given: then the error goes there and the use
  /// stays as written. When \p uses is given, every use of a macro with a
  /// warning is appended to it. When \p file_budget is given, the nodes
  /// visited are taken from it, and an expansion that would visit more than
  /// it holds throws Error(Limit) too.
  ast::ExprPtr expand(const ast::ExprPtr& e, std::vector<MacroUse>* uses = nullptr,
                      size_t* file_budget = nullptr, FailedUses* failed = nullptr) const;

private:
  struct Visits {
    size_t count = 0;
    size_t limit = kMaxExpandedNodes;
    bool file_limit = false; ///< the limit is what is left of the file's budget
    /// The spans of the warned uses noted so far.
    std::set<std::tuple<const core::SourceFile*, uint32_t, uint32_t>> noted;
  };
  ast::ExprPtr expand(const ast::ExprPtr& e, int depth, std::vector<MacroUse>* uses,
                      FailedUses* failed, Visits& visits) const;
  std::map<std::string, MacroDef> macros_;
};

} // namespace teval::parser::htp
