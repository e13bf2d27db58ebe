// Reading Hexagon HTP op-package rule files (seed 001) into the one AST.
//
// A rule starts on a line that begins (after indentation) with one of the
// top-level macros and its `(`; it ends at its closing `)`, and everything
// from there up to the next rule is ignored, except that the first
// character after the `)` may not be `(` or `,`. Comments, `#if 0` and
// strings are not rule starts. `#define NAME(params) body` lines whose body
// is a rule expression define macros the rules may use. `// :::
// EXTERNAL_SHAPEFN::: { type name(params); }` comments declare external
// functions. Each rule is parsed, its macros expanded and checked on its
// own: a malformed rule does not stop the others.
#pragma once

#include "core/error.h"
#include "core/source.h"
#include "parser/ast.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace teval::parser::htp {

/// What a top-level macro declares.
enum class ItemKind {
  Optimization,     ///< DEF_PACKAGE_OPTIMIZATION[_WITH_FLAGS], DEF_OPT, DEF_OPTIM
  Op,               ///< DEF_PACKAGE_OP[_AND_COST_[F_]AND_FLAGS]
  TensorProperties, ///< DEF_TENSOR_PROPERTIES
  ParamOrder,       ///< DEF_PACKAGE_PARAM_ORDER
};
/// "optimization", "op", "tensor_properties", "param_order".
const char* kind_name(ItemKind kind);

/// A pass spec `NAME`, `NAME + k` (or, seen in the wild, `NAME - k`).
struct Pass {
  std::string name;
  int64_t offset = 0;
  /// name's priority plus offset; empty for an unknown name.
  std::optional<int64_t> priority;
  core::Span span;
  /// "EARLY", "EARLY+3", "EARLY-2".
  std::string text() const;
};

/// The priority of a pass-group name (the current HTP header's values:
/// GRAPH_CLEANUP 50, EARLY 3050, MIDDLE 20050, LATE 21050, CLEANUP_GRAPH
/// 100, TILING 11000, HARD_OPS 20000, ...), or nothing.
std::optional<int64_t> pass_priority(const std::string& name);

/// One top-level declaration.
struct Rule {
  ItemKind kind = ItemKind::Optimization;
  /// The macro as written and where its name is.
  std::string macro;
  core::Span span;
  /// The invocation as written; null when it did not parse.
  ast::ExprPtr invocation;

  // Optimization rules, after every macro is expanded (null when absent).
  Pass pass;
  /// The flags argument of the _WITH_FLAGS and DEF_OPTIM forms.
  std::string flags;
  ast::ExprPtr match;
  ast::ExprPtr constraint;
  ast::ExprPtr replacement;

  // Op registrations: function, op name, cost, resource flags as written.
  std::string function;
  std::string op_name;
  std::string cost;
  std::vector<std::string> resource_flags;

  /// Errors and warnings about this rule.
  std::vector<core::Diagnostic> diagnostics;
  /// Macro uses left as written because of an error (a wrong argument
  /// count): the rule is still checked, but not inside them.
  std::vector<core::Span> unexpanded;
  bool malformed() const;
};

/// A function declared by a `:::EXTERNAL_SHAPEFN:::` annotation.
struct ExternalFunction {
  std::string return_type;
  std::string name;
  std::vector<std::string> params;
  core::Span span;
};

/// Everything one file declares.
struct RuleFile {
  std::shared_ptr<const core::SourceFile> source;
  std::vector<Rule> rules;
  std::vector<ExternalFunction> externals;
  /// Diagnostics about the file outside any rule.
  std::vector<core::Diagnostic> diagnostics;
  bool malformed() const;
};

/// Reads, expands and checks every rule of \p source. Never throws for
/// problems in the text: they are diagnostics.
RuleFile read_rules(std::shared_ptr<const core::SourceFile> source);

/// A rule expression as text, in the notation's own spelling:
/// `AND(EQ(DIM_OF("*", 3), 32), OK)`.
std::string to_text(const ast::Expr& e);

/// to_text laid out for reading: a call that does not fit in \p width
/// columns (starting at column \p indent) puts each operand on its own
/// line, indented by 4.
std::string to_pretty_text(const ast::Expr& e, size_t indent = 0, size_t width = 100);

} // namespace teval::parser::htp
