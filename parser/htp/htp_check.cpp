// The checks of HTP rules (see htp_check.h): the seed's grammar, constraint
// types (bool, int, size, float, dtype) and the restrictions on match and
// replacement expressions.
#include "parser/htp/htp_check.h"

#include "parser/htp/htp_checker.h"

namespace teval::parser::htp {

namespace detail {

void Checker::optimization(const ast::Call& inv) {
  bool flags = rule_.macro == "DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS" || rule_.macro == "DEF_OPTIM";
  size_t want = flags ? 5 : 4;
  if (rule_.macro == "DEF_OPT" || rule_.macro == "DEF_OPTIM")
    warning(inv.callee_span, rule_.macro + " is an internal HTP-core form; packages use "
                                           "DEF_PACKAGE_OPTIMIZATION");
  if (inv.args.size() != want) {
    error(inv.callee_span, rule_.macro + " takes " + std::to_string(want) + " arguments (" +
                               (flags ? "pass, flags, " : "pass, ") +
                               "match, constraint, replacement), not " +
                               std::to_string(inv.args.size()));
    // The rule's other mistakes are worth reporting too, where the roles of
    // the arguments there are clear: the match is the Op(...), OpVarIn(...)
    // or LET(...) after the pass, the constraint and replacement follow it.
    tags_.insert("*");
    size_t m = 1;
    while (m < inv.args.size() && !is_call(*inv.args[m], "Op") &&
           !is_call(*inv.args[m], "OpVarIn") && !is_call(*inv.args[m], "LET"))
      ++m;
    if (m < inv.args.size()) {
      match_root(*inv.args[m]);
      if (m + 1 < inv.args.size())
        cst(*inv.args[m + 1]);
      if (m + 2 < inv.args.size())
        repl(*inv.args[m + 2], true);
    }
    return;
  }
  tags_.insert("*");
  pass(inv.args[0]);
  if (flags)
    rule_.flags = to_text(*inv.args[1]);
  size_t m = flags ? 2 : 1;
  rule_.match = inv.args[m];
  rule_.constraint = inv.args[m + 1];
  rule_.replacement = inv.args[m + 2];
  match_root(*rule_.match);
  Ty t = cst(*rule_.constraint);
  if (t != Ty::Bool && t != Ty::Bad)
    error(rule_.constraint->span, std::string("the constraint must be bool, not ") + ty_name(t));
  Repl r = repl(*rule_.replacement, true);
  if (r.may_be_star)
    error(rule_.replacement->span,
          is_string(*rule_.replacement, "*")
              ? "the replacement may not be \"*\" (the rule would replace the root by itself)"
              : "the replacement is a SELECT that can evaluate to \"*\"");
  if (rule_.malformed())
    return;
  try {
    rule_.match = MacroTable::seed().expand(rule_.match);
    rule_.constraint = MacroTable::seed().expand(rule_.constraint);
    rule_.replacement = MacroTable::seed().expand(rule_.replacement);
  } catch (const core::Error& e) {
    rule_.diagnostics.push_back(e.diagnostic());
  }
}

void Checker::op(const ast::Call& inv) {
  bool plain = rule_.macro == "DEF_PACKAGE_OP";
  if (plain ? inv.args.size() != 2 : inv.args.size() < 3) {
    error(inv.callee_span, rule_.macro + (plain ? " takes 2 arguments (function, op name)"
                                                : " takes a function, an op name, a cost and "
                                                  "flags"));
    return;
  }
  if (const ast::Name* n = as_name(*inv.args[0]))
    rule_.function = n->id;
  else
    error(inv.args[0]->span, "expected the name of a C++ function");
  if (const ast::StringLit* s = as_string(*inv.args[1]))
    rule_.op_name = s->value;
  else
    error(inv.args[1]->span, "expected the op name as a string constant");
  if (plain)
    return;
  const ast::Expr& cost = *inv.args[2];
  if (const ast::StringLit* s = as_string(cost)) {
    rule_.cost = s->value;
    warning(cost.span, "a cost given as a string constant is not in the grammar; write " +
                           s->value + " without quotes");
  } else if (const ast::Name* n = as_name(cost)) {
    rule_.cost = n->id;
    static const std::set<std::string> kCosts = {"FREE", "FAST", "SNAIL", "GLACIAL"};
    if (rule_.macro == "DEF_PACKAGE_OP_AND_COST_AND_FLAGS" && !kCosts.count(n->id))
      warning(cost.span, "unknown cost '" + n->id + "' (known: FREE, FAST, SNAIL, GLACIAL)");
  } else if (std::holds_alternative<ast::IntLit>(cost.node) ||
             std::holds_alternative<ast::FloatLit>(cost.node)) {
    rule_.cost = to_text(cost);
  } else {
    error(cost.span, "expected a cost");
  }
  static const std::set<std::string> kFlags = {
      "IS_CONST", "RESOURCE_HVX", "RESOURCE_HMX", "RESOURCE_HLX", "IS_DMA", "INHIBIT_CONST_PROP"};
  for (size_t i = 3; i < inv.args.size(); ++i) {
    const ast::Name* n = as_name(*inv.args[i]);
    if (!n) {
      error(inv.args[i]->span, "expected a flag such as Flags::RESOURCE_HVX");
      continue;
    }
    std::string flag = n->id.starts_with("Flags::") ? n->id.substr(7) : n->id;
    if (!kFlags.count(flag))
      warning(inv.args[i]->span, "unknown flag '" + n->id + "'");
    rule_.resource_flags.push_back(n->id);
  }
}

void Checker::tensor_properties(const ast::Call& inv) {
  if (inv.args.empty() || !is_call(*inv.args[0], "Op")) {
    error(inv.callee_span, "DEF_TENSOR_PROPERTIES starts with Op(\"name\", operands...)");
    return;
  }
  const ast::Call& op = *as_call(*inv.args[0]);
  std::set<std::string> names = {"*"};
  if (op.args.empty() || !as_string(*op.args[0]))
    error(op.callee_span, "expected the op name as a string constant");
  else
    rule_.op_name = as_string(*op.args[0])->value;
  for (size_t i = 1; i < op.args.size(); ++i) {
    if (const ast::StringLit* s = as_string(*op.args[i]))
      names.insert(s->value);
    else
      error(op.args[i]->span, "expected an operand name as a string constant");
  }
  static const std::set<std::string> kKinds = {
      "Flat",      "MainMemory", "Tcm",           "Crouton",     "Outputs",
      "PreferTcm", "Fixed",      "FixedConstant", "UnalignedOk", "WhenFitsIfTCM",
      "CroutonIf", "TilingOnly", "FlatAboveArg"};
  for (size_t i = 1; i < inv.args.size(); ++i) {
    const ast::Call* c = as_call(*inv.args[i]);
    if (!c) {
      error(inv.args[i]->span, "expected a property such as Flat(\"in\")");
      continue;
    }
    if (!kKinds.count(c->callee))
      warning(c->callee_span, "unknown tensor property '" + c->callee + "'");
    // Outputs("lo", "hi") names the op's outputs for the property lists
    // after it.
    bool outputs = c->callee == "Outputs";
    for (const ast::ExprPtr& a : c->args) {
      const ast::StringLit* s = as_string(*a);
      if (!s)
        continue;
      if (outputs) {
        if (s->value == "*") // the op's (only) output, which needs no name
          continue;
        if (s->value == "..." || !names.insert(s->value).second)
          error(a->span, "\"" + s->value + "\" is already a name of " + rule_.op_name +
                             "'s operands or outputs");
        continue;
      }
      // "..." stands for every operand not named before it.
      if (s->value != "..." && !names.count(s->value))
        error(a->span, "\"" + s->value + "\" is not an operand of " + rule_.op_name +
                           " (nor an output declared with Outputs before it)");
    }
  }
}

void Checker::param_order(const ast::Call& inv) {
  if (inv.args.empty() || !as_string(*inv.args[0])) {
    error(inv.callee_span, "DEF_PACKAGE_PARAM_ORDER starts with the op name");
    return;
  }
  rule_.op_name = as_string(*inv.args[0])->value;
  if ((inv.args.size() - 1) % 3 != 0)
    error(inv.callee_span,
          "DEF_PACKAGE_PARAM_ORDER lists parameters as (name, mandatory, default) triples");
  for (size_t i = 1; i + 2 < inv.args.size(); i += 3) {
    if (!as_string(*inv.args[i]))
      error(inv.args[i]->span, "expected the parameter name as a string constant");
    const ast::Name* m = as_name(*inv.args[i + 1]);
    if (!m || (m->id != "true" && m->id != "false"))
      error(inv.args[i + 1]->span, "expected true or false (is the parameter mandatory)");
  }
}

bool Checker::arity(const ast::Call& c, size_t min, size_t max) {
  if (c.args.size() >= min && c.args.size() <= max)
    return true;
  std::string want = min == max        ? std::to_string(min)
                     : max == SIZE_MAX ? std::to_string(min) + " or more"
                                       : std::to_string(min) + " to " + std::to_string(max);
  error(c.callee_span, c.callee + " takes " + want + " operand" + (max == 1 ? "" : "s") + ", not " +
                           std::to_string(c.args.size()));
  return false;
}

bool Checker::plain_string(const ast::Expr& e, const char* what) {
  const ast::StringLit* s = as_string(e);
  if (!s) {
    error(e.span, std::string("expected ") + what + " (a string constant)");
    return false;
  }
  if (s->value.empty()) {
    error(e.span, std::string("empty string as ") + what);
    return false;
  }
  if (e.span.text().find('\\') != std::string_view::npos) {
    error(e.span, std::string("escapes are not allowed in ") + what);
    return false;
  }
  for (char c : s->value)
    if (!std::isgraph(static_cast<unsigned char>(c))) {
      error(e.span, std::string("spaces and unprintable characters are not allowed in ") + what);
      return false;
    }
  return true;
}

void Checker::pass(const ast::ExprPtr& e) {
  rule_.pass.span = e->span;
  const ast::Expr* name = e.get();
  if (const auto* b = std::get_if<ast::Binary>(&e->node)) {
    name = b->lhs.get();
    const auto* lit = std::get_if<ast::IntLit>(&b->rhs->node);
    if (!lit || lit->text.find_first_not_of("0123456789") != std::string::npos ||
        (lit->text.size() > 1 && lit->text[0] == '0'))
      error(b->rhs->span, "a pass offset must be a decimal constant with no sign or suffix");
    else if (lit->value > 1000000)
      error(b->rhs->span, "pass offset too large");
    else
      rule_.pass.offset = b->op == ast::BinaryOp::Add ? int64_t(lit->value) : -int64_t(lit->value);
    if (b->op == ast::BinaryOp::Sub)
      warning(b->op_span, "the grammar allows only `+` in a pass spec (`-` is seen in the wild)");
  }
  const ast::Name* n = as_name(*name);
  if (!n || n->id.find("::") != std::string::npos) {
    error(name->span, "expected a pass name such as EARLY, LATE or EARLY + 1");
    return;
  }
  rule_.pass.name = n->id;
  std::optional<int64_t> p = pass_priority(n->id);
  if (!p) {
    warning(name->span,
            "unknown pass name '" + n->id + "'; the rule is ordered after all known passes");
    return;
  }
  rule_.pass.priority = *p + rule_.pass.offset;
}

void Checker::match_root(const ast::Expr& e) {
  if (is_call(e, "LET")) {
    error(e.span, "LET cannot be the root of a match; it names the output of an inner Op");
    return;
  }
  if (!is_call(e, "Op") && !is_call(e, "OpVarIn")) {
    error(e.span, "the match must be Op(...) or OpVarIn(...)");
    return;
  }
  collect_tags(e);
  match_op(e);
}

void Checker::collect_tags(const ast::Expr& e) {
  tags_.insert("*");
  std::set<std::string> lets;
  walk_match(e, lets);
}

void Checker::walk_match(const ast::Expr& e, std::set<std::string>& lets) {
  if (const ast::StringLit* s = as_string(e)) {
    tags_.insert(s->value);
    return;
  }
  const ast::Call* c = as_call(e);
  if (!c)
    return;
  if (c->callee == "LET" && c->args.size() == 2) {
    if (const ast::StringLit* s = as_string(*c->args[0])) {
      tags_.insert(s->value);
      if (!lets.insert(s->value).second)
        error(c->args[0]->span, "tag \"" + s->value + "\" is named by more than one LET");
      if (mentions(*c->args[1], s->value))
        error(c->args[0]->span, "LET tag \"" + s->value + "\" appears inside the Op it names");
    }
    walk_match(*c->args[1], lets);
    return;
  }
  for (size_t i = 1; i < c->args.size(); ++i)
    walk_match(*c->args[i], lets);
}

bool Checker::mentions(const ast::Expr& e, const std::string& tag) {
  if (const ast::StringLit* s = as_string(e))
    return s->value == tag;
  if (const ast::Call* c = as_call(e))
    for (const ast::ExprPtr& a : c->args)
      if (mentions(*a, tag))
        return true;
  return false;
}

void Checker::match_op(const ast::Expr& e) {
  const ast::Call& c = *as_call(e);
  if (!arity(c, 1, SIZE_MAX))
    return;
  plain_string(*c.args[0], "an opstring");
  for (size_t i = 1; i < c.args.size(); ++i)
    match_operand(*c.args[i]);
}

void Checker::match_operand(const ast::Expr& e) {
  if (as_string(e)) {
    if (plain_string(e, "an operand tag") && is_string(e, "*"))
      error(e.span, "\"*\" names the root's output and cannot be an operand in the match");
    return;
  }
  if (is_call(e, "Op") || is_call(e, "OpVarIn")) {
    match_op(e);
    return;
  }
  if (is_call(e, "LET")) {
    const ast::Call& c = *as_call(e);
    if (!arity(c, 2, 2))
      return;
    plain_string(*c.args[0], "a LET tag");
    if (is_call(*c.args[1], "Op") || is_call(*c.args[1], "OpVarIn"))
      match_op(*c.args[1]);
    else
      error(c.args[1]->span, "the second operand of LET must be Op(...) or OpVarIn(...)");
    return;
  }
  error(e.span, "expected an operand tag, Op(...), OpVarIn(...) or LET(...) in the match");
}

void Checker::tag(const ast::Expr& e) {
  if (!plain_string(e, "an operand tag"))
    return;
  const std::string& t = as_string(e)->value;
  if (!tags_.count(t))
    error(e.span, "operand tag \"" + t + "\" does not appear in the match");
}

void Checker::opref(const ast::Expr& e) {
  if (as_string(e)) {
    tag(e);
    return;
  }
  const ast::Call* c = as_call(e);
  if (c && (c->callee == "INPUT_OF" || c->callee == "OUTPUT_OF")) {
    if (arity(*c, 2, 2)) {
      opref(*c->args[0]);
      expect_int(*c->args[1]);
    }
    return;
  }
  if (c && c->callee == "SELECT") {
    if (arity(*c, 3, 3)) {
      expect(*c->args[0], Ty::Bool);
      opref(*c->args[1]);
      opref(*c->args[2]);
    }
    return;
  }
  error(e.span, "expected an operand reference (a tag, INPUT_OF, OUTPUT_OF or SELECT)");
}

void Checker::expect(const ast::Expr& e, Ty want) {
  Ty t = cst(e);
  if (t != want && t != Ty::Bad)
    error(e.span, std::string("expected a ") + ty_name(want) + " expression, not " + ty_name(t));
}

void Checker::expect_int(const ast::Expr& e) {
  Ty t = cst(e);
  if (!integral(t) && t != Ty::Bad)
    error(e.span, std::string("expected an int or size expression, not ") + ty_name(t));
}

std::optional<int64_t> Checker::constant_int(const ast::Expr& e) {
  if (const auto* i = std::get_if<ast::IntLit>(&e.node))
    return int64_t(i->value);
  if (const auto* u = std::get_if<ast::Unary>(&e.node))
    if (auto v = constant_int(*u->operand))
      return u->op == ast::UnaryOp::Neg ? -*v : *v;
  return std::nullopt;
}

std::string Checker::split_ref(const ast::Expr& e) {
  if (!plain_string(e, "a split tag"))
    return {};
  const std::string& t = as_string(e)->value;
  if (std::find(scopes_.begin(), scopes_.end(), t) == scopes_.end())
    error(e.span, "split tag \"" + t +
                      "\" is used outside the last operand of an AUTOSPLIT or OP_ITER with "
                      "that tag");
  referenced_.insert(t);
  return t;
}

Ty Checker::literal(const ast::Expr& e) {
  if (const auto* i = std::get_if<ast::IntLit>(&e.node)) {
    size_t digits_end = i->text.find_last_not_of("uUlL") + 1;
    std::string suffix = i->text.substr(digits_end);
    bool size = suffix.find_first_of("uU") != std::string::npos;
    bool octal = i->text.size() > 1 && i->text[0] == '0' && i->text[1] != 'x' &&
                 i->text[1] != 'X' && digits_end > 1;
    if (octal && i->value >= 8)
      warning(e.span,
              "octal constant " + i->text + " is " + std::to_string(i->value) + " in decimal");
    if (!size && i->value > 0x7fffffff)
      error(e.span, "integer constant " + i->text +
                        " does not fit in int; add a U suffix "
                        "for size");
    return size ? Ty::Size : Ty::Int;
  }
  return Ty::Float;
}

Ty Checker::cst(const ast::Expr& e) {
  if (std::holds_alternative<ast::IntLit>(e.node) || std::holds_alternative<ast::FloatLit>(e.node))
    return literal(e);
  if (const auto* u = std::get_if<ast::Unary>(&e.node)) {
    if (std::holds_alternative<ast::IntLit>(u->operand->node) ||
        std::holds_alternative<ast::FloatLit>(u->operand->node))
      return literal(*u->operand);
    error(e.span, "a sign may only precede a numeric constant (use NEG)");
    return Ty::Bad;
  }
  if (const ast::Name* n = as_name(e)) {
    if (n->id == "OK" || n->id == "true" || n->id == "false")
      return Ty::Bool;
    if (n->id == "INF" || n->id == "NEG_INF")
      return Ty::Float;
    if (n->id.starts_with("DType::")) {
      if (!is_dtype_tag(n->id.substr(7))) {
        error(e.span, "'" + n->id.substr(7) + "' is not a tag of the DType enum");
        return Ty::Bad;
      }
      return Ty::DType;
    }
    error(e.span, "unknown name '" + n->id + "' in a constraint expression");
    return Ty::Bad;
  }
  if (const ast::StringLit* s = as_string(e)) {
    error(e.span, "\"" + s->value + "\" is an operand tag; a value is expected here");
    return Ty::Bad;
  }
  if (std::holds_alternative<ast::Binary>(e.node)) {
    error(e.span, "`+` appears only in a pass spec; use ADD(...)");
    return Ty::Bad;
  }
  const ast::Call* c = as_call(e);
  if (!c) {
    error(e.span, "expected a constraint expression");
    return Ty::Bad;
  }
  return cst_call(*c, e);
}

} // namespace detail

using detail::Checker;

bool is_dtype_tag(const std::string& name) {
  return detail::kDTypeTags.count(name) != 0;
}

void check_rule(Rule& rule, const std::vector<ExternalFunction>& externals,
                std::set<std::string>& warned) {
  if (!rule.invocation)
    return;
  // A macro use left as written (a wrong argument count) is an error of
  // its own; the rest of the rule is still checked, but not inside it.
  auto inside_unexpanded = [&](const core::Span& s) { return inside(s, rule.unexpanded); };
  for (const core::Diagnostic& d : rule.diagnostics)
    if (d.severity == core::Severity::Error && !inside_unexpanded(d.span))
      return;
  size_t before = rule.diagnostics.size();
  const ast::Call& inv = std::get<ast::Call>(rule.invocation->node);
  Checker checker(rule, externals, warned);
  switch (rule.kind) {
  case ItemKind::Optimization:
    checker.optimization(inv);
    break;
  case ItemKind::Op:
    checker.op(inv);
    break;
  case ItemKind::TensorProperties:
    checker.tensor_properties(inv);
    break;
  case ItemKind::ParamOrder:
    checker.param_order(inv);
    break;
  }
  rule.diagnostics.erase(
      std::remove_if(rule.diagnostics.begin() + std::ptrdiff_t(before), rule.diagnostics.end(),
                     [&](const core::Diagnostic& d) { return inside_unexpanded(d.span); }),
      rule.diagnostics.end());
  // In source order, whichever check found them first.
  std::stable_sort(rule.diagnostics.begin(), rule.diagnostics.end(),
                   [](const core::Diagnostic& a, const core::Diagnostic& b) {
                     return a.span.begin < b.span.begin;
                   });
}

} // namespace teval::parser::htp
