// The constraint and replacement forms of HTP rules: their operand types
// and the seed's restrictions (see htp_check.h).
#include "parser/htp/htp_checker.h"

namespace teval::parser::htp::detail {

Ty Checker::cst_call(const ast::Call& c, const ast::Expr& e) {
  const std::string& f = c.callee;
  auto all = [&](Ty want) {
    for (const ast::ExprPtr& a : c.args)
      expect(*a, want);
    return want;
  };
  auto promoted = [&](bool integer_only) {
    Ty t = Ty::Int;
    for (const ast::ExprPtr& a : c.args) {
      Ty u = cst(*a);
      if (u == Ty::Bad)
        return Ty::Bad;
      if (!numeric(u) || (integer_only && !integral(u))) {
        error(a->span, c.callee + " needs " + (integer_only ? "int or size" : "numeric") +
                           " operands, not " + ty_name(u));
        return Ty::Bad;
      }
      t = promote(t, u);
    }
    return t;
  };
  if (f == "UINT" || f == "INT" || f == "FLOAT" || f == "DTYPE") {
    if (!arity(c, 1, 1))
      return Ty::Bad;
    Ty t = cst(*c.args[0]);
    bool ok = f == "DTYPE" ? integral(t) || t == Ty::DType
                           : numeric(t) || t == Ty::Bool || (f == "INT" && t == Ty::DType);
    if (!ok && t != Ty::Bad)
      error(c.args[0]->span, "cannot convert " + std::string(ty_name(t)) + " with " + f);
    return f == "UINT" ? Ty::Size : f == "INT" ? Ty::Int : f == "FLOAT" ? Ty::Float : Ty::DType;
  }
  if (f == "NOT")
    return arity(c, 1, 1) ? all(Ty::Bool) : Ty::Bad;
  if (f == "NEG" || f == "ABS")
    return arity(c, 1, 1) ? promoted(false) : Ty::Bad;
  if (f == "IS_POW2") {
    if (arity(c, 1, 1))
      expect_int(*c.args[0]);
    return Ty::Bool;
  }
  if (f == "SELECT") {
    if (!arity(c, 3, 3))
      return Ty::Bad;
    expect(*c.args[0], Ty::Bool);
    Ty a = cst(*c.args[1]);
    Ty b = cst(*c.args[2]);
    if (a == Ty::Bad || b == Ty::Bad)
      return Ty::Bad;
    if (numeric(a) && numeric(b))
      return promote(a, b);
    if (a != b) {
      error(e.span,
            std::string("SELECT's branches have types ") + ty_name(a) + " and " + ty_name(b));
      return Ty::Bad;
    }
    return a;
  }
  if (f == "ROUNDUP") {
    if (!arity(c, 2, 2))
      return Ty::Bad;
    Ty t = promoted(true);
    if (auto v = constant_int(*c.args[1]); v && (*v <= 0 || (*v & (*v - 1)) != 0))
      error(c.args[1]->span,
            "ROUNDUP's second operand must be a power of 2, not " + std::to_string(*v));
    return t;
  }
  if (f == "AND" || f == "OR" || f == "XOR")
    return arity(c, 1, SIZE_MAX) ? all(Ty::Bool) : Ty::Bad;
  if (f == "ADD" || f == "MUL" || f == "MIN" || f == "MAX")
    return arity(c, 1, SIZE_MAX) ? promoted(false) : Ty::Bad;
  if (f == "SUB" || f == "DIV")
    return arity(c, 2, 2) ? promoted(false) : Ty::Bad;
  if (f == "REM" || f == "MOD")
    return arity(c, 2, 2) ? promoted(true) : Ty::Bad;
  if (f == "EQ" || f == "NE" || f == "LT" || f == "GT" || f == "LE" || f == "GE") {
    if (!arity(c, 2, 2))
      return Ty::Bool;
    Ty a = cst(*c.args[0]);
    Ty b = cst(*c.args[1]);
    if (a == Ty::Bad || b == Ty::Bad)
      return Ty::Bool;
    bool equality = f == "EQ" || f == "NE";
    bool ok = (numeric(a) && numeric(b)) || (equality && a == b);
    if (!ok)
      error(e.span, "cannot compare " + std::string(ty_name(a)) + " with " + ty_name(b) +
                        " using " + f + (a == Ty::DType ? " (dtypes allow EQ and NE only)" : ""));
    return Ty::Bool;
  }
  if (f == "LAYOUT_CHUNKSIZE") {
    if (arity(c, 2, 2)) {
      if (!as_name(*c.args[0]))
        error(c.args[0]->span, "expected the name of a tensor class");
      expect_int(*c.args[1]);
    }
    return Ty::Size;
  }
  if (f == "OPTION_INT" || f == "OPTION_UINT" || f == "OPTION_BOOL" || f == "OPTION_FLOAT") {
    if (arity(c, 1, 1) && !as_string(*c.args[0]))
      error(c.args[0]->span, "expected the option's name as a string constant");
    return f == "OPTION_INT"    ? Ty::Int
           : f == "OPTION_UINT" ? Ty::Size
           : f == "OPTION_BOOL" ? Ty::Bool
                                : Ty::Float;
  }
  struct Property {
    const char* name;
    Ty type;
    bool indexed;
  };
  static const Property kProperties[] = {
      {"RANK_OF", Ty::Size, false},
      {"DIM_OF", Ty::Size, true},
      {"STEPSIZE_OF", Ty::Float, false},
      {"ZERO_OFFSET_OF", Ty::Int, false},
      {"DTYPE_OF", Ty::DType, false},
      {"ELEMENTSIZE_OF", Ty::Size, false},
      {"INPUTS_OF", Ty::Size, false},
      {"OUTPUTS_OF", Ty::Size, false},
      {"SIZE_OF", Ty::Size, false},
      {"CONSTVAL_INT", Ty::Int, true},
      {"CONSTVAL_INT_VALID", Ty::Bool, true},
      {"CONSTVAL_FLOAT", Ty::Float, true},
      {"CONSTVAL_FLOAT_VALID", Ty::Bool, true},
      {"IS_QUINT8", Ty::Bool, false},
      {"IS_QINT8", Ty::Bool, false},
      {"IS_QUINT16", Ty::Bool, false},
      {"IS_QINT16", Ty::Bool, false},
      {"IS_QINT32", Ty::Bool, false},
      {"IS_INT32", Ty::Bool, false},
      {"IS_FLOAT16", Ty::Bool, false},
      {"IS_FLOAT32", Ty::Bool, false},
      {"IS_FLOAT", Ty::Bool, false},
      {"DIM_BATCHES", Ty::Size, false},
      {"DIM_HEIGHT", Ty::Size, false},
      {"DIM_WIDTH", Ty::Size, false},
      {"DIM_DEPTH", Ty::Size, false},
      {"DIM_FILTHEIGHT", Ty::Size, false},
      {"DIM_FILTWIDTH", Ty::Size, false},
      {"DIM_FILTDEPTH", Ty::Size, false},
      {"DIM_NFILTS", Ty::Size, false},
  };
  for (const Property& p : kProperties) {
    if (f != p.name)
      continue;
    if (arity(c, p.indexed ? 2 : 1, p.indexed ? 2 : 1)) {
      opref(*c.args[0]);
      if (p.indexed)
        expect_int(*c.args[1]);
    }
    return p.type;
  }
  if (f == "SAME_ENCODING" || f == "SAME_OP" || f == "SAME_SHAPE") {
    if (arity(c, 2, 2)) {
      opref(*c.args[0]);
      opref(*c.args[1]);
    }
    return Ty::Bool;
  }
  if (f == "SPLIT_DIM" || f == "SPLIT_START" || f == "SPLIT_SIZE" || f == "ITER_VAR") {
    if (arity(c, 1, 1))
      split_ref(*c.args[0]);
    return Ty::Int;
  }
  if (f == "PRODUCER_FOR") {
    beyond_grammar("PRODUCER_FOR", c.callee_span,
                   "PRODUCER_FOR is an HTP header function the seed's grammar does not "
                   "list; teval reads PRODUCER_FOR(X, \"op\") as: X's output feeds an op "
                   "\"op\" of the graph (\"*Output\": X is the graph's output)");
    if (arity(c, 2, 2)) {
      opref(*c.args[0]);
      plain_string(*c.args[1], "an opstring");
    }
    return Ty::Bool;
  }
  if (f == "EXTERNAL_CONSTRAINT") {
    if (!arity(c, 2, SIZE_MAX))
      return Ty::Bool;
    tag(*c.args[1]);
    external_call(c, 2);
    return Ty::Bool;
  }
  if (kReplForms.count(f))
    error(c.callee_span, f + " is a replacement form; a constraint expression is expected here");
  else
    error(c.callee_span, "unknown constraint function '" + f + "'");
  return Ty::Bad;
}

// The function name of an EXTERNAL_* or *SHAPEFN_APPLY form (operand 0),
// its scalar parameters from \p first_param on; checked against its
// EXTERNAL_SHAPEFN annotation when there is one.
Ty Checker::external_call(const ast::Call& c, size_t first_param) {
  const ast::Name* n = as_name(*c.args[0]);
  if (!n) {
    error(c.args[0]->span, "expected the name of a C++ function");
    return Ty::Bad;
  }
  if (c.callee == "EXTERNAL_CONSTRAINT")
    for (size_t i = first_param; i < c.args.size(); ++i) {
      Ty t = cst(*c.args[i]);
      if (t == Ty::DType)
        error(c.args[i]->span, "EXTERNAL_CONSTRAINT parameters must be scalars, not dtype");
    }
  return Ty::Bool;
}

Repl Checker::repl(const ast::Expr& e, bool root) {
  if (const ast::StringLit* s = as_string(e)) {
    tag(e);
    return {Built::Existing, s->value == "*"};
  }
  const ast::Call* c = as_call(e);
  if (const ast::Name* n = as_name(e); n && !c) {
    error(e.span, "unknown name `" + n->id +
                      "` as a replacement: an operand tag is a string constant (\"" + n->id +
                      "\"), and no macro of that name is defined in this file");
    return {};
  }
  if (!c) {
    error(e.span, "expected a replacement (an operand tag, Op(...), a modifier, ...)");
    return {};
  }
  return repl_call(*c, e, root);
}

void Checker::open_split(const ast::Expr& tag_expr, bool& opened) {
  opened = false;
  if (!plain_string(tag_expr, "a split tag"))
    return;
  const std::string& t = as_string(tag_expr)->value;
  if (!split_tags_.insert(t).second)
    error(tag_expr.span, "split tag \"" + t + "\" is already used by another AUTOSPLIT or OP_ITER");
  scopes_.push_back(t);
  opened = true;
}

void Checker::apply_parm(const ast::Expr& e) {
  const ast::Call* c = as_call(e);
  if (as_string(e) ||
      (c && kReplForms.count(c->callee) && c->callee != "INPUT_OF" && c->callee != "OUTPUT_OF")) {
    repl(e, false);
    return;
  }
  if (c && (c->callee == "INPUT_OF" || c->callee == "OUTPUT_OF")) {
    opref(e);
    return;
  }
  cst(e);
}

Repl Checker::repl_call(const ast::Call& c, const ast::Expr& e, bool root) {
  const std::string& f = c.callee;
  if (f == "INPUT_OF" || f == "OUTPUT_OF") {
    opref(e);
    return {Built::Existing, false};
  }
  if (f == "Operand") {
    if (!arity(c, 1, 1))
      return {};
    tag(*c.args[0]);
    return {Built::Existing, is_string(*c.args[0], "*")};
  }
  if (f == "Op") {
    if (!arity(c, 1, SIZE_MAX))
      return {};
    opstring(*c.args[0]);
    for (size_t i = 1; i < c.args.size(); ++i) {
      in_op_operand_ = is_call(*c.args[i], "AUTOSPLIT");
      repl(*c.args[i], false);
      in_op_operand_ = false;
    }
    return {Built::Op, false};
  }
  if (f == "WrapOp" || f == "WrapOpAlways") {
    if (arity(c, 2, 2)) {
      opstring(*c.args[0]);
      repl(*c.args[1], false);
    }
    return {Built::Op, false};
  }
  if (f == "gen_Shape") {
    if (arity(c, 1, SIZE_MAX))
      for (const ast::ExprPtr& a : c.args)
        expect_int(*a);
    return {Built::Shape, false};
  }
  if (f == "gen_ShapeOf") {
    if (!arity(c, 1, 1))
      return {};
    Repl r = repl(*c.args[0], false);
    if (r.built == Built::Shape)
      warning(c.args[0]->span, "gen_ShapeOf of a shape construction is redundant");
    else if (r.built != Built::Existing && r.built != Built::Bad)
      error(c.args[0]->span, "the operand of gen_ShapeOf should be an existing opref");
    return {Built::Shape, false};
  }
  if (f == "gen_ConstScalar_f32" || f == "gen_ConstScalar_i32") {
    if (arity(c, 1, 1)) {
      Ty t = cst(*c.args[0]);
      if (f == "gen_ConstScalar_i32" ? !integral(t) && t != Ty::Bad : !numeric(t) && t != Ty::Bad)
        error(c.args[0]->span, f + " needs " +
                                   (f == "gen_ConstScalar_i32" ? "an int" : "a numeric") +
                                   " value, not " + ty_name(t));
    }
    return {Built::Const, false};
  }
  if (f == "gen_ConstArr_f32" || f == "gen_ConstArr_i32") {
    if (arity(c, 2, 2)) {
      Ty t = cst(*c.args[0]);
      if (!numeric(t) && t != Ty::Bad)
        error(c.args[0]->span, f + " needs a numeric fill value, not " + ty_name(t));
      expect_int(*c.args[1]);
    }
    return {Built::Const, false};
  }
  if (f == "gen_ConstArr_vals_i32") {
    if (arity(c, 1, SIZE_MAX))
      for (const ast::ExprPtr& a : c.args)
        expect_int(*a);
    return {Built::Const, false};
  }
  if (f == "AUTOSPLIT") {
    // Shipped SDK examples nest AUTOSPLIT in an Op's operands; the seed
    // says such breaches may still work. Inside a modifier or a slice it
    // has no clear meaning.
    bool operand = in_op_operand_;
    in_op_operand_ = false;
    if (!root && operand)
      beyond_grammar("AUTOSPLIT in Op", c.callee_span,
                     "AUTOSPLIT inside Op(...) breaches the seed's restriction (only at "
                     "the root of a replacement or inside SELECTs there), which the seed "
                     "says may still work; teval builds it in place");
    else if (!root)
      error(c.callee_span, "AUTOSPLIT may appear only at the root of a replacement or inside "
                           "SELECTs there");
    if (!arity(c, 4, 4))
      return {};
    expect_int(*c.args[0]);
    expect_int(*c.args[2]);
    bool opened = false;
    open_split(*c.args[1], opened);
    repl(*c.args[3], false);
    if (opened) {
      scopes_.pop_back();
      if (!referenced_.count(as_string(*c.args[1])->value))
        error(c.args[3]->span,
              "the body of AUTOSPLIT \"" + as_string(*c.args[1])->value +
                  "\" never refers to its split (TYPICAL_SLICE, SPLIT_START, ...)");
    }
    // Nested, it constructs its Concat like an Op.
    return {root ? Built::External : Built::Op, false};
  }
  if (f == "OP_ITER") {
    if (!arity(c, 5, 5))
      return {};
    Repl base = repl(*c.args[0], false);
    if (base.built != Built::Existing && base.built != Built::Bad && !is_call(*c.args[0], "Op"))
      error(c.args[0]->span, "the first operand of OP_ITER must be Op(...) or an existing opref");
    expect_int(*c.args[2]);
    expect_int(*c.args[3]);
    bool opened = false;
    open_split(*c.args[1], opened);
    repl(*c.args[4], false);
    if (opened)
      scopes_.pop_back();
    return {Built::Op, false};
  }
  if (f == "SELECT") {
    if (!arity(c, 3, 3))
      return {};
    expect(*c.args[0], Ty::Bool);
    Repl a = repl(*c.args[1], root);
    Repl b = repl(*c.args[2], root);
    Built built = a.built == Built::Op || b.built == Built::Op               ? Built::Op
                  : a.built == Built::Shape && b.built == Built::Shape       ? Built::Shape
                  : a.built == Built::Existing && b.built == Built::Existing ? Built::Existing
                  : a.built == Built::Bad || b.built == Built::Bad           ? Built::Bad
                                                                             : Built::Const;
    if (a.built == Built::External || b.built == Built::External)
      built = Built::External;
    return {built, a.may_be_star || b.may_be_star};
  }
  if (f == "ITER_INPUT_OF") {
    if (arity(c, 2, 2)) {
      opref(*c.args[0]);
      split_ref(*c.args[1]);
    }
    return {Built::Existing, false};
  }
  if (f == "AUTOSPLIT_SHAPEFN_APPLY" || f == "SHAPEFN_APPLY") {
    bool split = f == "AUTOSPLIT_SHAPEFN_APPLY";
    if (!arity(c, split ? 2 : 1, SIZE_MAX))
      return {};
    if (split)
      split_ref(*c.args[1]);
    const ast::Name* n = as_name(*c.args[0]);
    if (!n) {
      error(c.args[0]->span, "expected the name of a C++ function");
    } else if (!kBuiltinShapeFns.count(n->id)) {
      const ExternalFunction* fn = nullptr;
      for (const ExternalFunction& x : externals_)
        fn = x.name == n->id ? &x : fn;
      size_t given = c.args.size() - (split ? 2 : 1);
      // The annotation may spell the context parameters (Replacement &, and
      // Split_Context const & for AUTOSPLIT_SHAPEFN_APPLY) or leave them out.
      size_t skip = 0;
      if (fn && skip < fn->params.size() &&
          fn->params[skip].find("Replacement") != std::string::npos)
        ++skip;
      if (fn && split && skip < fn->params.size() &&
          fn->params[skip].find("Split_Context") != std::string::npos)
        ++skip;
      if (!fn)
        warning(c.args[0]->span, "'" + n->id + "' has no :::EXTERNAL_SHAPEFN::: annotation");
      else if (fn->params.size() - skip != given)
        error(c.callee_span, "'" + n->id + "' takes " + std::to_string(fn->params.size() - skip) +
                                 " argument(s)" + (skip ? " after its context" : "") +
                                 ", per its annotation; " + std::to_string(given) + " given");
    }
    for (size_t i = split ? 2 : 1; i < c.args.size(); ++i)
      apply_parm(*c.args[i]);
    return {Built::Shape, false};
  }
  if (f == "EXTERNAL_REPLACE") {
    if (!root)
      error(c.callee_span, "EXTERNAL_REPLACE may appear only at the root of a replacement or "
                           "inside SELECTs there");
    if (arity(c, 1, 1) && !as_name(*c.args[0]))
      error(c.args[0]->span, "expected the name of a C++ function");
    return {Built::External, false};
  }
  if (f == "AUTOSPLIT_SLICE" || f == "TYPICAL_SLICE" || f == "CHANGEDIM_SLICE") {
    size_t n = f == "AUTOSPLIT_SLICE" ? 3 : f == "TYPICAL_SLICE" ? 2 : 3;
    if (!arity(c, n, n))
      return {};
    if (!as_string(*c.args[0]) && !is_call(*c.args[0], "INPUT_OF") &&
        !is_call(*c.args[0], "OUTPUT_OF") && !is_call(*c.args[0], "SELECT"))
      error(c.args[0]->span, "the first operand of " + f + " must be an existing opref");
    else
      opref(*c.args[0]);
    if (f == "AUTOSPLIT_SLICE") {
      for (size_t i = 1; i < 3; ++i) {
        Repl r = repl(*c.args[i], false);
        if (r.built != Built::Existing && r.built != Built::Shape && r.built != Built::Bad)
          error(c.args[i]->span, "operand " + std::to_string(i + 1) +
                                     " of AUTOSPLIT_SLICE must be an existing opref or a shape "
                                     "construction");
      }
    } else {
      split_ref(*c.args[1]);
      if (f == "CHANGEDIM_SLICE")
        expect_int(*c.args[2]);
    }
    return {Built::Op, false};
  }
  if (f == "OpMultiOut") {
    if (!arity(c, 3, SIZE_MAX))
      return {};
    expect_int(*c.args[0]);
    expect_int(*c.args[1]);
    opstring(*c.args[2]);
    for (size_t i = 3; i < c.args.size(); ++i)
      repl(*c.args[i], false);
    return {Built::Op, false};
  }
  if (f.starts_with("WITH_") || f == "ResizeDim")
    return modifier(c, root);
  static const std::set<std::string> kConstraintForms = {"UINT",
                                                         "INT",
                                                         "FLOAT",
                                                         "DTYPE",
                                                         "NOT",
                                                         "NEG",
                                                         "ABS",
                                                         "IS_POW2",
                                                         "ROUNDUP",
                                                         "AND",
                                                         "OR",
                                                         "XOR",
                                                         "ADD",
                                                         "MUL",
                                                         "MIN",
                                                         "MAX",
                                                         "SUB",
                                                         "DIV",
                                                         "REM",
                                                         "MOD",
                                                         "EQ",
                                                         "NE",
                                                         "LT",
                                                         "GT",
                                                         "LE",
                                                         "GE",
                                                         "LAYOUT_CHUNKSIZE",
                                                         "OPTION_INT",
                                                         "OPTION_UINT",
                                                         "OPTION_BOOL",
                                                         "OPTION_FLOAT",
                                                         "RANK_OF",
                                                         "DIM_OF",
                                                         "STEPSIZE_OF",
                                                         "ZERO_OFFSET_OF",
                                                         "DTYPE_OF",
                                                         "ELEMENTSIZE_OF",
                                                         "INPUTS_OF",
                                                         "OUTPUTS_OF",
                                                         "SIZE_OF",
                                                         "SAME_ENCODING",
                                                         "SAME_OP",
                                                         "SAME_SHAPE",
                                                         "CONSTVAL_INT",
                                                         "CONSTVAL_INT_VALID",
                                                         "CONSTVAL_FLOAT",
                                                         "CONSTVAL_FLOAT_VALID",
                                                         "SPLIT_DIM",
                                                         "SPLIT_START",
                                                         "SPLIT_SIZE",
                                                         "ITER_VAR",
                                                         "EXTERNAL_CONSTRAINT"};
  if (kConstraintForms.count(f) || f.starts_with("IS_") || f.starts_with("DIM_"))
    error(c.callee_span, f + " is a constraint expression; a replacement is expected here");
  else
    error(c.callee_span, "unknown replacement form '" + f + "'");
  // An unknown form given a split tag (FOO_SLICE("x", "I")) was meant to
  // refer to that split: one error says so, not a second about the split.
  mark_split_references(e);
  return {};
}

void Checker::mark_split_references(const ast::Expr& e) {
  if (const ast::StringLit* s = as_string(e)) {
    if (std::find(scopes_.begin(), scopes_.end(), s->value) != scopes_.end())
      referenced_.insert(s->value);
    return;
  }
  if (const ast::Call* c = as_call(e))
    for (const ast::ExprPtr& a : c->args)
      mark_split_references(*a);
}

Repl Checker::modifier(const ast::Call& c, bool) {
  const std::string& f = c.callee;
  size_t n = f == "WITH_OUTPUT_TYPE" ? 4 : f == "ResizeDim" ? 3 : 2;
  size_t max = f == "WITH_SPLIT_HISTORY" ? 3 : n;
  if (f != "WITH_SIZE" && f != "WITH_TYPE" && f != "WITH_SAME_OUTPUT" && f != "WITH_OUTPUT_TYPE" &&
      f != "WITH_MULTI_OUT" && f != "ResizeDim" && f != "WITH_SAME_ID" &&
      f != "WITH_SPLIT_HISTORY") {
    error(c.callee_span, "unknown replacement form '" + f + "'");
    return {};
  }
  if (!arity(c, n, max))
    return {};
  if (f == "WITH_SIZE" || f == "WITH_TYPE" || f == "WITH_SAME_OUTPUT" || f == "WITH_SAME_ID" ||
      f == "WITH_SPLIT_HISTORY") {
    const ast::Expr& first = *c.args[0];
    Repl r = repl(first, false);
    if (r.built == Built::Op || r.built == Built::External)
      error(first.span, "the first operand of " + f + " must not be an Op construction");
    else if (f == "WITH_SIZE" && r.built == Built::Const)
      error(first.span, "the first operand of WITH_SIZE must be an existing opref or a shape "
                        "construction");
    else if (f != "WITH_SIZE" && (r.built == Built::Shape || r.built == Built::Const))
      error(first.span, "the first operand of " + f + " must be an existing opref");
    if (f == "WITH_SPLIT_HISTORY" && c.args.size() == 3) {
      expect_int(*c.args[1]);
      if (!std::holds_alternative<ast::IntLit>(c.args[1]->node))
        error(c.args[1]->span, "with three operands, WITH_SPLIT_HISTORY's second must be an "
                               "integer constant");
    }
  } else if (f == "WITH_OUTPUT_TYPE") {
    expect(*c.args[0], Ty::DType);
    expect_int(*c.args[1]);
    Ty t = cst(*c.args[2]);
    if (!numeric(t) && t != Ty::Bad)
      error(c.args[2]->span, std::string("expected a float step size, not ") + ty_name(t));
  } else if (f == "WITH_MULTI_OUT") {
    expect_int(*c.args[0]);
  } else {
    expect_int(*c.args[0]);
    expect_int(*c.args[1]);
  }
  const ast::Expr& last = *c.args.back();
  Repl r = repl(last, false);
  if (r.built == Built::Const && f == "WITH_SAME_OUTPUT")
    // Shipped SDK examples write this; the seed says breaches may still work.
    beyond_grammar("gen_Const in WITH_SAME_OUTPUT", last.span,
                   "a gen_Const* as the last operand of WITH_SAME_OUTPUT breaches the seed's "
                   "restriction (it must construct an Op), which the seed says may still "
                   "work; teval checks such a rule but cannot evaluate it");
  else if (r.built != Built::Op && r.built != Built::Bad)
    error(last.span, "the last operand of " + f + " must construct an Op");
  return {Built::Op, false};
}

} // namespace teval::parser::htp::detail
