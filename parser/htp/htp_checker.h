// The checker of HTP rules, shared by htp_check.cpp (top-level forms, pass
// specs, matches) and htp_check_forms.cpp (constraint and replacement
// forms). Internal to parser/.
#pragma once

#include "parser/htp/htp_check.h"
#include "parser/htp/htp_macros.h"

#include <algorithm>
#include <optional>
#include <set>

namespace teval::parser::htp::detail {

using core::Diagnostic;
using core::Severity;
using core::Span;

enum class Ty { Bool, Int, Size, Float, DType, Bad };

inline const char* ty_name(Ty t) {
  switch (t) {
  case Ty::Bool:
    return "bool";
  case Ty::Int:
    return "int";
  case Ty::Size:
    return "size";
  case Ty::Float:
    return "float";
  case Ty::DType:
    return "dtype";
  case Ty::Bad:
    return "invalid";
  }
  TEVAL_UNREACHABLE("type");
}

inline bool numeric(Ty t) {
  return t == Ty::Int || t == Ty::Size || t == Ty::Float;
}
inline bool integral(Ty t) {
  return t == Ty::Int || t == Ty::Size;
}

// C's usual arithmetic conversions over int, size and float.
inline Ty promote(Ty a, Ty b) {
  if (a == Ty::Bad || b == Ty::Bad)
    return Ty::Bad;
  if (a == Ty::Float || b == Ty::Float)
    return Ty::Float;
  if (a == Ty::Size || b == Ty::Size)
    return Ty::Size;
  return Ty::Int;
}

// What a replacement expression builds (the seed's "Restrictions").
enum class Built {
  Existing, ///< an existing opref: a node already in the graph
  Op,       ///< an Op construction
  Shape,    ///< a shape construction
  Const,    ///< a gen_Const* array
  External, ///< AUTOSPLIT or EXTERNAL_REPLACE (Op constructions of their own)
  Bad,
};

struct Repl {
  Built built = Built::Bad;
  bool may_be_star = false;
};

inline bool is_call(const ast::Expr& e, std::string_view name) {
  const ast::Call* c = as_call(e);
  return c && c->callee == name;
}

inline const std::set<std::string> kDTypeTags = {
    "Unknown", "QUInt8", "QUInt16", "QInt16", "Float32", "Int32", "QInt32", "QInt8", "Float16",
    "Int64",   "UInt8",  "UInt16",  "UInt32", "Int8",    "Int16", "UInt64", "Bool",  "BFloat16",
};

inline const std::set<std::string> kReplForms = {"Operand",
                                                 "Op",
                                                 "WrapOp",
                                                 "WrapOpAlways",
                                                 "gen_Shape",
                                                 "gen_ShapeOf",
                                                 "gen_ConstScalar_f32",
                                                 "gen_ConstScalar_i32",
                                                 "gen_ConstArr_f32",
                                                 "gen_ConstArr_i32",
                                                 "gen_ConstArr_vals_i32",
                                                 "AUTOSPLIT",
                                                 "OP_ITER",
                                                 "ITER_INPUT_OF",
                                                 "AUTOSPLIT_SHAPEFN_APPLY",
                                                 "WITH_SIZE",
                                                 "WITH_TYPE",
                                                 "WITH_SAME_OUTPUT",
                                                 "WITH_OUTPUT_TYPE",
                                                 "WITH_MULTI_OUT",
                                                 "ResizeDim",
                                                 "WITH_SAME_ID",
                                                 "WITH_SPLIT_HISTORY",
                                                 "EXTERNAL_REPLACE",
                                                 "SHAPEFN_APPLY",
                                                 "AUTOSPLIT_SLICE",
                                                 "TYPICAL_SLICE",
                                                 "CHANGEDIM_SLICE",
                                                 "OpMultiOut",
                                                 "INPUT_OF",
                                                 "OUTPUT_OF"};

// Functions the rewrite engine knows, used by the seed's slice macros.
inline const std::set<std::string> kBuiltinShapeFns = {
    "simple_split_start",   "simple_split_size",      "simpledim_split_start",
    "simpledim_split_size", "conv_valid_split_start", "conv_valid_split_size"};

class Checker {
public:
  /// \p warned: the forms beyond the seed's grammar already warned about
  /// in this file (docs/HTP_RULES.md: once per file).
  Checker(Rule& rule, const std::vector<ExternalFunction>& externals, std::set<std::string>& warned)
      : rule_(rule), externals_(externals), warned_(warned) {}

