// Internal to the grammar translation units (the parser/ grammar units, *_grammar.cpp): the
// Spirit X3 machinery they share. Rules build the public AST's nodes
// directly in semantic actions rather than filling a fusion-adapted parse
// tree converted afterwards: the one AST stays free of Boost, and there is
// one tree, not two. Positions come from two zero-width parsers: `pos`
// (after skipping whitespace: where the next token starts) and `here` (where
// the previous token ended).
#pragma once

#include "core/error.h"
#include "core/fault.h"
#include "parser/ast.h"
#include "parser/text.h"

#include <boost/fusion/include/at_c.hpp>
#include <boost/spirit/home/x3.hpp>

#include <cctype>
#include <string_view>

namespace teval::parser::x3support {

namespace x3 = boost::spirit::x3;
namespace fusion = boost::fusion;
using core::Error;
using core::ErrorKind;
using core::Span;
using It = const char*;
using Node = std::shared_ptr<ast::Expr>;

struct State {
  It base;
  const TextOrigin* origin;
  Span span(It b, It e) const { return origin->span(b - base, e - base); }
};
struct state_tag;

template <class Ctx> const State& state(const Ctx& ctx) {
  return x3::get<state_tag>(ctx).get();
}

/// How deeply an expression may nest through operators, calls and
/// subscripts, brackets or not (`a + a + ... + a` nests once per `+`):
/// every pass over the tree, and over the kernel made from it, recurses once
/// per level.
inline constexpr size_t kMaxExpressionDepth = 500;

[[noreturn]] inline void throw_too_deep(Span span) {
  throw Error(ErrorKind::Limit, span,
              "expression nested more than " + std::to_string(kMaxExpressionDepth) +
                  " levels deep (operators, calls and subscripts); split it into several "
                  "statements");
}

// Every node the grammars build. A tree too deep is rejected as soon as it
// is: a flat sum of 10^6 terms would otherwise take a gigabyte of nodes
// before check_depth saw it. (A subtree deeper than the limit makes the
// whole tree so, so this rejects exactly what check_depth would.)
template <class T> Node make(Span span, T n) {
  auto e = std::make_shared<ast::Expr>();
  e->span = span;
  e->node = std::move(n);
  e->depth = ast::depth_over_children(*e);
  if (e->depth > kMaxExpressionDepth)
    throw_too_deep(span);
  return e;
}

template <bool Skip> struct PositionParser : x3::parser<PositionParser<Skip>> {
  using attribute_type = It;
  static bool const has_attribute = true;
  template <class Ctx, class RCtx, class Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    if constexpr (Skip)
      x3::skip_over(first, last, ctx);
    attr = first;
    return true;
  }
};
inline constexpr PositionParser<true> pos{};
inline constexpr PositionParser<false> here{};

struct CallArgs {
  std::vector<ast::ExprPtr> args;
  std::vector<ast::Keyword> keywords;
};

struct Items {
  std::vector<Node> items;
  bool trailing_comma = false;
};

struct OpAt {
  It at = nullptr;
  std::string op;
};

/// A keyword: the word, not followed by an identifier character.
inline auto word(const char* w) {
  return x3::lexeme[x3::lit(w) >> !(x3::alnum | '_')];
}

// ---------------------------------------------------------------------------
// Tokens shared by the C++-spelled grammars (Tile's C++ spelling, HTP rules)

/// Whitespace and C++ comments.
inline auto const cpp_skipper = x3::space | (x3::lit("//") >> *(x3::char_ - x3::eol)) |
                                (x3::lit("/*") >> *(x3::char_ - x3::lit("*/")) >> x3::lit("*/"));

inline auto const cpp_exponent = (x3::lit('e') | 'E') >> -(x3::lit('+') | '-') >> +x3::digit;

/// A C floating constant as written, `f` suffix allowed.
inline auto const cpp_float_token =
    x3::raw[x3::lexeme[((+x3::digit >> '.' >> *x3::digit >> -cpp_exponent) |
                        ('.' >> +x3::digit >> -cpp_exponent) | (+x3::digit >> cpp_exponent)) >>
                       -x3::char_("fF") >> !(x3::alnum | '_')]];

/// A C integer constant as written: decimal, octal or hex, U/L suffixes.
inline auto const cpp_int_token =
    x3::raw[x3::lexeme[(((x3::lit("0x") | "0X") >> +x3::xdigit) | +x3::digit) >>
                       *x3::char_("uUlL") >> !(x3::alnum | '_' | '.')]];

