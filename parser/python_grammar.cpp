// Spirit X3 grammars for Python-spelled notations (see python_grammar.h and,
// for the machinery, x3_support.hpp). Every `>` is followed by a named rule
// or a literal, so expectation failures read well.
#include "parser/python_grammar.h"

#include "parser/x3_support.hpp"

namespace teval::parser {

namespace {

using namespace x3support;

// ---------------------------------------------------------------------------
// Tokens

auto const keyword = word("and") | word("or") | word("not") | word("if") | word("else") |
                     word("is") | word("in") | word("for") | word("lambda") | word("where") |
                     word("return") | word("def");
auto const python_only = word("and") | word("or") | word("if") | word("else") | word("is") |
                         word("in") | word("for") | word("lambda");

x3::rule<class identifier_class, std::string> const identifier = "identifier";
auto const identifier_def =
    x3::lexeme[(x3::alpha | x3::char_('_')) >> *(x3::alnum | x3::char_('_'))] - keyword;

x3::rule<class kw_in_class> const kw_in = "`in`";
auto const kw_in_def = word("in");

auto const exponent = (x3::lit('e') | 'E') >> -(x3::lit('+') | '-') >> +x3::digit;
x3::rule<class float_text_class, std::string> const float_text = "number";
auto const float_text_def =
    x3::raw[x3::lexeme[(+x3::digit >> '.' >> *x3::digit >> -exponent) |
                       ('.' >> +x3::digit >> -exponent) | (+x3::digit >> exponent)]];

x3::rule<class int_text_class, std::string> const int_text = "integer";
auto const int_text_def =
    x3::raw[x3::lexeme[(((x3::lit("0x") | "0X") >> +x3::xdigit) |
                        ((x3::lit("0o") | "0O") >> +x3::char_("0-7")) |
                        ((x3::lit("0b") | "0B") >> +x3::char_("01")) | +x3::digit) >>
                       !(x3::alnum | '_')]];

auto const quoted = [](const char* q) {
  return x3::lit(q) >> *(('\\' >> x3::char_) | (x3::char_ - x3::lit(q))) >> x3::lit(q);
};
auto const string_piece =
    x3::lexeme[-x3::char_("fFrR") >>
               (quoted("\"\"\"") | quoted("'''") | quoted("\"") | quoted("'") | quoted("`"))];
x3::rule<class string_text_class, std::string> const string_text = "string";
auto const string_text_def = x3::raw[+string_piece];

x3::symbols<ast::BinaryOp> const compare_ops({{"<", ast::BinaryOp::Lt},
                                              {"<=", ast::BinaryOp::Le},
                                              {">", ast::BinaryOp::Gt},
                                              {">=", ast::BinaryOp::Ge},
                                              {"==", ast::BinaryOp::Eq},
                                              {"!=", ast::BinaryOp::Ne}},
                                             "comparison operator");
x3::symbols<ast::BinaryOp> const shift_ops({{"<<", ast::BinaryOp::Shl}, {">>", ast::BinaryOp::Shr}},
                                           "shift operator");
x3::symbols<ast::BinaryOp> const add_ops({{"+", ast::BinaryOp::Add}, {"-", ast::BinaryOp::Sub}},
                                         "`+` or `-`");
x3::symbols<ast::BinaryOp> const mul_ops({{"*", ast::BinaryOp::Mul},
                                          {"/", ast::BinaryOp::Div},
                                          {"//", ast::BinaryOp::FloorDiv},
                                          {"%", ast::BinaryOp::Mod}},
                                         "multiplicative operator");
x3::symbols<ast::UnaryOp> const
    unary_ops({{"-", ast::UnaryOp::Neg}, {"+", ast::UnaryOp::Plus}, {"~", ast::UnaryOp::Invert}},
              "unary operator");
x3::symbols<std::string> const
    augmented_ops({{"+=", "+="}, {"*=", "*="}, {"-=", "-="}, {"/=", "/="}}, "augmented assignment");
x3::symbols<std::string> const assign_ops({{"=", "="},
                                           {"+=!", "+=!"},
                                           {"+=", "+="},
                                           {">=!", ">=!"},
                                           {"<=!", "<=!"},
                                           {"*=!", "*=!"},
                                           {"&=!", "&=!"},
                                           {"|=!", "|=!"},
                                           {"=.", "=."},
                                           {"+=.", "+=."}},
                                          "assignment operator");

// ---------------------------------------------------------------------------
// Actions

auto const chained_comparison = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  ast::BinaryOp op = fusion::at_c<1>(a);
  throw Error(ErrorKind::Syntax, state(ctx).span(at, at + spelling(op).size()),
              "chained comparison: `a < b < c` means `(a < b) and (b < c)` in Python, which "
              "einstein_v2 does not have (Antares silently keeps only the last comparison); "
              "write `(a < b) & (b < c)`");
};

auto const python_keyword = [](auto& ctx) {
  It at = x3::_attr(ctx);
  It end = at;
  while (std::isalpha(static_cast<unsigned char>(*end)))
    ++end;
  std::string kw(at, end);
  std::string hint = "Python's `" + kw + "` has no meaning here";
  if (kw == "and")
    hint += "; for a logical and of two conditions write `(a) & (b)`";
  else if (kw == "or")
    hint += "; for a logical or of two conditions write `(a) | (b)`";
  else if (kw == "if" || kw == "else")
    hint += "; to choose between values write `x.when([cond], y)`";
  throw Error(ErrorKind::Syntax, state(ctx).span(at, end), hint);
};

auto const python_not = [](auto& ctx) {
  It at = x3::_attr(ctx);
  throw Error(ErrorKind::Syntax, state(ctx).span(at, at + 3),
              "Python's `not` has no meaning here; for a logical not write `~x`");
};

auto const mk_pow = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  Node rhs = fusion::at_c<1>(a);
  Node lhs = x3::_val(ctx);
  x3::_val(ctx) = make(lhs->span.to(rhs->span),
                       ast::Binary{ast::BinaryOp::Pow, lhs, rhs, state(ctx).span(at, at + 2)});
};

