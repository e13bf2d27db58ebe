// A rule file's #define macros expanded token by token (see htp_cpp.h), as
// C++20's [cpp.replace] describes: arguments are macro-expanded before they
// are substituted except as operands of `#` and `##`, the result is
// rescanned with the macro's name hidden (Prosser's hide sets).
#include "parser/htp/htp_cpp.h"

#include "core/error.h"
#include "parser/htp/htp_macros.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <iterator>
#include <memory>
#include <set>

namespace teval::parser::htp {

namespace {

using core::Diagnostic;
using core::Error;
using core::ErrorKind;
using core::Severity;
using core::Span;

enum class Kind { Space, Ident, Number, Literal, Punct, Placemarker };

using HideSet = std::shared_ptr<const std::set<std::string>>;

struct Token {
  Kind kind = Kind::Space;
  std::string text;
  CharOrigin origin;
  bool glued = false;  ///< written right after the token before it
  bool source = false; ///< as written in the text (each byte its own origin)
  bool paste = false;  ///< a `##` of a macro's body
  HideSet hide;        ///< the macros whose expansion made it
};

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Punctuators of more than one character, longest first.
const char* const kPunctuators[] = {"<<=", ">>=", "...", "->*", "##", "->", "++", "--", "<<",
                                    ">>",  "<=",  ">=",  "==",  "!=", "&&", "||", "+=", "-=",
                                    "*=",  "/=",  "%=",  "&=",  "|=", "^=", "::", ".*"};

// The preprocessing tokens of \p text, whose byte i came from base + i.
// Comments and runs of blanks are one Space token each.
std::vector<Token> tokenize(std::string_view text, uint32_t base) {
  std::vector<Token> out;
  bool glued = false;
  size_t i = 0, n = text.size();
  auto at = [&](size_t k) { return k < n ? text[k] : '\0'; };
  while (i < n) {
    size_t b = i;
    char c = text[i];
    Kind kind = Kind::Punct;
    if (is_space(c)) {
      while (i < n && is_space(text[i]))
        ++i;
      kind = Kind::Space;
    } else if (c == '/' && at(i + 1) == '/') {
      while (i < n && text[i] != '\n')
        ++i;
      kind = Kind::Space;
    } else if (c == '/' && at(i + 1) == '*') {
      size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? n : end + 2;
      kind = Kind::Space;
    } else if (ident_start(c)) {
      while (i < n && ident_char(text[i]))
        ++i;
      kind = Kind::Ident;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && std::isdigit(static_cast<unsigned char>(at(i + 1))))) {
      for (++i; i < n; ++i) {
        char d = text[i];
        bool sign = (d == '+' || d == '-') && std::strchr("eEpP", text[i - 1]) != nullptr;
        if (!(ident_char(d) || d == '.' || sign))
          break;
      }
      kind = Kind::Number;
    } else if (c == '"' || c == '\'') {
      for (++i; i < n && text[i] != c && text[i] != '\n'; ++i)
        if (text[i] == '\\' && i + 1 < n)
          ++i;
      if (i < n && text[i] == c)
        ++i;
      kind = Kind::Literal;
    } else {
      size_t len = 1;
      for (const char* p : kPunctuators)
        if (text.substr(i).starts_with(p)) {
          len = std::strlen(p);
          break;
        }
      i += len;
    }
    Token t;
    t.kind = kind;
    t.text = kind == Kind::Space ? " " : std::string(text.substr(b, i - b));
    t.origin = {uint32_t(base + b), uint32_t(base + i)};
    t.glued = kind != Kind::Space && glued;
    t.source = true;
    out.push_back(std::move(t));
    glued = kind != Kind::Space;
  }
  return out;
}

// \p a as one string literal, as `#` makes it.
std::string stringize(const std::vector<Token>& a) {
  std::string s = "\"";
  bool first = true;
  for (const Token& t : a) {
    if (t.kind == Kind::Space || t.kind == Kind::Placemarker)
      continue;
    if (!first && !t.glued)
      s += ' ';
    first = false;
    for (char c : t.text) {
      if (t.kind == Kind::Literal && (c == '"' || c == '\\'))
        s += '\\';
      s += c;
    }
  }
  return s + "\"";
}

void trim_spaces(std::vector<Token>& a) {
  while (!a.empty() && a.back().kind == Kind::Space)
    a.pop_back();
  auto first =
      std::find_if(a.begin(), a.end(), [](const Token& t) { return t.kind != Kind::Space; });
  a.erase(a.begin(), first);
}

class Expander {
public:
  Expander(const std::map<std::string, TokenMacro>& macros, const core::SourceFile* file,
           size_t& budget, bool file_limit, Preprocessed& result)
      : macros_(macros), file_(file), budget_(budget), file_limit_(file_limit), result_(result) {}