  /// The checks of an optimization rule; then the seed's macros expanded.
  void optimization(const ast::Call& inv);

  void op(const ast::Call& inv);

  void tensor_properties(const ast::Call& inv);

  void param_order(const ast::Call& inv);

private:
  void error(Span s, std::string msg) {
    rule_.diagnostics.push_back(Diagnostic{Severity::Error, s, {}, std::move(msg)});
  }
  void warning(Span s, std::string msg) {
    rule_.diagnostics.push_back(Diagnostic{Severity::Warning, s, {}, std::move(msg)});
  }
  // A warning about form \p form beyond the seed's grammar, the first time
  // the file uses it.
  void beyond_grammar(const std::string& form, Span s, std::string msg) {
    if (warned_.insert(form).second)
      warning(s, std::move(msg));
  }
  static bool is_string(const ast::Expr& e, std::string_view value) {
    const ast::StringLit* s = as_string(e);
    return s && s->value == value;
  }

  bool arity(const ast::Call& c, size_t min, size_t max);

  // ---- lexical checks of string constants

  // Tags and opstrings: "Nothing unprintable, no space or escapes; ... Empty
  // string is not allowed."
  bool plain_string(const ast::Expr& e, const char* what);

  // ---- pass spec

  void pass(const ast::ExprPtr& e);

  // ---- match

  void match_root(const ast::Expr& e);

  // First pass: every tag the match defines, and LET's restrictions.
  void collect_tags(const ast::Expr& e);

  void walk_match(const ast::Expr& e, std::set<std::string>& lets);

  static bool mentions(const ast::Expr& e, const std::string& tag);

  void match_op(const ast::Expr& e);

  void match_operand(const ast::Expr& e);

  // ---- constraints

  void tag(const ast::Expr& e);

  void opref(const ast::Expr& e);

  void expect(const ast::Expr& e, Ty want);

  void expect_int(const ast::Expr& e);

  std::optional<int64_t> constant_int(const ast::Expr& e);

  std::string split_ref(const ast::Expr& e);

  Ty literal(const ast::Expr& e);

  Ty cst(const ast::Expr& e);

  Ty cst_call(const ast::Call& c, const ast::Expr& e);
  Ty external_call(const ast::Call& c, size_t first_param);

  Repl repl(const ast::Expr& e, bool root);
  Repl repl_call(const ast::Call& c, const ast::Expr& e, bool root);
  Repl modifier(const ast::Call& c, bool root);
  void apply_parm(const ast::Expr& e);
  void opstring(const ast::Expr& e) { plain_string(e, "an opstring"); }
  void open_split(const ast::Expr& tag_expr, bool& opened);

  Rule& rule_;
  const std::vector<ExternalFunction>& externals_;
  std::set<std::string>& warned_;
  std::set<std::string> tags_;
  // Counts the split tags \p e names as referenced.
  void mark_split_references(const ast::Expr& e);

  // The replacement being checked is an operand of Op(...) itself.
  bool in_op_operand_ = false;
  std::vector<std::string> scopes_;  // enclosing AUTOSPLIT / OP_ITER tags
  std::set<std::string> split_tags_; // every AUTOSPLIT / OP_ITER tag
  std::set<std::string> referenced_; // split tags referenced so far
};

} // namespace teval::parser::htp::detail