auto const mk_string = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It begin = fusion::at_c<0>(a);
  Span span = state(ctx).span(begin, fusion::at_c<2>(a));
  // Decoded against offsets relative to the literal; an error's span is
  // mapped back through the text's origin.
  const std::string& raw = fusion::at_c<1>(a);
  try {
    DecodedString d = decode_string_literals(raw, 0, span.file);
    x3::_val(ctx) = make(span, ast::StringLit{std::move(d.value.text), d.formatted});
  } catch (const Error& err) {
    Span at = err.diagnostic().span;
    throw Error(err.kind(), state(ctx).span(begin + at.begin, begin + at.end), err.message());
  }
};

auto const push_keyword = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  Node value = fusion::at_c<2>(a);
  x3::_val(ctx).keywords.push_back(
      ast::Keyword{fusion::at_c<1>(a), value, state(ctx).span(at, at).to(value->span)});
};

// `(a)` is a, `(a,)` and `(a, b)` and `()` are tuples.
auto const mk_paren = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Items& items = fusion::at_c<1>(a);
  if (items.items.size() == 1 && !items.trailing_comma) {
    Node e = items.items.front(); // its span widened to the parentheses
    e->span = state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a));
    x3::_val(ctx) = e;
    return;
  }
  x3::_val(ctx) = make(state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a)),
                       ast::Tuple{constify(items.items)});
};

using Pairs = std::vector<std::pair<ast::ExprPtr, ast::ExprPtr>>;
auto const push_pair = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx).emplace_back(fusion::at_c<0>(a), fusion::at_c<1>(a));
};
auto const mk_dict = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx) =
      make(state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a)), ast::Dict{fusion::at_c<1>(a)});
};

auto const push_where = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx).push_back(ast::Where{fusion::at_c<1>(a),
                                     state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a)),
                                     fusion::at_c<3>(a)});
};

auto const push_einstein = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  Node target = fusion::at_c<1>(a);
  OpAt& op = fusion::at_c<2>(a);
  Node value = fusion::at_c<3>(a);
  Span span = state(ctx).span(at, fusion::at_c<5>(a));
  x3::_val(ctx).statements.push_back(
      stmt(span, ast::Assign{target, op.op, state(ctx).span(op.at, op.at + op.op.size()), value,
                             std::move(fusion::at_c<4>(a))}));
};

// A bare `a, b` is a tuple; a single item without a trailing comma is itself.
Node tuple_or_item(const Items& items) {
  if (items.items.size() == 1 && !items.trailing_comma)
    return items.items.front();
  return make(items.items.front()->span.to(items.items.back()->span),
              ast::Tuple{constify(items.items)});
}

