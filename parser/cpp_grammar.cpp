// The Spirit X3 grammar for C++-spelled notations (see cpp_grammar.h and,
// for the machinery, x3_support.hpp). Every `>` is followed by a named rule
// or a literal, so expectation failures read well.
#include "parser/cpp_grammar.h"

#include "parser/x3_support.hpp"

namespace teval::parser {

namespace {

using namespace x3support;

// ---------------------------------------------------------------------------
// Tokens

auto const& skipper = cpp_skipper;

auto const keyword = word("return") | word("for") | word("const");

x3::rule<class identifier_class, std::string> const identifier = "identifier";
auto const identifier_def =
    x3::lexeme[(x3::alpha | x3::char_('_')) >> *(x3::alnum | x3::char_('_'))] - keyword;

// `Flags::RESOURCE_HVX`, `std::max`: one name.
x3::rule<class qualified_class, std::string> const qualified = "name";
auto const qualified_def = x3::raw[x3::lexeme[identifier >> *(x3::lit("::") >> identifier)]];

x3::rule<class float_text_class, std::string> const float_text = "number";
auto const float_text_def = cpp_float_token;

x3::rule<class int_text_class, std::string> const int_text = "integer";
auto const int_text_def = cpp_int_token;

// A type as written: `const std::vector<size_t>&`, `TensorDim`, `auto`.
x3::rule<class type_text_class, std::string> const type_text = "type";
auto const type_text_def =
    x3::raw[-word("const") >> qualified >> -(x3::lit('<') >> (type_text % ',') >> x3::lit('>')) >>
            *(x3::lit('&') | x3::lit('*'))];

x3::symbols<ast::BinaryOp> const or_op({{"||", ast::BinaryOp::LogicalOr}}, "`||`");
x3::symbols<ast::BinaryOp> const and_op({{"&&", ast::BinaryOp::LogicalAnd}}, "`&&`");
x3::symbols<ast::BinaryOp> const bit_or_op({{"|", ast::BinaryOp::BitOr}}, "`|`");
x3::symbols<ast::BinaryOp> const bit_xor_op({{"^", ast::BinaryOp::BitXor}}, "`^`");
x3::symbols<ast::BinaryOp> const bit_and_op({{"&", ast::BinaryOp::BitAnd}}, "`&`");
x3::symbols<ast::BinaryOp> const
    equality_ops({{"==", ast::BinaryOp::Eq}, {"!=", ast::BinaryOp::Ne}}, "`==` or `!=`");
x3::symbols<ast::BinaryOp> const relational_ops({{"<", ast::BinaryOp::Lt},
                                                 {"<=", ast::BinaryOp::Le},
                                                 {">", ast::BinaryOp::Gt},
                                                 {">=", ast::BinaryOp::Ge}},
                                                "comparison operator");
x3::symbols<ast::BinaryOp> const shift_ops({{"<<", ast::BinaryOp::Shl}, {">>", ast::BinaryOp::Shr}},
                                           "shift operator");
x3::symbols<ast::BinaryOp> const add_ops({{"+", ast::BinaryOp::Add}, {"-", ast::BinaryOp::Sub}},
                                         "`+` or `-`");
x3::symbols<ast::BinaryOp> const
    mul_ops({{"*", ast::BinaryOp::Mul}, {"/", ast::BinaryOp::Div}, {"%", ast::BinaryOp::Mod}},
            "multiplicative operator");
x3::symbols<ast::UnaryOp> const unary_ops({{"-", ast::UnaryOp::Neg},
                                           {"+", ast::UnaryOp::Plus},
                                           {"!", ast::UnaryOp::Not},
                                           {"~", ast::UnaryOp::Invert}},
                                          "unary operator");
x3::symbols<std::string> const assign_ops({{"=", "="},
                                           {"+=", "+="},
                                           {"-=", "-="},
                                           {"*=", "*="},
                                           {"/=", "/="},
                                           {">=", ">="},
                                           {"<=", "<="}},
                                          "assignment");

// ---------------------------------------------------------------------------
// Statements

struct DeclGroup {
  std::string type;
  std::vector<ast::StmtPtr> decls;
};

using Block = std::vector<ast::StmtPtr>;

// `const std::vector<size_t>&` -> `std::vector<size_t>`: the type's name.
std::string type_name(std::string text) {
  if (text.rfind("const", 0) == 0)
    text.erase(0, 5);
  std::string out;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)) && c != '&' && c != '*')
      out += c;
  return out;
}

auto const set_type = [](auto& ctx) { x3::_val(ctx).type = type_name(x3::_attr(ctx)); };

