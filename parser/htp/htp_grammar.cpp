// The Spirit X3 grammar of HTP op-package rules (see htp_grammar.h and, for
// the machinery, x3_support.hpp).
#include "parser/htp/htp_grammar.h"

#include "parser/x3_support.hpp"

namespace teval::parser {

namespace {

using namespace x3support;

auto const& skipper = cpp_skipper;

x3::rule<class identifier_class, std::string> const identifier = "identifier";
auto const identifier_def =
    x3::lexeme[(x3::alpha | x3::char_('_')) >> *(x3::alnum | x3::char_('_'))];

// `DType::Float32`, `Flags::RESOURCE_HVX`, `impl<PlainFloatTensor, X>`,
// `&default_value`: one name, kept as written without spaces.
x3::rule<class template_args_class> const template_args = "template arguments";
x3::rule<class qualified_class, std::string> const qualified = "name";
auto const template_args_def = x3::lit('<') >> (qualified % ',') >> x3::lit('>');
auto const qualified_def =
    x3::raw[-x3::lit('&') >> identifier >> *(x3::lit("::") >> identifier) >> -template_args];

x3::rule<class float_text_class, std::string> const float_text = "number";
auto const float_text_def = cpp_float_token;

x3::rule<class int_text_class, std::string> const int_text = "integer";
auto const int_text_def = cpp_int_token;

// A C string constant, escapes kept raw (decoded in the action).
x3::rule<class string_text_class, std::string> const string_text = "string constant";
auto const string_text_def =
    x3::raw[x3::lexeme['"' >> *((x3::lit('\\') >> x3::char_) | (x3::char_ - '"' - x3::eol)) > '"']];

// Decodes one C string constant (quotes included) with C escapes.
std::string decode_c_string(std::string_view raw) {
  std::string out;
  for (size_t i = 1; i + 1 < raw.size(); ++i) {
    if (raw[i] != '\\') {
      out += raw[i];
      continue;
    }
    char c = raw[++i];
    switch (c) {
    case 'n':
      out += '\n';
      break;
    case 't':
      out += '\t';
      break;
    case 'r':
      out += '\r';
      break;
    case '0':
      out += '\0';
      break;
    default:
      out += c;
      break;
    }
  }
  return out;
}

// Adjacent string constants concatenate; the node spans all of them.
auto const mk_strings = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  std::string value;
  for (const std::string& piece : fusion::at_c<1>(a))
    value += decode_c_string(piece);
  x3::_val(ctx) = make(state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a)),
                       ast::StringLit{std::move(value), false});
};

// `NAME + 3` / `NAME - 2`: a pass spec.
auto const mk_offset = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  char op = fusion::at_c<1>(a);
  Node rhs = fusion::at_c<2>(a);
  Node lhs = x3::_val(ctx);
  x3::_val(ctx) =
      make(lhs->span.to(rhs->span), ast::Binary{op == '+' ? ast::BinaryOp::Add : ast::BinaryOp::Sub,
                                                lhs, rhs, state(ctx).span(at, at + 1)});
};

auto const mk_sign = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  Node operand = fusion::at_c<2>(a);
  x3::_val(ctx) =
      make(state(ctx).span(at, at).to(operand->span),
           ast::Unary{fusion::at_c<1>(a) == '-' ? ast::UnaryOp::Neg : ast::UnaryOp::Plus, operand});
};

x3::rule<class expr_class, Node> const expr = "expression";
x3::rule<class term_class, Node> const term = "expression";
x3::rule<class literal_class, Node> const literal = "constant";
x3::rule<class pass_offset_class, Node> const pass_offset = "decimal constant";
x3::rule<class name_node_class, Node> const name_node = "name";
x3::rule<class call_args_class, CallArgs> const call_args = "arguments";
x3::rule<class call_class, Node> const call = "call";

auto const literal_def =
    (pos >> float_text >> here)[mk_float] | (pos >> int_text >> here)[mk_c_int];
auto const call_args_def = (x3::lit('(') >> -(expr[push_arg] % ',')) > x3::lit(')');
auto const call_def = (pos >> identifier >> call_args >> here)[mk_call];
// `(impl<A, B>)`: the name, marked as written in parentheses.
auto const mk_parenthesized = [](auto& ctx) {
  Node n = x3::_attr(ctx);
  std::get<ast::Name>(n->node).parenthesized = true;
  x3::_val(ctx) = n;
};
auto const term_def = call[set_val] | (pos >> +string_text >> here)[mk_strings] | literal[set_val] |
                      (pos >> x3::char_("-+") >> term)[mk_sign] | name_node[set_val] |
                      (x3::lit('(') >> name_node > x3::lit(')'))[mk_parenthesized];
auto const name_node_def = (pos >> qualified >> here)[mk_name];
auto const pass_offset_def = (pos >> int_text >> here)[mk_c_int];
auto const expr_def = term[set_val] >> *(pos >> x3::char_("+-") >> pass_offset)[mk_offset];

BOOST_SPIRIT_DEFINE(identifier, template_args, qualified, float_text, int_text, string_text, expr,
                    term, literal, pass_offset, name_node, call_args, call)

} // namespace

Invocation parse_htp_invocation(std::string_view text, const TextOrigin& origin) {
  Node node;
  It end = run_prefix(call, skipper, text, origin, node);
  if (!end) {
    auto [token, width] = token_at(text.data(), text.data() + text.size());
    throw Error(ErrorKind::Syntax, origin.span(0, width),
                "unexpected " + token + "; expected a macro invocation");
  }
  // run_prefix skipped what follows the `)`: the call's span ends at it.
  size_t base = origin.span(0, 0).begin;
  return {node, node->span.end - base};
}

ast::ExprPtr parse_htp_expression(std::string_view text, const TextOrigin& origin) {
  Node node;
  run(expr, skipper, text, origin, node, "end of the expression");
  return node;
}

} // namespace teval::parser