auto const push_python_assign = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  const State& st = state(ctx);
  It begin = fusion::at_c<0>(a);
  It op = fusion::at_c<2>(a);
  It end = fusion::at_c<4>(a);
  Node target = tuple_or_item(fusion::at_c<1>(a));
  Node value = tuple_or_item(fusion::at_c<3>(a));
  x3::_val(ctx).statements.push_back(
      stmt(st.span(begin, end), ast::Assign{target, "=", st.span(op, op + 1), value, {}}));
};

auto const push_augmented = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  const State& st = state(ctx);
  It begin = fusion::at_c<0>(a);
  Node target = fusion::at_c<1>(a);
  OpAt& op = fusion::at_c<2>(a);
  Node value = tuple_or_item(fusion::at_c<3>(a));
  x3::_val(ctx).statements.push_back(
      stmt(st.span(begin, fusion::at_c<4>(a)),
           ast::Assign{target, op.op, st.span(op.at, op.at + op.op.size()), value, {}}));
};

auto const push_return = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  const State& st = state(ctx);
  Items& items = fusion::at_c<1>(a);
  ast::ExprPtr value = items.items.empty() ? nullptr : tuple_or_item(items);
  x3::_val(ctx).statements.push_back(
      stmt(st.span(fusion::at_c<0>(a), fusion::at_c<2>(a)), ast::Return{value}));
};

auto const push_python_expr = [](auto& ctx) {
  Node e = x3::_attr(ctx);
  x3::_val(ctx).statements.push_back(stmt(e->span, ast::ExprStmt{e}));
};

// ---------------------------------------------------------------------------
// Rules

x3::rule<class expr_class, Node> const expr = "expression";
x3::rule<class compare_class, Node> const compare = "expression";
x3::rule<class bit_or_class, Node> const bit_or = "expression";
x3::rule<class bit_xor_class, Node> const bit_xor = "expression";
x3::rule<class bit_and_class, Node> const bit_and = "expression";
x3::rule<class shift_class, Node> const shift = "expression";
x3::rule<class arith_class, Node> const arith = "expression";
x3::rule<class term_class, Node> const term = "expression";
x3::rule<class factor_class, Node> const factor = "expression";
x3::rule<class power_class, Node> const power = "expression";
x3::rule<class postfix_class, Node> const postfix = "expression";
x3::rule<class primary_class, Node> const primary = "expression";
x3::rule<class call_args_class, CallArgs> const call_args = "argument list";
x3::rule<class items_class, Items> const items = "expressions";
x3::rule<class tuple_items_class, Items> const tuple_items = "expressions";
x3::rule<class dict_items_class, Pairs> const dict_items = "dictionary items";
x3::rule<class assign_op_class, OpAt> const assign_op = "assignment operator (=, +=!, >=!, "
                                                        "<=!, *=!, &=!, |=!, =. or +=.)";
x3::rule<class augmented_op_class, OpAt> const augmented_op = "augmented assignment";
x3::rule<class where_bindings_class, std::vector<ast::Where>> const where_bindings =
    "where binding (AXIS in EXTENT)";
x3::rule<class where_clause_class, std::vector<ast::Where>> const where_clause = "where clause";
x3::rule<class einstein_program_class, ast::Program> const einstein_program = "program";
x3::rule<class python_program_class, ast::Program> const python_program = "program";

auto const expr_def = compare[set_val] >> -(pos >> &python_only)[python_keyword];
auto const compare_def = bit_or[set_val] >> -(((pos >> compare_ops) > bit_or)[fold_binary]) >>
                         -(pos >> compare_ops)[chained_comparison];
auto const bit_or_def = bit_xor[set_val] >>
                        *(((pos >> x3::symbols<ast::BinaryOp>({{"|", ast::BinaryOp::BitOr}}) >>
                            !x3::lit('=')) > bit_xor)[fold_binary]);
auto const bit_xor_def = bit_and[set_val] >>
                         *(((pos >> x3::symbols<ast::BinaryOp>({{"^", ast::BinaryOp::BitXor}}) >>
                             !x3::lit('=')) > bit_and)[fold_binary]);
auto const bit_and_def = shift[set_val] >>
                         *(((pos >> x3::symbols<ast::BinaryOp>({{"&", ast::BinaryOp::BitAnd}}) >>
                             !x3::lit('=')) > shift)[fold_binary]);