auto const push_declarator = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  const std::string& name = fusion::at_c<1>(a);
  CallArgs& args = fusion::at_c<2>(a);
  Items& init = fusion::at_c<3>(a);
  const State& st = state(ctx);
  ast::Declare d{x3::_val(ctx).type, name, st.span(at, at + name.size()), std::move(args.args), {}};
  if (!init.items.empty())
    d.init = init.items.front();
  x3::_val(ctx).decls.push_back(stmt(st.span(at, fusion::at_c<4>(a)), std::move(d)));
};

auto const push_decls = [](auto& ctx) {
  for (ast::StmtPtr& s : x3::_attr(ctx).decls)
    x3::_val(ctx).push_back(std::move(s));
};

auto const push_assign = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  const State& st = state(ctx);
  Node target = fusion::at_c<1>(a);
  OpAt& op = fusion::at_c<2>(a);
  Node value = fusion::at_c<3>(a);
  x3::_val(ctx).push_back(
      stmt(st.span(fusion::at_c<0>(a), fusion::at_c<4>(a)),
           ast::Assign{target, op.op, st.span(op.at, op.at + op.op.size()), value, {}}));
};

auto const push_expr_stmt = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Node e = fusion::at_c<0>(a);
  x3::_val(ctx).push_back(
      stmt(e->span.to(state(ctx).span(fusion::at_c<1>(a), fusion::at_c<1>(a))), ast::ExprStmt{e}));
};

auto const push_return = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx).push_back(stmt(state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a)),
                               ast::Return{fusion::at_c<1>(a)}));
};

auto const push_loop = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  const State& st = state(ctx);
  const std::string& var = fusion::at_c<1>(a);
  const std::string& tested = fusion::at_c<3>(a);
  const std::string& stepped = fusion::at_c<5>(a);
  Span span = st.span(fusion::at_c<0>(a), fusion::at_c<7>(a));
  if (tested != var || stepped != var)
    throw Error(ErrorKind::Unsupported, span,
                "only counted loops `for (i = a; i < b; ++i)` over one variable are supported");
  x3::_val(ctx).push_back(stmt(
      span, ast::Loop{var, fusion::at_c<2>(a), fusion::at_c<4>(a), std::move(fusion::at_c<6>(a))}));
};

auto const push_param = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  const State& st = state(ctx);
  const std::string& name = fusion::at_c<2>(a);
  x3::_val(ctx).push_back(ast::Param{type_name(fusion::at_c<1>(a)), name,
                                     st.span(fusion::at_c<0>(a), fusion::at_c<3>(a))});
};

auto const push_function = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  const State& st = state(ctx);
  x3::_val(ctx).statements.push_back(
      stmt(st.span(fusion::at_c<0>(a), fusion::at_c<5>(a)),
           ast::Function{fusion::at_c<2>(a), std::move(fusion::at_c<3>(a)),
                         std::move(fusion::at_c<4>(a))}));
};

// ---------------------------------------------------------------------------
// Rules

x3::rule<class expr_class, Node> const expr = "expression";
x3::rule<class and_class, Node> const logical_and = "expression";
x3::rule<class bit_or_class, Node> const bit_or = "expression";
x3::rule<class bit_xor_class, Node> const bit_xor = "expression";
x3::rule<class bit_and_class, Node> const bit_and = "expression";
x3::rule<class equality_class, Node> const equality = "expression";
x3::rule<class relational_class, Node> const relational = "expression";
x3::rule<class shift_class, Node> const shift = "expression";
x3::rule<class additive_class, Node> const additive = "expression";
x3::rule<class multiplicative_class, Node> const multiplicative = "expression";
x3::rule<class unary_class, Node> const unary = "expression";
x3::rule<class postfix_class, Node> const postfix = "expression";
x3::rule<class primary_class, Node> const primary = "expression";
x3::rule<class call_args_class, CallArgs> const call_args = "argument list";
x3::rule<class items_class, Items> const items = "expressions";
x3::rule<class ctor_args_class, CallArgs> const ctor_args = "constructor arguments";
x3::rule<class increment_class, std::string> const increment = "`++i`";
x3::rule<class initializer_class, Items> const initializer = "initializer";
x3::rule<class assign_op_class, OpAt> const assign_op = "assignment operator";
x3::rule<class declaration_class, DeclGroup> const declaration = "declaration";
x3::rule<class block_class, Block> const block = "statements";
x3::rule<class body_class, Block> const body = "loop body";
x3::rule<class params_class, std::vector<ast::Param>> const params = "parameters";
x3::rule<class program_class, ast::Program> const program = "program";