// ---------------------------------------------------------------------------
// Actions shared by the grammars

inline auto const set_val = [](auto& ctx) { x3::_val(ctx) = x3::_attr(ctx); };

inline auto const fold_binary = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  ast::BinaryOp op = fusion::at_c<1>(a);
  Node rhs = fusion::at_c<2>(a);
  Node lhs = x3::_val(ctx);
  Span op_span = state(ctx).span(at, at + spelling(op).size());
  x3::_val(ctx) = make(lhs->span.to(rhs->span), ast::Binary{op, lhs, rhs, op_span});
};

inline auto const mk_unary = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  Node operand = fusion::at_c<2>(a);
  x3::_val(ctx) =
      make(state(ctx).span(at, at).to(operand->span), ast::Unary{fusion::at_c<1>(a), operand});
};

inline std::vector<ast::ExprPtr> constify(const std::vector<Node>& items) {
  return {items.begin(), items.end()};
}

inline auto const mk_subscript = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Node base = x3::_val(ctx);
  Span end = state(ctx).span(fusion::at_c<1>(a), fusion::at_c<1>(a));
  x3::_val(ctx) =
      make(base->span.to(end), ast::Subscript{base, constify(fusion::at_c<0>(a).items)});
};

inline auto const mk_method = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  const std::string& id = fusion::at_c<1>(a);
  CallArgs& args = fusion::at_c<2>(a);
  Node receiver = x3::_val(ctx);
  ast::Call call{
      id, state(ctx).span(at, at + id.size()), {receiver}, std::move(args.keywords), true};
  call.args.insert(call.args.end(), args.args.begin(), args.args.end());
  Span end = state(ctx).span(fusion::at_c<3>(a), fusion::at_c<3>(a));
  x3::_val(ctx) = make(receiver->span.to(end), std::move(call));
};

inline auto const mk_float = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  const std::string& text = fusion::at_c<1>(a);
  std::string digits = text;
  if (size_t e = digits.find_first_of("eE");
      planted(32) && e != std::string::npos && e + 1 < digits.size() && digits[e + 1] == '-')
    digits.erase(e + 1, 1); // fault 32: the exponent's sign is lost
  x3::_val(ctx) = make(state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a)),
                       ast::FloatLit{std::strtod(digits.c_str(), nullptr), text});
};

// C value of an integer constant: decimal, 0x hex, or 0-prefixed octal;
// suffixes ignored here (the checker reads them from the text).
inline auto const mk_c_int = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  const std::string& text = fusion::at_c<1>(a);
  Span span = state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a));
  size_t digits_end = text.find_last_not_of("uUlL") + 1;
  bool hex = text.size() > 2 && (text[1] == 'x' || text[1] == 'X');
  bool octal = !hex && text[0] == '0' && digits_end > 1;
  uint64_t base = hex ? 16 : octal ? 8 : 10;
  uint64_t value = 0;
  for (size_t i = hex ? 2 : 0; i < digits_end; ++i) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    uint64_t digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : c - 'a' + 10;
    if (digit >= base)
      throw Error(ErrorKind::Syntax, span,
                  "invalid digit '" + std::string(1, c) + "' in octal constant");
    if (__builtin_mul_overflow(value, base, &value) || __builtin_add_overflow(value, digit, &value))
      throw Error(ErrorKind::Syntax, span, "integer constant does not fit in 64 bits");
  }
  x3::_val(ctx) = make(span, ast::IntLit{value, text});
};

// Python's value of an integer literal: decimal, 0x, 0o or 0b; a decimal
// with leading zeros (`010`) is a Python syntax error, and so it is here.
inline auto const mk_python_int = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  const std::string& text = fusion::at_c<1>(a);
  Span span = state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a));
  char prefix = text.size() > 2 && text[0] == '0'
                    ? static_cast<char>(std::tolower(static_cast<unsigned char>(text[1])))
                    : 0;
  uint64_t base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : prefix == 'b' ? 2 : 10;
  if (base == 10 && text.size() > 1 && text[0] == '0' &&
      text.find_first_not_of('0') != std::string::npos)
    throw Error(ErrorKind::Syntax, span,
                "leading zeros in a decimal integer are not allowed (Python 3); write 0o" +
                    text.substr(text.find_first_not_of('0')) + " for an octal integer");
  uint64_t value = 0;
  for (size_t i = base == 10 ? 0 : 2; i < text.size(); ++i) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    uint64_t digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : c - 'a' + 10;
    if (__builtin_mul_overflow(value, base, &value) || __builtin_add_overflow(value, digit, &value))
      throw Error(ErrorKind::Syntax, span, "integer literal does not fit in 64 bits");
  }
  x3::_val(ctx) = make(span, ast::IntLit{value, text});
};