auto const shift_def = arith[set_val] >>
                       *(((pos >> shift_ops >> !x3::lit('=')) > arith)[fold_binary]);
auto const arith_def = term[set_val] >> *(((pos >> add_ops >> !x3::lit('=')) > term)[fold_binary]);
auto const term_def = factor[set_val] >>
                      *(((pos >> mul_ops >> !x3::lit('=')) > factor)[fold_binary]);
auto const factor_def =
    ((pos >> unary_ops) > factor)[mk_unary] | (pos >> &word("not"))[python_not] | power[set_val];
auto const power_def = postfix[set_val] >> -(((pos >> x3::lit("**")) > factor)[mk_pow]);
auto const postfix_def = primary[set_val] >>
                         *(((x3::lit('[') >> items > x3::lit(']')) >> here)[mk_subscript] |
                           ((x3::lit('.') >> pos >> identifier > call_args) >> here)[mk_method]);
auto const primary_def =
    (pos >> float_text >> here)[mk_float] | (pos >> int_text >> here)[mk_python_int] |
    (pos >> string_text >> here)[mk_string] | (pos >> identifier >> call_args >> here)[mk_call] |
    (pos >> identifier >> here)[mk_name] |
    ((pos >> x3::lit('(') >> items > x3::lit(')')) >> here)[mk_paren] |
    ((pos >> x3::lit('[') >> items > x3::lit(']')) >> here)[mk_list] |
    ((pos >> x3::lit('{') >> dict_items > x3::lit('}')) >> here)[mk_dict];

auto const argument =
    (pos >> identifier >> x3::lit('=') >> !x3::lit('=') >> expr)[push_keyword] | expr[push_arg];
auto const call_args_def = (x3::lit('(') >> -(argument % ',') >> -x3::lit(',')) > x3::lit(')');
auto const items_def = -(expr[push_item] % ',') >> -x3::lit(',')[set_trailing];
auto const tuple_items_def = (expr[push_item] % ',') >> -x3::lit(',')[set_trailing];
auto const dict_items_def = -(((expr >> x3::lit(':')) > expr)[push_pair] % ',') >> -x3::lit(',');

auto const assign_op_def = (pos >> assign_ops)[mk_op_at];
auto const augmented_op_def = (pos >> augmented_ops)[mk_op_at];
auto const where_binding = (((pos >> identifier >> here) > kw_in) > expr)[push_where];
auto const where_bindings_def = where_binding % ',';
auto const where_clause_def = -(word("where") > where_bindings);
auto const einstein_statement =
    ((((pos >> postfix) > assign_op) > expr) >> where_clause >> here)[push_einstein];
auto const einstein_program_def = *x3::lit(';') >> -(einstein_statement % +x3::lit(';')) >>
                                  *x3::lit(';');

auto const python_statement =
    (pos >> word("return") >> items >> here)[push_return] |
    (pos >> tuple_items >> pos >> x3::lit('=') >> !x3::lit('=') >> tuple_items >>
     here)[push_python_assign] |
    (((pos >> postfix >> augmented_op) > tuple_items) >> here)[push_augmented] |
    expr[push_python_expr];
auto const python_program_def = *x3::lit(';') >> -(python_statement % +x3::lit(';')) >>
                                *x3::lit(';');

BOOST_SPIRIT_DEFINE(identifier, kw_in, float_text, int_text, string_text, expr, compare, bit_or,
                    bit_xor, bit_and, shift, arith, term, factor, power, postfix, primary,
                    call_args, items, tuple_items, dict_items, assign_op, augmented_op,
                    where_bindings, where_clause, einstein_program, python_program)

// ---------------------------------------------------------------------------
// Entry

} // namespace

ast::Program parse_einstein(std::string_view text, const TextOrigin& origin) {
  ast::Program program;
  run(einstein_program, x3::space, text, origin, program, "`;` or the end of the program");
  return program;
}

ast::Program parse_python(std::string_view text, const TextOrigin& origin) {
  ast::Program program;
  run(python_program, x3::space, text, origin, program, "`;`, a new line or the end of the text");
  return program;
}

ast::ExprPtr parse_python_expression(std::string_view text, const TextOrigin& origin) {
  Node e;
  run(expr, x3::space, text, origin, e, "the end of the expression");
  return e;
}

} // namespace teval::parser