// A binary level: operands separated by operators that are not the start of
// an assignment (`+=`) or of a longer operator (`&&`, `||`).
template <class Next, class Ops> auto level(const Next& next, const Ops& ops) {
  return next[set_val] >>
         *(((pos >> ops >> !x3::lit('=') >> !x3::char_("&|")) > next)[fold_binary]);
}

auto const expr_def = logical_and[set_val] >> *(((pos >> or_op) > logical_and)[fold_binary]);
auto const logical_and_def = bit_or[set_val] >> *(((pos >> and_op) > bit_or)[fold_binary]);
auto const bit_or_def = level(bit_xor, bit_or_op);
auto const bit_xor_def = level(bit_and, bit_xor_op);
auto const bit_and_def = level(equality, bit_and_op);
auto const equality_def = relational[set_val] >>
                          *(((pos >> equality_ops) > relational)[fold_binary]);
auto const relational_def = level(shift, relational_ops);
auto const shift_def = level(additive, shift_ops);
auto const additive_def = level(multiplicative, add_ops);
auto const multiplicative_def = level(unary, mul_ops);
auto const unary_def =
    ((pos >> unary_ops >> !x3::lit('=') >> !x3::char_("+-")) > unary)[mk_unary] | postfix[set_val];
auto const postfix_def = primary[set_val] >>
                         *(((x3::lit('[') >> items > x3::lit(']')) >> here)[mk_subscript] |
                           ((x3::lit('.') >> pos >> identifier > call_args) >> here)[mk_method]);
auto const primary_def =
    (pos >> float_text >> here)[mk_float] | (pos >> int_text >> here)[mk_c_int] |
    (pos >> qualified >> call_args >> here)[mk_call] | (pos >> qualified >> here)[mk_name] |
    ((pos >> x3::lit('(') >> expr > x3::lit(')')) >> here)[mk_parenthesized] |
    ((pos >> x3::lit('{') >> items > x3::lit('}')) >> here)[mk_list];

auto const call_args_def = (x3::lit('(') >> -(expr[push_arg] % ',')) > x3::lit(')');
auto const items_def = -(expr[push_item] % ',');
auto const initializer_def = -(x3::lit('=') >> !x3::lit('=') > expr[push_item]);
auto const assign_op_def = (pos >> assign_ops >> !x3::lit('='))[mk_op_at];

auto const declarator = (pos >> identifier >> ctor_args >> initializer >> here)[push_declarator];
auto const declaration_def = (type_text[set_type] >> (declarator % ',')) > x3::lit(';');
auto const return_statement =
    (((pos >> word("return") > expr) > x3::lit(';')) >> here)[push_return];
auto const increment_def = (x3::lit("++") >> identifier) | (identifier >> x3::lit("++"));
auto const ctor_args_def = call_args | x3::attr(CallArgs{});
auto const for_statement =
    (pos >> word("for") >> x3::lit('(') >> -(x3::omit[type_text] >> &identifier) >> identifier >>
     x3::lit('=') >> expr >> x3::lit(';') >> identifier >> x3::lit('<') >> expr >> x3::lit(';') >>
     increment >> x3::lit(')') >> body >> here)[push_loop];
auto const assignment = (pos >> postfix >> assign_op >> expr >> x3::lit(';') >> here)[push_assign];
auto const expression_statement = ((expr > x3::lit(';')) >> here)[push_expr_stmt];
auto const statement = for_statement | return_statement | declaration[push_decls] | assignment |
                       expression_statement | x3::lit(';');
auto const block_def = *statement;
auto const body_def = (x3::lit('{') >> block[set_val] > x3::lit('}')) | statement;
auto const param = (pos >> type_text >> identifier >> here)[push_param];
auto const params_def = -(param % ',');
auto const function =
    (((pos >> type_text >> identifier >> x3::lit('(') >> params > x3::lit(')') > x3::lit('{')) >>
      block > x3::lit('}')) >>
     here)[push_function];
auto const program_def = *function;

BOOST_SPIRIT_DEFINE(identifier, qualified, float_text, int_text, type_text, expr, logical_and,
                    bit_or, bit_xor, bit_and, equality, relational, shift, additive, multiplicative,
                    unary, postfix, primary, call_args, items, ctor_args, increment, initializer,
                    assign_op, declaration, block, body, params, program)

} // namespace

ast::Program parse_cpp(std::string_view text, const TextOrigin& origin) {
  ast::Program p;
  run(program, skipper, text, origin, p, "a function definition");
  return p;
}

} // namespace teval::parser