  // \p in with every use expanded and the results rescanned.
  std::vector<Token> expand(std::vector<Token> in, int depth) {
    if (depth > 64)
      throw Error(ErrorKind::Limit, span(in.empty() ? CharOrigin{} : in.front().origin),
                  "macro expansion nested more than 64 deep");
    std::vector<Token> out;
    std::deque<Token> work(std::make_move_iterator(in.begin()), std::make_move_iterator(in.end()));
    while (!work.empty()) {
      Token t = std::move(work.front());
      work.pop_front();
      auto it = t.kind == Kind::Ident ? macros_.find(t.text) : macros_.end();
      if (it == macros_.end() || (t.hide && t.hide->count(t.text))) {
        out.push_back(std::move(t));
        continue;
      }
      const std::string& name = it->first;
      const TokenMacro& m = it->second;
      if (!m.function_like) {
        if (auto body = substitute(name, m, {}, t, t.origin, t.hide, depth)) {
          work.insert(work.begin(), std::make_move_iterator(body->begin()),
                      std::make_move_iterator(body->end()));
        } else {
          out.push_back(std::move(t));
        }
        continue;
      }
      // A function-like macro's name is a use only when `(` follows.
      size_t open = 0;
      while (open < work.size() && work[open].kind == Kind::Space)
        ++open;
      if (open == work.size() || work[open].kind != Kind::Punct || work[open].text != "(") {
        out.push_back(std::move(t));
        continue;
      }
      // The arguments, split at the commas outside parentheses.
      std::vector<std::vector<Token>> args(1);
      int nesting = 0;
      size_t close = open + 1;
      for (; close < work.size(); ++close) {
        const Token& a = work[close];
        if (a.kind == Kind::Punct && a.text == "(") {
          ++nesting;
        } else if (a.kind == Kind::Punct && a.text == ")") {
          if (nesting-- == 0)
            break;
        } else if (a.kind == Kind::Punct && a.text == "," && nesting == 0) {
          args.emplace_back();
          continue;
        }
        args.back().push_back(a);
      }
      // Scanning the arguments is work too: a text of many uses never
      // closed would otherwise take time quadratic in its length.
      charge(close - open, t.origin);
      if (close == work.size()) {
        fail(t, work.back().origin, "unterminated argument list invoking macro " + name);
        out.push_back(std::move(t));
        continue;
      }
      CharOrigin use{t.origin.begin, work[close].origin.end};
      for (auto& a : args)
        trim_spaces(a);
      if (m.params.empty() && args.size() == 1 && args[0].empty())
        args.clear(); // F() gives a macro of no parameters no argument
      bool variadic = !m.params.empty() && m.params.back() == "...";
      size_t fixed = m.params.size() - (variadic ? 1 : 0);
      bool count_ok = variadic ? args.size() >= fixed : args.size() == fixed;
      std::optional<std::vector<Token>> body;
      if (!count_ok)
        fail(t, work[close].origin,
             "macro " + name + " takes " + std::to_string(fixed) + (variadic ? " or more" : "") +
                 " argument" + (fixed == 1 ? "" : "s") + ", not " + std::to_string(args.size()));
      else
        body = substitute(name, m, args, t, use, intersect(t.hide, work[close].hide), depth);
      if (!body) {
        // The use stays as written.
        out.push_back(std::move(t));
        for (size_t k = 0; k <= close; ++k)
          out.push_back(work[k]);
        work.erase(work.begin(), work.begin() + std::ptrdiff_t(close + 1));
        continue;
      }
      work.erase(work.begin(), work.begin() + std::ptrdiff_t(close + 1));
      work.insert(work.begin(), std::make_move_iterator(body->begin()),
                  std::make_move_iterator(body->end()));
    }
    return out;
  }

private:
  Span span(CharOrigin o) const { return Span{file_, o.begin, o.end}; }

