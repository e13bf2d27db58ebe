// Rule macros and their expansion (see htp_macros.h).
#include "parser/htp/htp_macros.h"

#include "core/error.h"
#include "parser/htp/htp_grammar.h"

#include <algorithm>
#include <memory>

namespace teval::parser::htp {

namespace {

using core::Error;
using core::ErrorKind;

struct MacroText {
  const char* head; // NAME(params) or NAME
  const char* body;
};

// The seed's cst_macro and repl_macro rows, expansions as the seed states
// them.
const MacroText kSeedMacros[] = {
    {"IS_QUINT8(x)", "EQ(DTYPE_OF(x),DType::QUInt8)"},
    {"IS_QINT8(x)", "EQ(DTYPE_OF(x),DType::QInt8)"},
    {"IS_QUINT16(x)", "EQ(DTYPE_OF(x),DType::QUInt16)"},
    {"IS_QINT16(x)", "EQ(DTYPE_OF(x),DType::QInt16)"},
    {"IS_QINT32(x)", "EQ(DTYPE_OF(x),DType::QInt32)"},
    {"IS_INT32(x)", "EQ(DTYPE_OF(x),DType::Int32)"},
    {"IS_FLOAT16(x)", "EQ(DTYPE_OF(x),DType::Float16)"},
    {"IS_FLOAT32(x)", "EQ(DTYPE_OF(x),DType::Float32)"},
    {"IS_FLOAT(x)", "IS_FLOAT32(x)"},
    {"DIM_BATCHES(x)", "DIM_OF(x,0)"},
    {"DIM_HEIGHT(x)", "DIM_OF(x,1)"},
    {"DIM_WIDTH(x)", "DIM_OF(x,2)"},
    {"DIM_DEPTH(x)", "DIM_OF(x,3)"},
    {"DIM_FILTHEIGHT(x)", "DIM_OF(x,0)"},
    {"DIM_FILTWIDTH(x)", "DIM_OF(x,1)"},
    {"DIM_FILTDEPTH(x)", "DIM_OF(x,2)"},
    {"DIM_NFILTS(x)", "DIM_OF(x,3)"},
    {"SAME_SHAPE(x,y)", "AND(EQ(DIM_OF(x,3),DIM_OF(y,3)),EQ(DIM_OF(x,2),DIM_OF(y,2)),"
                        "EQ(DIM_OF(x,1),DIM_OF(y,1)),EQ(DIM_OF(x,0),DIM_OF(y,0)))"},
    {"AUTOSPLIT_SLICE(in,start,size)",
     "WITH_SIZE(size,WITH_TYPE(in,Op(\"Slice_shape\",in,start,size)))"},
    {"TYPICAL_SLICE(in,tag)",
     "AUTOSPLIT_SLICE(in,AUTOSPLIT_SHAPEFN_APPLY(simple_split_start,tag,in),"
     "AUTOSPLIT_SHAPEFN_APPLY(simple_split_size,tag,in))"},
    {"CHANGEDIM_SLICE(in,tag,new_dim)",
     "AUTOSPLIT_SLICE(in,AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_start,tag,in,new_dim),"
     "AUTOSPLIT_SHAPEFN_APPLY(simpledim_split_size,tag,in,new_dim))"},
    {"OpMultiOut(n_out,outno,opstr,...)",
     "Op(\"$Out\",WITH_MULTI_OUT(n_out,Op(opstr,__VA_ARGS__)),gen_Shape(0,0,n_out,outno))"},
};

// Macros of the HTP headers (optimize_defs.h and friends) that public rule
// files use, with the headers' definitions.
const MacroText kHeaderMacros[] = {
    {"FROM_DEFAULT_PACKAGE(name)", "name"},
    {"IS_SCALAR(X)", "AND(EQ(DIM_BATCHES(X),1),EQ(DIM_HEIGHT(X),1),EQ(DIM_WIDTH(X),1),"
                     "EQ(DIM_DEPTH(X),1))"},
    {"IS_NOT_SCALAR(X)", "OR(NE(DIM_BATCHES(X),1),NE(DIM_HEIGHT(X),1),NE(DIM_WIDTH(X),1),"
                         "NE(DIM_DEPTH(X),1))"},
    {"IS_SHAPE_1x1x1xd(X)",
     "AND(EQ(DIM_BATCHES(X),1),EQ(DIM_HEIGHT(X),1),EQ(DIM_WIDTH(X),1),NE(RANK_OF(X),5))"},
    {"SAME_QUANT(A,B)", "OR(AND(EQ(STEPSIZE_OF(A),STEPSIZE_OF(B)),EQ(ZERO_OFFSET_OF(A),"
                        "ZERO_OFFSET_OF(B))),AND(IS_FLOAT16(A),IS_FLOAT16(B)),"
                        "AND(IS_FLOAT32(A),IS_FLOAT32(B)))"},
    {"SAME_DTYPE_QUANT(A,B)", "AND(EQ(DTYPE_OF(A),DTYPE_OF(B)),EQ(STEPSIZE_OF(A),STEPSIZE_OF(B)),"
                              "EQ(ZERO_OFFSET_OF(A),ZERO_OFFSET_OF(B)))"},
    {"IS_BINARY_FP16(A,B,Out)", "AND(IS_FLOAT16(A),IS_FLOAT16(B),IS_FLOAT16(Out))"},
    {"IS_BINARY_FP32(A,B,Out)", "AND(IS_FLOAT32(A),IS_FLOAT32(B),IS_FLOAT32(Out))"},
    {"OPCONST(X)", "LET(X,Op(\"$Const\"))"},
    {"CONST_ZERO_OFF(X)", "gen_ConstScalar_i32(ZERO_OFFSET_OF(X))"},
    {"FLAT_TENSOR_SIZE(T)",
     "MUL(ELEMENTSIZE_OF(T),DIM_BATCHES(T),DIM_HEIGHT(T),DIM_WIDTH(T),DIM_DEPTH(T))"},
    {"CAST_TO_DTYPE(X,DTYPE)", "WITH_OUTPUT_TYPE(DTYPE,0,1.0f,Op(\"QNN_Cast\",X))"},
    {"CAST_TO_FP16(X)", "WITH_SIZE(X,CAST_TO_DTYPE(X,DType::Float16))"},
    {"CAST_TO_FP32(X)", "CAST_TO_DTYPE(X,DType::Float32)"},
    {"MAKE_OP_FP16_AND_INSERT_CAST(OP)",
     "CAST_TO_FP32(WITH_SIZE(\"*\",WITH_OUTPUT_TYPE(DType::Float16,0,1.0f,OP)))"},
    {"TILE_HEIGHT", "OPTION_UINT(\"tile_height\")"},
    {"TCM_MAXTENSOR_SIZE", "OPTION_UINT(\"tcm_size_for_tiling\")"},
    {"TCM_MAXTENSOR_HALF_SIZE", "DIV(OPTION_UINT(\"tcm_size_for_tiling\"),2)"},
    {"CHANNEL_SPLIT_SIZE", "256"},
    {"MIN_CHANNEL_SPLIT_SIZE", "32"},
    {"MIN_WIDTH", "8"},
};

// Macros of the HTP headers that the seed's grammar does not list and that
// teval reads with a warning naming them: the headers' definitions
// (constraints.h, optimize_defs.h), or, for library functions, teval's
// model of them.
struct WarnedMacroText {
  const char* head;
  const char* body;
  const char* reading; // what the warning says teval reads the use as
};

const WarnedMacroText kWarnedHeaderMacros[] = {
    {"IS_QUANT_TYPE(X)", "OR(IS_QUINT8(X),IS_QINT8(X),IS_QINT16(X),IS_QUINT16(X),IS_QINT32(X))",
     "OR(IS_QUINT8(X), IS_QINT8(X), IS_QINT16(X), IS_QUINT16(X), IS_QINT32(X))"},
    {"IS_QUANT_SIGNED(X)", "OR(IS_QINT32(X),IS_QINT16(X),IS_QINT8(X))",
     "OR(IS_QINT32(X), IS_QINT16(X), IS_QINT8(X))"},
    {"IS_QINT8_SYMM(X)", "AND(IS_QINT8(X),EQ(ZERO_OFFSET_OF(X),0))",
     "AND(IS_QINT8(X), EQ(ZERO_OFFSET_OF(X), 0))"},
    {"IS_FLOAT16_BOTH(X,Y)", "AND(IS_FLOAT16(X),IS_FLOAT16(Y))",
     "AND(IS_FLOAT16(X), IS_FLOAT16(Y))"},
    {"IS_FLOAT16_ALL(...)", "IS_DTYPE_ALL(DType::Float16,__VA_ARGS__)",
     "AND(EQ(DTYPE_OF(X), DType::Float16), ...) over its operands"},
    {"IS_FLOAT32_ALL(...)", "IS_DTYPE_ALL(DType::Float32,__VA_ARGS__)",
     "AND(EQ(DTYPE_OF(X), DType::Float32), ...) over its operands"},
    {"IS_BFLOAT16_ALL(...)", "IS_DTYPE_ALL(DType::BFloat16,__VA_ARGS__)",
     "AND(EQ(DTYPE_OF(X), DType::BFloat16), ...) over its operands"},
    {"IS_BFLOAT16(X)", "EQ(DTYPE_OF(X),DType::BFloat16)", "EQ(DTYPE_OF(X), DType::BFloat16)"},
    {"IS_INT64(X)", "EQ(DTYPE_OF(X),DType::Int64)", "EQ(DTYPE_OF(X), DType::Int64)"},
    {"IS_EMPTY_DIM(X,DIM)", "EQ(DIM_OF(X,DIM),0)", "EQ(DIM_OF(X, DIM), 0)"},
    {"DIM_CHANNEL(X)", "DIM_OF(X,4)", "DIM_OF(X, 4)"},
    {"ESTIMATE_TENSOR_SIZE(T)",
     "MUL(DIM_BATCHES(T),ROUNDUP(DIM_HEIGHT(T),TILE_HEIGHT),"
     "ROUNDUP(MUL(DIM_WIDTH(T),ELEMENTSIZE_OF(T)),8),ROUNDUP(DIM_DEPTH(T),32))",
     "the header's estimate MUL(DIM_BATCHES(T), ROUNDUP(DIM_HEIGHT(T), TILE_HEIGHT), "
     "ROUNDUP(MUL(DIM_WIDTH(T), ELEMENTSIZE_OF(T)), 8), ROUNDUP(DIM_DEPTH(T), 32)) "
     "(the definition varies between SDK versions)"},
    {"AUTOTHREAD_HVX(dim,tag,body)",
     "AUTOSPLIT(dim,tag,DIV(ADD(DIM_OF(\"*\",dim),SUB(OPTION_UINT(\"autothread_hvx_ntiles\"),1)),"
     "OPTION_UINT(\"autothread_hvx_ntiles\")),body)",
     "an AUTOSPLIT of dimension dim into OPTION_UINT(\"autothread_hvx_ntiles\") chunks"},
    {"size_t(x)", "UINT(x)", "a conversion to size, UINT(x)"},
};

// IS_DTYPE_ALL(dtype, a, b, ...): AND(EQ(DTYPE_OF(a), dtype), ...).
ast::ExprPtr dtype_all(const std::vector<ast::ExprPtr>& args, core::Span use) {
  if (args.size() < 2)
    throw Error(ErrorKind::Syntax, use, "IS_DTYPE_ALL takes a dtype and at least one operand");
  auto make = [&](std::string callee, std::vector<ast::ExprPtr> a) {
    return std::make_shared<const ast::Expr>(
        ast::Expr{use, ast::Call{std::move(callee), use, std::move(a), {}, false}});
  };
  std::vector<ast::ExprPtr> tests;
  for (size_t i = 1; i < args.size(); ++i)
    tests.push_back(make("EQ", {make("DTYPE_OF", {args[i]}), args[0]}));
  return tests.size() == 1 ? tests[0] : make("AND", std::move(tests));
}

// TYPICAL_CONV_SLICE(in, tag, stride, filt_taps[, dilation]), as optimize.h
// defines it: AUTOSPLIT_SLICE(in, AUTOSPLIT_SHAPEFN_APPLY(conv_valid_split_start,
// tag, in, stride), AUTOSPLIT_SHAPEFN_APPLY(conv_valid_split_size, tag, in,
// stride, filt_taps, dilation)), the dilation 1 when not given.
ast::ExprPtr typical_conv_slice(const std::vector<ast::ExprPtr>& args, core::Span use) {
  if (args.size() != 4 && args.size() != 5)
    throw Error(ErrorKind::Syntax, use,
                "TYPICAL_CONV_SLICE takes 4 or 5 arguments (in, tag, stride, filter taps and "
                "the dilation, 1 when not given), not " +
                    std::to_string(args.size()));
  auto call = [&](std::string callee, std::vector<ast::ExprPtr> a) {
    return std::make_shared<const ast::Expr>(
        ast::Expr{use, ast::Call{std::move(callee), use, std::move(a), {}, false}});
  };
  auto name = [&](std::string id) {
    return std::make_shared<const ast::Expr>(ast::Expr{use, ast::Name{std::move(id)}});
  };
  const ast::ExprPtr dilation =
      args.size() == 5 ? args[4]
                       : std::make_shared<const ast::Expr>(ast::Expr{use, ast::IntLit{1, "1"}});
  return call(
      "AUTOSPLIT_SLICE",
      {args[0],
       call("AUTOSPLIT_SHAPEFN_APPLY", {name("conv_valid_split_start"), args[1], args[0], args[2]}),
       call("AUTOSPLIT_SHAPEFN_APPLY",
            {name("conv_valid_split_size"), args[1], args[0], args[2], args[3], dilation})});
}

template <size_t N> MacroTable make_table(const MacroText (&rows)[N], const char* label) {
  // The texts stay alive with the table: expanded nodes may keep spans into
  // them only for a moment (expansion re-spans every body node).
  static std::vector<std::shared_ptr<const core::SourceFile>> keep;
  MacroTable table;
  for (const MacroText& row : rows) {
    std::string head = row.head;
    MacroDef def;
    std::string name = head;
    if (size_t open = head.find('('); open != std::string::npos) {
      name = head.substr(0, open);
      std::string params = head.substr(open + 1, head.size() - open - 2);
      for (size_t at = 0; at <= params.size();) {
        size_t comma = std::min(params.find(',', at), params.size());
        def.params.push_back(params.substr(at, comma - at));
        at = comma + 1;
      }
    } else {
      def.function_like = false;
    }
    auto source = core::SourceFile::make(label, row.body);
    keep.push_back(source);
    def.body = parse_htp_expression(source->text(), TextOrigin(source.get(), uint32_t{0}));
    table.define(name, std::move(def));
  }
  return table;
}

// \p body with every parameter name replaced by its argument and every
// other node re-spanned to \p use.
ast::ExprPtr substitute(const ast::ExprPtr& body, const MacroDef& def,
                        const std::vector<ast::ExprPtr>& args, core::Span use) {
  auto out = std::make_shared<ast::Expr>(*body);
  out->span = use;
  if (const auto* name = std::get_if<ast::Name>(&body->node)) {
    for (size_t i = 0; i < def.params.size(); ++i)
      if (def.params[i] == name->id && def.params[i] != "...")
        return args[i];
    return out;
  }
  if (auto* call = std::get_if<ast::Call>(&out->node)) {
    call->callee_span = use;
    std::vector<ast::ExprPtr> new_args;
    for (const ast::ExprPtr& a : call->args) {
      const auto* name = std::get_if<ast::Name>(&a->node);
      if (name && name->id == "__VA_ARGS__") {
        new_args.insert(new_args.end(), args.begin() + (def.params.size() - 1), args.end());
        continue;
      }
      new_args.push_back(substitute(a, def, args, use));
    }
    call->args = std::move(new_args);
  } else if (auto* unary = std::get_if<ast::Unary>(&out->node)) {
    unary->operand = substitute(unary->operand, def, args, use);
  } else if (auto* binary = std::get_if<ast::Binary>(&out->node)) {
    binary->lhs = substitute(binary->lhs, def, args, use);
    binary->rhs = substitute(binary->rhs, def, args, use);
    binary->op_span = use;
  }
  return out;
}

} // namespace

const MacroTable& MacroTable::seed() {
  static const MacroTable table = make_table(kSeedMacros, "<seed macros>");
  return table;
}

const MacroTable& MacroTable::headers() {
  static const MacroTable table = [] {
    MacroTable t = make_table(kHeaderMacros, "<header macros>");
    MacroText plain[std::size(kWarnedHeaderMacros)];
    for (size_t i = 0; i < std::size(kWarnedHeaderMacros); ++i)
      plain[i] = {kWarnedHeaderMacros[i].head, kWarnedHeaderMacros[i].body};
    MacroTable warned = make_table(plain, "<header macros>");
    for (const WarnedMacroText& row : kWarnedHeaderMacros) {
      std::string head = row.head;
      std::string name = head.substr(0, head.find('('));
      MacroDef def = warned.macros_.at(name);
      def.warning =
          name + " is " +
          (name == "size_t" ? std::string("a C++ cast") : std::string("an HTP header macro")) +
          " the seed's grammar does not list; teval reads it as " + row.reading;
      t.define(name, std::move(def));
    }
    MacroDef all;
    all.params = {"dtype", "..."};
    all.native = dtype_all;
    all.warning = "IS_DTYPE_ALL is an HTP header macro the seed's grammar does not list; teval "
                  "reads it as AND(EQ(DTYPE_OF(X), dtype), ...) over its operands";
    t.define("IS_DTYPE_ALL", std::move(all));
    MacroDef conv;
    conv.params = {"in", "tag", "stride", "filt_taps", "..."};
    conv.native = typical_conv_slice;
    conv.warning = "TYPICAL_CONV_SLICE is an HTP header macro the seed's grammar does not list; "
                   "teval reads it as optimize.h defines it, a slice of in through the HTP "
                   "library's shape functions conv_valid_split_start and conv_valid_split_size, "
                   "which teval does not model: such a rule checks but cannot be evaluated";
    t.define("TYPICAL_CONV_SLICE", std::move(conv));
    return t;
  }();
  return table;
}

ast::ExprPtr MacroTable::expand(const ast::ExprPtr& e, std::vector<MacroUse>* uses,
                                size_t* file_budget, FailedUses* failed) const {
  Visits visits;
  if (file_budget && *file_budget < visits.limit) {
    visits.limit = *file_budget;
    visits.file_limit = true;
  }
  auto charge = [&] {
    if (file_budget)
      *file_budget -= std::min(*file_budget, visits.count);
  };
  try {
    ast::ExprPtr out = expand(e, 0, uses, failed, visits);
    charge();
    return out;
  } catch (...) {
    charge();
    throw;
  }
}

ast::ExprPtr MacroTable::expand(const ast::ExprPtr& e, int depth, std::vector<MacroUse>* uses,
                                FailedUses* failed, Visits& visits) const {
  if (depth > 64)
    throw Error(ErrorKind::Limit, e->span, "macro expansion nested more than 64 deep");
  // A few doubling macros make a tree of 2^40 nodes: the work is bounded
  // by the nodes the expansion visits.
  if (++visits.count > visits.limit)
    throw Error(
        ErrorKind::Limit, e->span,
        visits.file_limit
            ? "the macro expansions of this file's rules make more than " +
                  std::to_string(kExpandedNodesPerFileByte) + " nodes per byte of the file in all"
            : "macro expansion makes more than " + std::to_string(kMaxExpandedNodes) + " nodes");
  // A use the expansion of a warned macro made (its nodes carry the use's
  // span) is part of that use, not one of its own.
  auto note = [&](const std::string& name, const MacroDef& def, core::Span span) {
    if (!uses || def.warning.empty())
      return;
    if (visits.noted.insert({span.file, span.begin, span.end}).second)
      uses->push_back({name, span, def.warning});
  };
  if (const auto* name = std::get_if<ast::Name>(&e->node)) {
    auto it = macros_.find(name->id);
    if (it == macros_.end() || it->second.function_like)
      return e;
    note(name->id, it->second, e->span);
    return expand(substitute(it->second.body, it->second, {}, e->span), depth + 1, uses, failed,
                  visits);
  }
  if (const auto* call = std::get_if<ast::Call>(&e->node)) {
    auto it = macros_.find(call->callee);
    if (it == macros_.end() || !it->second.function_like) {
      auto out = std::make_shared<ast::Expr>(*e);
      auto& c = std::get<ast::Call>(out->node);
      for (ast::ExprPtr& a : c.args)
        a = expand(a, depth, uses, failed, visits);
      return out;
    }
    const MacroDef& def = it->second;
    // A use left as written: its arguments are still expanded.
    auto keep = [&](core::Diagnostic error) {
      if (!failed)
        throw Error(ErrorKind::Syntax, error.span, std::move(error.message));
      failed->errors.push_back(std::move(error));
      failed->uses.push_back(e->span);
      auto out = std::make_shared<ast::Expr>(*e);
      for (ast::ExprPtr& a : std::get<ast::Call>(out->node).args)
        a = expand(a, depth, uses, failed, visits);
      return out;
    };
    if (def.native) {
      ast::ExprPtr made;
      try {
        made = def.native(call->args, e->span);
      } catch (const Error& x) {
        return keep(x.diagnostic());
      }
      note(call->callee, def, e->span);
      return expand(made, depth + 1, uses, failed, visits);
    }
    bool variadic = !def.params.empty() && def.params.back() == "...";
    size_t fixed = def.params.size() - (variadic ? 1 : 0);
    if (call->args.size() < fixed || (!variadic && call->args.size() > fixed))
      return keep(core::Diagnostic{core::Severity::Error,
                                   call->callee_span,
                                   {},
                                   "macro " + call->callee + " takes " + std::to_string(fixed) +
                                       (variadic ? " or more" : "") + " argument" +
                                       (fixed == 1 ? "" : "s") + ", not " +
                                       std::to_string(call->args.size())});
    note(call->callee, def, e->span);
    return expand(substitute(def.body, def, call->args, e->span), depth + 1, uses, failed, visits);
  }
  if (const auto* unary = std::get_if<ast::Unary>(&e->node)) {
    auto out = std::make_shared<ast::Expr>(*e);
    std::get<ast::Unary>(out->node).operand = expand(unary->operand, depth, uses, failed, visits);
    return out;
  }
  return e;
}

} // namespace teval::parser::htp
