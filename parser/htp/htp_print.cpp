// Printing rule expressions back as rule text (see htp_rules.h).
#include "parser/htp/htp_rules.h"

#include "core/error.h"

#include <string>
#include <type_traits>
#include <variant>

namespace teval::parser::htp {

std::string to_text(const ast::Expr& e) {
  return std::visit(
      [&](const auto& n) -> std::string {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::Name>) {
          // A name written in parentheses keeps them (`(impl<A, B>)` must, to
          // be one macro argument).
          return n.parenthesized || n.id.find(',') != std::string::npos ? "(" + n.id + ")" : n.id;
        } else if constexpr (std::is_same_v<T, ast::IntLit> || std::is_same_v<T, ast::FloatLit>) {
          return n.text;
        } else if constexpr (std::is_same_v<T, ast::StringLit>) {
          return ast::quote(n.value);
        } else if constexpr (std::is_same_v<T, ast::Unary>) {
          return std::string(ast::spelling(n.op)) + to_text(*n.operand);
        } else if constexpr (std::is_same_v<T, ast::Binary>) {
          return to_text(*n.lhs) + " " + std::string(ast::spelling(n.op)) + " " + to_text(*n.rhs);
        } else if constexpr (std::is_same_v<T, ast::Call>) {
          std::string out = n.callee + "(";
          for (size_t i = 0; i < n.args.size(); ++i)
            out += (i ? ", " : "") + to_text(*n.args[i]);
          return out + ")";
        } else {
          TEVAL_UNREACHABLE("rule expressions hold calls, names and constants only");
        }
      },
      e.node);
}

std::string to_pretty_text(const ast::Expr& e, size_t indent, size_t width) {
  std::string flat = to_text(e);
  const ast::Call* c = std::get_if<ast::Call>(&e.node);
  if (!c || c->args.empty() || indent + flat.size() <= width)
    return flat;
  std::string pad(indent + 4, ' ');
  std::string out = c->callee + "(";
  for (size_t i = 0; i < c->args.size(); ++i)
    out += (i ? ",\n" : "\n") + pad + to_pretty_text(*c->args[i], indent + 4, width);
  return out + ")";
}

} // namespace teval::parser::htp