inline auto const mk_name = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx) =
      make(state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a)), ast::Name{fusion::at_c<1>(a)});
};

inline auto const mk_call = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  It at = fusion::at_c<0>(a);
  const std::string& id = fusion::at_c<1>(a);
  CallArgs& args = fusion::at_c<2>(a);
  x3::_val(ctx) = make(state(ctx).span(at, fusion::at_c<3>(a)),
                       ast::Call{id, state(ctx).span(at, at + id.size()), std::move(args.args),
                                 std::move(args.keywords), false});
};

inline auto const push_arg = [](auto& ctx) {
  CallArgs& args = x3::_val(ctx);
  if (!args.keywords.empty())
    throw Error(ErrorKind::Syntax, x3::_attr(ctx)->span,
                "positional argument after a keyword argument");
  args.args.push_back(x3::_attr(ctx));
};

// `(e)`: e itself, its span widened to the parentheses.
inline auto const mk_parenthesized = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  Node e = fusion::at_c<1>(a);
  e->span = state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a));
  x3::_val(ctx) = e;
};

// A list `[a, b]` (Python) or braced initializer `{a, b}` (C++).
inline auto const mk_list = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx) = make(state(ctx).span(fusion::at_c<0>(a), fusion::at_c<2>(a)),
                       ast::List{constify(fusion::at_c<1>(a).items)});
};

inline auto const push_item = [](auto& ctx) { x3::_val(ctx).items.push_back(x3::_attr(ctx)); };
inline auto const set_trailing = [](auto& ctx) { x3::_val(ctx).trailing_comma = true; };

inline auto const mk_op_at = [](auto& ctx) {
  auto& a = x3::_attr(ctx);
  x3::_val(ctx) = OpAt{fusion::at_c<0>(a), fusion::at_c<1>(a)};
};

template <class T> ast::StmtPtr stmt(Span span, T node) {
  return std::make_shared<const ast::Stmt>(ast::Stmt{span, std::move(node)});
}

// ---------------------------------------------------------------------------
// Entry

// A short description of the token at \p at for "unexpected ..." messages.
inline std::pair<std::string, size_t> token_at(It at, It last) {
  if (at == last)
    return {"end of input", 0};
  It end = at;
  if (std::isalnum(static_cast<unsigned char>(*at)) || *at == '_') {
    while (end != last && (std::isalnum(static_cast<unsigned char>(*end)) || *end == '_'))
      ++end;
  } else {
    ++end;
  }
  return {"`" + std::string(at, end) + "`", static_cast<size_t>(end - at)};
}

/// Parses a prefix of \p text with \p parser (skipping with \p skipper)
/// into \p attr and returns where the parse stopped (after skipping), or
/// nullptr when \p parser did not match; an expectation failure is an
/// Error(Syntax) at the offending token.
/// How deeply brackets may nest in a text handed to a grammar: the parsers
/// and every pass over the tree recurse once per level (more under
/// sanitizers), and the stack must hold them all.
inline constexpr int kMaxNesting = 256;
/// How many operator characters (`- + ~ !`) may stand in a row.
inline constexpr int kMaxOperatorRun = 1000;

/// Throws Error(Limit) at the first bracket of \p text nested deeper than
/// kMaxNesting. Brackets inside string literals count too: a program with
/// 256 unclosed brackets in a string is not worth the ambiguity.
inline void check_nesting(std::string_view text, const TextOrigin& origin) {
  int depth = 0;
  int prefix_run = 0; // operator characters in a row, spaces between them
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{') {
      if (++depth > kMaxNesting)
        throw Error(ErrorKind::Limit, origin.span(i, i + 1),
                    "brackets nested more than " + std::to_string(kMaxNesting) + " deep");
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    // `- - - ... x` nests like brackets do, without any; the bound is
    // looser than for brackets, as comments draw lines of dashes.
    if (c == '-' || c == '+' || c == '~' || c == '!') {
      if (++prefix_run > kMaxOperatorRun)
        throw Error(ErrorKind::Limit, origin.span(i, i + 1),
                    "more than " + std::to_string(kMaxOperatorRun) + " operators in a row");
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      prefix_run = 0;
    }
  }
}