  // An error at the use of a macro (its name \p t to \p last), which stays
  // as written.
  void fail(const Token& t, CharOrigin last, std::string message) {
    result_.failed.errors.push_back(
        Diagnostic{Severity::Error, span(t.origin), {}, std::move(message)});
    result_.failed.uses.push_back(span({t.origin.begin, std::max(t.origin.end, last.end)}));
  }

  static HideSet intersect(const HideSet& a, const HideSet& b) {
    if (!a || !b)
      return nullptr;
    auto out = std::make_shared<std::set<std::string>>();
    std::set_intersection(a->begin(), a->end(), b->begin(), b->end(),
                          std::inserter(*out, out->end()));
    return out;
  }

  void charge(size_t n, CharOrigin at) {
    if (n > budget_)
      throw Error(ErrorKind::Limit, span(at),
                  file_limit_ ? "the macro expansions of this file's rules make more than " +
                                    std::to_string(kExpandedNodesPerFileByte) +
                                    " tokens per byte of the file in all"
                              : "macro expansion makes more than " +
                                    std::to_string(kMaxExpandedNodes) + " tokens");
    budget_ -= n;
  }

  // The body of \p m used at \p use (the name \p t to the closing `)`),
  // with \p args substituted, `#` and `##` applied and \p hide plus \p name
  // hidden in it; nothing after an error.
  std::optional<std::vector<Token>> substitute(const std::string& name, const TokenMacro& m,
                                               const std::vector<std::vector<Token>>& args,
                                               const Token& t, CharOrigin use, const HideSet& hide,
                                               int depth) {
    std::vector<Token> body = tokenize(m.body, 0);
    trim_spaces(body);
    bool variadic = !m.params.empty() && m.params.back() == "...";
    size_t fixed = m.params.size() - (variadic ? 1 : 0);
    auto param = [&](const Token& b) -> std::optional<size_t> {
      if (!m.function_like || b.kind != Kind::Ident)
        return std::nullopt;
      if (variadic && b.text == "__VA_ARGS__")
        return fixed;
      for (size_t i = 0; i < fixed; ++i)
        if (m.params[i] == b.text)
          return i;
      return std::nullopt;
    };
    // The tokens of argument \p i; __VA_ARGS__ is the rest, with commas.
    auto argument = [&](size_t i) {
      if (i < fixed)
        return args[i];
      std::vector<Token> rest;
      for (size_t k = fixed; k < args.size(); ++k) {
        if (k > fixed) {
          Token comma;
          comma.kind = Kind::Punct;
          comma.text = ",";
          comma.origin = use;
          comma.glued = true;
          rest.push_back(comma);
        }
        rest.insert(rest.end(), args[k].begin(), args[k].end());
      }
      return rest;
    };
    auto neighbour = [&](size_t i, int step) -> const Token* {
      for (size_t k = i + step; k < body.size(); k += step)
        if (body[k].kind != Kind::Space)
          return &body[k];
      return nullptr;
    };
    auto is_paste = [](const Token* b) { return b && b->kind == Kind::Punct && b->text == "##"; };

    std::vector<Token> out;
    for (size_t i = 0; i < body.size(); ++i) {
      Token b = body[i];
      b.source = false;
      b.origin = use;
      if (i == 0)
        b.glued = t.glued;
      if (m.function_like && b.kind == Kind::Punct && b.text == "#") {
        const Token* operand = neighbour(i, 1);
        std::optional<size_t> p = operand ? param(*operand) : std::nullopt;
        if (!p) {
          fail(t, use, "'#' is not followed by a parameter of macro " + name);
          return std::nullopt;
        }
        b.kind = Kind::Literal;
        b.text = stringize(argument(*p));
        out.push_back(std::move(b));
        i = size_t(operand - body.data());
        continue;
      }
      if (is_paste(&body[i])) {
        if (!neighbour(i, -1) || !neighbour(i, 1)) {
          fail(t, use, "'##' cannot begin or end the body of macro " + name);
          return std::nullopt;
        }
        b.paste = true;
        out.push_back(std::move(b));
        continue;
      }
      if (std::optional<size_t> p = param(body[i])) {
        std::vector<Token> a = argument(*p);
        bool pasted = is_paste(neighbour(i, -1)) || is_paste(neighbour(i, 1));
        if (!pasted)
          a = expand(std::move(a), depth + 1);
        trim_spaces(a);
        if (a.empty()) {
          if (pasted) {
            Token mark;
            mark.kind = Kind::Placemarker;
            mark.origin = use;
            out.push_back(mark);
          }
          continue;
        }
        a.front().glued = b.glued;
        out.insert(out.end(), a.begin(), a.end());
        continue;
      }
      out.push_back(std::move(b));
    }
    if (!paste(out, name, t, use))
      return std::nullopt;
    std::erase_if(out, [](const Token& x) { return x.kind == Kind::Placemarker; });
    // Everything the expansion made hides the macro from the rescan.
    auto hidden = std::make_shared<std::set<std::string>>();
    if (hide)
      *hidden = *hide;
    hidden->insert(name);
    HideSet shared = hidden;
    for (Token& x : out) {
      if (!x.hide) {
        x.hide = shared;
      } else if (x.hide != shared) {
        auto both = std::make_shared<std::set<std::string>>(*x.hide);
        both->insert(shared->begin(), shared->end());
        x.hide = both;
      }
    }
    charge(out.size() + 1, use);
    return out;
  }

