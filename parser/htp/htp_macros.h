// Macros of HTP rule files: the seed's (IS_QUINT8, DIM_HEIGHT, SAME_SHAPE,
// AUTOSPLIT_SLICE, TYPICAL_SLICE, CHANGEDIM_SLICE, OpMultiOut), those of the
// HTP headers met in the wild (FROM_DEFAULT_PACKAGE, CAST_TO_FP16, OPCONST,
// TILE_HEIGHT, ...) and a file's own `#define`s. Internal to parser/.
#pragma once

#include "core/source.h"
#include "parser/ast.h"

#include <map>
#include <string>
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

/// The most nodes one rule's macro expansion may visit. Rules in the wild
/// expand to at most a few hundred nodes; the limit keeps a file of
/// doubling macros (tests/data/htp/reject/blowup.cpp) to milliseconds per
/// rule.
inline constexpr size_t kMaxExpandedNodes = 100000;

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
  /// theirs. Throws Error for a wrong argument count, a recursion deeper
  /// than 64 expansions or a result of more than kMaxExpandedNodes nodes.
  /// When \p uses is given, every use of a macro with a warning is
  /// appended to it.
  ast::ExprPtr expand(const ast::ExprPtr& e, std::vector<MacroUse>* uses = nullptr) const;

private:
  ast::ExprPtr expand(const ast::ExprPtr& e, int depth, std::vector<MacroUse>* uses,
                      size_t& visited) const;
  std::map<std::string, MacroDef> macros_;
};

} // namespace teval::parser::htp