/// Throws Error(Limit) at the first node of \p e deeper than
/// kMaxExpressionDepth (for trees not built by make(), whose depth is not
/// known).
inline void check_depth(const ast::ExprPtr& e) {
  if (!e)
    return;
  if (const ast::Expr* deep = ast::deeper_than(*e, kMaxExpressionDepth))
    throw_too_deep(deep->span);
}

inline void check_depth(const Node& e) {
  check_depth(ast::ExprPtr(e));
}

inline void check_depth(const ast::Program& p);

inline void check_depth(const std::vector<ast::StmtPtr>& statements) {
  for (const ast::StmtPtr& s : statements)
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, ast::Assign>) {
            check_depth(n.target);
            check_depth(n.value);
            for (const ast::Where& w : n.where)
              check_depth(w.extent);
          } else if constexpr (std::is_same_v<T, ast::ExprStmt>) {
            check_depth(n.expr);
          } else if constexpr (std::is_same_v<T, ast::Return>) {
            check_depth(n.value);
          } else if constexpr (std::is_same_v<T, ast::Declare>) {
            for (const ast::ExprPtr& a : n.ctor_args)
              check_depth(a);
            check_depth(n.init);
          } else if constexpr (std::is_same_v<T, ast::Function>) {
            check_depth(n.body);
          } else if constexpr (std::is_same_v<T, ast::Loop>) {
            check_depth(n.begin);
            check_depth(n.end);
            check_depth(n.body);
          }
        },
        s->node);
}

inline void check_depth(const ast::Program& p) {
  check_depth(p.statements);
}

// Attributes that hold no expression tree are not measured.
template <class T> void check_depth(const T&) {}

template <class Parser, class Skipper, class Attr>
It run_prefix(const Parser& parser, const Skipper& skipper, std::string_view text,
              const TextOrigin& origin, Attr& attr) {
  check_nesting(text, origin);
  State st{text.data(), &origin};
  It first = text.data();
  It last = text.data() + text.size();
  try {
    bool ok =
        x3::phrase_parse(first, last, x3::with<state_tag>(std::cref(st))[parser], skipper, attr);
    x3::skip_over(first, last, x3::make_context<x3::skipper_tag>(skipper));
    return ok ? first : nullptr;
  } catch (const x3::expectation_failure<It>& e) {
    It at = e.where();
    x3::skip_over(at, last, x3::make_context<x3::skipper_tag>(skipper));
    auto [token, width] = token_at(at, last);
    // A missing terminator belongs right after the previous token, as does
    // anything missing at the end of the text.
    bool at_end = at == last;
    bool terminator = e.which() == "';'";
    if (at_end || terminator) {
      while (at != st.base && std::isspace(static_cast<unsigned char>(at[-1])))
        --at;
      width = 0;
    }
    std::string where = at_end ? " before end of input" : terminator ? "" : " before " + token;
    // What a named rule or a literal expects reads well; an unnamed
    // composite parser's "name" is its C++ type, which says nothing to a
    // user, so then the token itself is the message.
    if (e.which().find("boost") != std::string::npos)
      throw Error(ErrorKind::Syntax, st.span(at, at + width),
                  at_end ? std::string("unexpected end of input") : "unexpected " + token);
    throw Error(ErrorKind::Syntax, st.span(at, at + width), "expected " + e.which() + where);
  }
}

/// Parses all of \p text with \p parser (skipping with \p skipper) into
/// \p attr; any failure is an Error(Syntax) at the offending token.
template <class Parser, class Skipper, class Attr>
void run(const Parser& parser, const Skipper& skipper, std::string_view text,
         const TextOrigin& origin, Attr& attr, const char* expected_at_end) {
  It end = run_prefix(parser, skipper, text, origin, attr);
  It last = text.data() + text.size();
  if (end == last) {
    check_depth(attr);
    return;
  }
  It at = end ? end : text.data();
  if (!end)
    x3::skip_over(at, last, x3::make_context<x3::skipper_tag>(skipper));
  auto [token, width] = token_at(at, last);
  throw Error(ErrorKind::Syntax, origin.span(at - text.data(), at - text.data() + width),
              "unexpected " + token + "; expected " + expected_at_end);
}

} // namespace teval::parser::x3support