  // Each `a ## b` of \p out made one token.
  bool paste(std::vector<Token>& out, const std::string& name, const Token& t, CharOrigin use) {
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i].paste)
        continue;
      size_t l = i, r = i;
      while (l > 0 && out[--l].kind == Kind::Space) {
      }
      while (r + 1 < out.size() && out[++r].kind == Kind::Space) {
      }
      const Token& left = out[l];
      const Token& right = out[r];
      std::string joined = (left.kind == Kind::Placemarker ? "" : left.text) +
                           (right.kind == Kind::Placemarker ? "" : right.text);
      Token made;
      made.kind = Kind::Placemarker;
      if (!joined.empty()) {
        std::vector<Token> one = tokenize(joined, 0);
        if (one.size() != 1 || one[0].kind == Kind::Space) {
          fail(t, use,
               "pasting \"" + left.text + "\" and \"" + right.text + "\" in macro " + name +
                   " does not give a valid preprocessing token");
          return false;
        }
        made = one[0];
      }
      made.origin = use;
      made.source = false;
      made.glued = left.glued;
      made.hide = left.hide;
      out.erase(out.begin() + std::ptrdiff_t(l), out.begin() + std::ptrdiff_t(r + 1));
      out.insert(out.begin() + std::ptrdiff_t(l), made);
      i = l;
    }
    return true;
  }

  const std::map<std::string, TokenMacro>& macros_;
  const core::SourceFile* file_;
  size_t& budget_;
  bool file_limit_;
  Preprocessed& result_;
};

} // namespace

std::optional<Preprocessed> TokenMacros::expand(const core::SourceFile* file, std::string_view text,
                                                uint32_t base, size_t& budget,
                                                bool file_limit) const {
  std::vector<Token> tokens = tokenize(text, base);
  bool uses = std::any_of(tokens.begin(), tokens.end(), [&](const Token& t) {
    return t.kind == Kind::Ident && macros_.count(t.text) != 0;
  });
  if (!uses)
    return std::nullopt;
  Preprocessed result;
  std::vector<Token> out =
      Expander(macros_, file, budget, file_limit, result).expand(std::move(tokens), 0);
  bool blank = true; // the text so far ends in a blank
  for (const Token& t : out) {
    if (t.kind == Kind::Space) {
      if (!blank)
        result.text.append(' ', t.origin);
      blank = true;
      continue;
    }
    if (!t.glued && !blank)
      result.text.append(' ', t.origin);
    for (size_t k = 0; k < t.text.size(); ++k)
      result.text.append(t.text[k], t.source ? CharOrigin{uint32_t(t.origin.begin + k),
                                                          uint32_t(t.origin.begin + k + 1)}
                                             : t.origin);
    blank = false;
  }
  return result;
}

} // namespace teval::parser::htp
