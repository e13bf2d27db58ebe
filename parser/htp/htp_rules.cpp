// Reading HTP rule files: finding the rules, parsing them, expanding macros
// (see htp_rules.h). The checks live in htp_check.cpp, printing in htp_print.cpp.
#include "parser/htp/htp_rules.h"

#include "parser/htp/htp_check.h"
#include "parser/htp/htp_cpp.h"
#include "parser/htp/htp_grammar.h"
#include "parser/htp/htp_macros.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <regex>
#include <set>

namespace teval::parser::htp {

namespace {

using core::Diagnostic;
using core::Error;
using core::Severity;
using core::Span;

struct TopLevel {
  const char* macro;
  ItemKind kind;
};

const TopLevel kTopLevel[] = {
    {"DEF_PACKAGE_OPTIMIZATION", ItemKind::Optimization},
    {"DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS", ItemKind::Optimization},
    {"DEF_OPTIM", ItemKind::Optimization},
    {"DEF_OPT", ItemKind::Optimization},
    {"DEF_PACKAGE_OP", ItemKind::Op},
    {"DEF_PACKAGE_OP_AND_COST_AND_FLAGS", ItemKind::Op},
    {"DEF_PACKAGE_OP_AND_COST_F_AND_FLAGS", ItemKind::Op},
    {"DEF_TENSOR_PROPERTIES", ItemKind::TensorProperties},
    {"DEF_PACKAGE_PARAM_ORDER", ItemKind::ParamOrder},
};

const TopLevel* top_level(std::string_view name) {
  for (const TopLevel& t : kTopLevel)
    if (name == t.macro)
      return &t;
  return nullptr;
}

// \p text with comments and the insides of string and character constants
// replaced by spaces (newlines kept): same length, so offsets agree. The
// start of a `/*` that never closes goes to \p unclosed_comment.
std::string blank_comments(std::string_view text, std::optional<size_t>* unclosed_comment) {
  std::string out(text);
  for (size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    if (c == '/' && i + 1 < out.size() && out[i + 1] == '/') {
      for (; i < out.size() && out[i] != '\n'; ++i)
        out[i] = ' ';
    } else if (c == '/' && i + 1 < out.size() && out[i + 1] == '*') {
      size_t end = out.find("*/", i + 2);
      if (end == std::string::npos && unclosed_comment)
        *unclosed_comment = i;
      end = end == std::string::npos ? out.size() : end + 2;
      for (; i < end; ++i)
        if (out[i] != '\n')
          out[i] = ' ';
      --i;
    } else if (c == '"' || c == '\'') {
      for (++i; i < out.size() && out[i] != c && out[i] != '\n'; ++i) {
        if (out[i] == '\\' && i + 1 < out.size())
          out[i++] = ' ';
        out[i] = ' ';
      }
    }
  }
  return out;
}

// Lines [begin, end) of the whole text, as offsets.
std::vector<std::pair<size_t, size_t>> lines_of(std::string_view text) {
  std::vector<std::pair<size_t, size_t>> lines;
  for (size_t at = 0; at <= text.size();) {
    size_t end = std::min(text.find('\n', at), text.size());
    lines.emplace_back(at, end);
    at = end + 1;
  }
  return lines;
}

size_t skip_spaces(std::string_view s, size_t at) {
  while (at < s.size() && (s[at] == ' ' || s[at] == '\t' || s[at] == '\r'))
    ++at;
  return at;
}

size_t identifier_end(std::string_view s, size_t at) {
  while (at < s.size() && (std::isalnum(static_cast<unsigned char>(s[at])) || s[at] == '_'))
    ++at;
  return at;
}

Diagnostic diagnostic(Severity severity, Span span, std::string message) {
  return Diagnostic{severity, span, {}, std::move(message)};
}

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "a, b c, d" -> {"a", "b c", "d"}; blank text is an empty list.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  for (size_t at = 0; !trim(text).empty() && at <= text.size();) {
    size_t comma = std::min(text.find(',', at), text.size());
    items.push_back(trim(text.substr(at, comma - at)));
    at = comma + 1;
  }
  return items;
}

// A #define whose body is a whole rule: its uses at the start of a line
// are rules.
struct Wrapper {
  ItemKind kind = ItemKind::Optimization;
  std::string problem; ///< why its uses cannot be read, if they cannot
};

// The rule wrappers of the HTP headers (optimize_defs.h), which says they
// are meant to be seen by the rule parser.
const char kConvertBinaryOpToFp16[] =
    "DEF_OPTIM(CLEANUP_GRAPH + 130, relaxed_precision_flag, Op(OP, A, B), "
    "IS_BINARY_FP32(A, B, \"*\"), "
    "MAKE_OP_FP16_AND_INSERT_CAST(Op(OP, CAST_TO_FP16(A), CAST_TO_FP16(B))))";

// What a #define, an #undef or a string constant does to the macros in
// effect: from its line on, as the C preprocessor reads them, NAME means
// the file's macro (expanded as cpp does), possibly a rule wrapper, the
// string constant, or (an #undef) none of teval's macros.
struct Definition {
  size_t at = 0;
  std::string name;
  std::optional<TokenMacro> macro;
  std::optional<Wrapper> wrapper;
  std::optional<MacroDef> constant;
};

// The macros and rule wrappers in effect at one point of a file.
struct Scope {
  MacroTable macros = MacroTable::headers();
  TokenMacros file_macros = [] {
    TokenMacros m;
    m.define("CONVERT_BINARY_OP_TO_FP16", {{"OP", "A", "B"}, true, kConvertBinaryOpToFp16});
    return m;
  }();
  std::map<std::string, Wrapper> wrappers = {{"CONVERT_BINARY_OP_TO_FP16", Wrapper{}}};

  void apply(const Definition& d) {
    macros.undefine(d.name);
    file_macros.undefine(d.name);
    wrappers.erase(d.name);
    if (d.macro)
      file_macros.define(d.name, *d.macro);
    if (d.wrapper)
      wrappers[d.name] = *d.wrapper;
    if (d.constant)
      macros.define(d.name, *d.constant);
  }
};

class Reader {
public:
  explicit Reader(std::shared_ptr<const core::SourceFile> source)
      : source_(std::move(source)), text_(source_->text()),
        code_(blank_comments(text_, &unclosed_comment_)) {}

  RuleFile read() {
    RuleFile file;
    file.source = source_;
    // An unclosed comment or #if 0 would hide every rule after it.
    if (unclosed_comment_)
      file.diagnostics.push_back(
          diagnostic(Severity::Error, span(*unclosed_comment_, *unclosed_comment_ + 2),
                     "this comment is never closed: every rule after it would be ignored"));
    read_externals(file);
    std::vector<size_t> starts = find_starts(file);
    // Each rule is read with the definitions above it, as find_starts saw
    // them.
    Scope scope;
    size_t next = 0;
    for (size_t i = 0; i < starts.size(); ++i) {
      for (; next < definitions_.size() && definitions_[next].at < starts[i]; ++next)
        scope.apply(definitions_[next]);
      size_t end = i + 1 < starts.size() ? starts[i + 1] : text_.size();
      file.rules.push_back(read_rule(starts[i], end, scope));
    }
    for (Rule& r : file.rules)
      check_rule(r, file.externals, warned_);
    return file;
  }

private:
  Span span(size_t begin, size_t end) const {
    return Span{source_.get(), uint32_t(begin), uint32_t(end)};
  }

  // `// :::EXTERNAL_SHAPEFN::: { type name(params); }` annotations. The
  // pattern is tried only where the marker is: a search from every offset
  // of a large file is slow.
  void read_externals(RuleFile& file) {
    static constexpr std::string_view marker = ":::EXTERNAL_SHAPEFN:::";
    static const std::regex annotation(
        R"(:::EXTERNAL_SHAPEFN:::\s*\{\s*([^{}]*?)\s*([A-Za-z_]\w*)\s*\(([^()]*)\)\s*;\s*\})");
    for (size_t at = text_.find(marker); at != std::string::npos; at = text_.find(marker, at + 1)) {
      std::cmatch m;
      // The function's name must be on the marker's line.
      if (std::regex_search(text_.data() + at, text_.data() + text_.size(), m, annotation,
                            std::regex_constants::match_continuous) &&
          at + m.position(2) < std::min(text_.find('\n', at), text_.size())) {
        ExternalFunction fn;
        fn.return_type = trim(m[1].str());
        fn.name = m[2].str();
        fn.params = split_list(m[3].str());
        size_t begin = at + m.position(2);
        fn.span = span(begin, begin + fn.name.size());
        file.externals.push_back(std::move(fn));
      } else {
        // An annotation that does not have the stated form is worth a word.
        file.diagnostics.push_back(
            diagnostic(Severity::Warning, span(at, at + marker.size()),
                       "malformed EXTERNAL_SHAPEFN annotation; expected `{ type name(params); }`"));
      }
    }
  }

  // Rule starts, and the file's #define macros; also warns about rule
  // macros not at the start of a line (the rule parser does not see them).
  std::vector<size_t> find_starts(RuleFile& file) {
    std::vector<size_t> starts;
    bool skipping = false; // inside #if 0
    size_t skip_start = 0;
    int depth = 0;
    int nesting = 0; // parentheses and braces open at the start of a line
    auto lines = lines_of(code_);
    for (size_t li = 0; li < lines.size(); ++li) {
      auto [begin, end] = lines[li];
      size_t at = skip_spaces(code_, begin);
      std::string_view line(code_.data() + at, end - at);
      if (line.starts_with("#")) {
        std::string directive = trim(std::string(line.substr(1)));
        if (skipping) {
          if (directive.starts_with("if"))
            ++depth;
          else if (directive.starts_with("endif") && depth-- == 0)
            skipping = false;
          else if ((directive.starts_with("else") || directive.starts_with("elif")) && depth == 0)
            skipping = false;
          continue;
        }
        if (directive == "if 0") {
          skipping = true;
          skip_start = at;
          depth = 0;
        } else if (directive.starts_with("define")) {
          li = read_define(lines, li, at);
        } else if (directive.starts_with("undef")) {
          read_undef(directive, at);
        }
        continue;
      }
      if (skipping)
        continue;
      // Only a line that starts outside every rule and C++ body is at file
      // scope.
      bool file_scope = nesting == 0;
      for (char c : line)
        nesting += (c == '(' || c == '{') - (c == ')' || c == '}');
      nesting = std::max(nesting, 0);
      if (read_string_constant(at, end))
        continue;
      size_t name_end = identifier_end(code_, at);
      std::string_view word = std::string_view(code_).substr(at, name_end - at);
      bool call = skip_spaces(code_, name_end) < end && code_[skip_spaces(code_, name_end)] == '(';
      auto wrapper = scan_.wrappers.find(std::string(word));
      bool wraps = wrapper != scan_.wrappers.end();
      if (call && wraps && !wrapper->second.problem.empty()) {
        file.diagnostics.push_back(
            diagnostic(Severity::Warning, span(at, name_end),
                       std::string(word) + " is a #define that wraps a rule, but " +
                           wrapper->second.problem + "; this use is not read as a rule"));
        continue;
      }
      if (call && (top_level(word) || wraps)) {
        starts.push_back(at);
        continue;
      }
      if (call && file_scope && unknown_rule_wrapper(word, skip_spaces(code_, name_end))) {
        file.diagnostics.push_back(diagnostic(
            Severity::Warning, span(at, name_end),
            std::string(word) + "(...) builds Op(...) like a rule, but " + std::string(word) +
                " is not defined in this file (a rule wrapper from a header teval does not "
                "read?); not read as a rule"));
        continue;
      }
      warn_misplaced(file, at, end);
    }
    if (skipping)
      file.diagnostics.push_back(
          diagnostic(Severity::Error, span(skip_start, skip_start + 1),
                     "this #if 0 has no #endif: every rule after it would be ignored"));
    return starts;
  }

  // Whether the call of \p word whose `(` is at \p open looks like a rule
  // wrapped by a macro teval cannot see: a macro-like name (capitals,
  // digits, `_`) that the file does not #define, whose arguments construct
  // an Op.
  bool unknown_rule_wrapper(std::string_view word, size_t open) const {
    bool macro_like = word.size() >= 2 && std::all_of(word.begin(), word.end(), [](char c) {
                        return std::isupper(static_cast<unsigned char>(c)) ||
                               std::isdigit(static_cast<unsigned char>(c)) || c == '_';
                      });
    if (!macro_like || defined_.count(std::string(word)) || scan_.macros.defines(std::string(word)))
      return false;
    // Its arguments: to the `)` that closes \p open (literals are blank in
    // code_).
    size_t close = open;
    for (int depth = 0; close < code_.size(); ++close)
      if (code_[close] == '(')
        ++depth;
      else if (code_[close] == ')' && --depth == 0)
        break;
    std::string_view args = std::string_view(code_).substr(open, close - open);
    for (size_t i = args.find("Op("); i != std::string_view::npos; i = args.find("Op(", i + 1))
      if (i > 0 && !(std::isalnum(static_cast<unsigned char>(args[i - 1])) || args[i - 1] == '_'))
        return true;
    return false;
  }

  void warn_misplaced(RuleFile& file, size_t begin, size_t end) {
    for (size_t at = begin; at < end; ++at) {
      if (!(std::isalpha(static_cast<unsigned char>(code_[at])) || code_[at] == '_'))
        continue;
      size_t e = identifier_end(code_, at);
      if (at > begin &&
          (std::isalnum(static_cast<unsigned char>(code_[at - 1])) || code_[at - 1] == '_')) {
        at = e;
        continue;
      }
      const TopLevel* t = top_level(std::string_view(code_).substr(at, e - at));
      if (t && t->kind == ItemKind::Optimization && at != begin)
        file.diagnostics.push_back(
            diagnostic(Severity::Warning, span(at, e),
                       std::string(t->macro) +
                           " is not at the start of a line, so the rule parser does not read it"));
      else if (t && at == begin)
        file.diagnostics.push_back(diagnostic(
            Severity::Warning, span(at, e),
            std::string(t->macro) + " and its `(` must begin the same line; not read as a rule"));
      at = e;
    }
  }

  // `#define NAME(params) body` (with `\` continuations) whose body is a
  // rule expression: a macro the rules may use. Returns the last line.
  size_t read_define(const std::vector<std::pair<size_t, size_t>>& lines, size_t li, size_t at) {
    size_t last = li;
    while (last + 1 < lines.size() && lines[last].second > lines[last].first &&
           code_[lines[last].second - 1 - (code_[lines[last].second - 1] == '\r')] == '\\')
      ++last;
    // The directive's own text, offsets relative to \p at, continuation
    // backslashes blanked.
    std::string text(text_.substr(at, lines[last].second - at));
    size_t end = text.size();
    for (size_t i = 0; i < end; ++i)
      if (text[i] == '\\' && (i + 1 == end || text[i + 1] == '\n' || text[i + 1] == '\r'))
        text[i] = ' ';
    size_t name_at = skip_spaces(text, skip_spaces(text, 1) + std::string_view("define").size());
    size_t name_end = identifier_end(text, name_at);
    if (name_end == name_at)
      return last;
    std::string name = text.substr(name_at, name_end - name_at);
    defined_.insert(name);
    if (top_level(name))
      return last; // the rule macros themselves are read as rules, never expanded
    define(read_definition({at, name, {}, {}, {}}, text, name_end));
    return last;
  }

  // \p d with the meaning of `#define NAME...` (\p text, at d.at of the
  // file), read from the end of NAME on: a macro the rules may use, as the
  // C preprocessor would expand it (an empty body included), and possibly
  // a rule wrapper.
  Definition read_definition(Definition d, const std::string& text, size_t name_end) {
    size_t end = text.size();
    TokenMacro macro;
    size_t body_at = name_end;
    if (body_at < end && text[body_at] == '(') {
      size_t close = text.find(')', body_at);
      if (close == std::string::npos)
        return d;
      macro.params = split_list(text.substr(body_at + 1, close - body_at - 1));
      body_at = close + 1;
    } else {
      macro.function_like = false;
    }
    macro.body = trim(text.substr(body_at));
    d.wrapper = read_wrapper(text, body_at);
    d.macro = std::move(macro);
    return d;
  }

  // `#undef NAME`.
  void read_undef(const std::string& directive, size_t at) {
    size_t name_at = skip_spaces(directive, std::string_view("undef").size());
    size_t name_end = identifier_end(directive, name_at);
    if (name_end > name_at)
      define({at, directive.substr(name_at, name_end - name_at), {}, {}, {}});
  }

  // Records \p d: it takes effect for the rules after it.
  void define(Definition d) {
    scan_.apply(d);
    definitions_.push_back(std::move(d));
  }

  // A #define whose body is a whole rule (`#define RENAME(F, T)
  // DEF_PACKAGE_OPTIMIZATION(...)`, as the HTP headers' own
  // CONVERT_BINARY_OP_TO_FP16): its uses at the start of a line are rules.
  // A body that holds a rule macro elsewhere cannot be read: its uses are
  // warned about. Returns the wrapper if the #define is either.
  std::optional<Wrapper> read_wrapper(const std::string& text, size_t body_at) {
    size_t first = body_at;
    while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first])))
      ++first;
    size_t macro_end = identifier_end(text, first);
    const TopLevel* t = top_level(std::string_view(text).substr(first, macro_end - first));
    if (t && skip_spaces(text, macro_end) < text.size() &&
        text[skip_spaces(text, macro_end)] == '(')
      return Wrapper{t->kind, ""};
    for (const TopLevel& top : kTopLevel) {
      size_t found = text.find(top.macro, body_at);
      if (found != std::string::npos && identifier_end(text, found) == found + strlen(top.macro) &&
          (found == 0 || !std::isalnum(static_cast<unsigned char>(text[found - 1]))))
        return Wrapper{top.kind, std::string("its body holds ") + top.macro +
                                     " after other text, which the rule parser does not read"};
    }
    return std::nullopt;
  }

  // `const char *NAME = "Op";` (also static, constexpr, `NAME[]`): packages
  // name ops through such constants, which the seed's grammar does not
  // allow; NAME then expands to the string, with a warning at each rule's
  // first use.
  bool read_string_constant(size_t begin, size_t end) {
    static const std::regex declaration(
        R"(^(?:static\s+)?(?:constexpr\s+)?(?:const\s+)?char\s*(?:const\s*)?\*?\s*(?:const\s+)?)"
        R"(([A-Za-z_]\w*)\s*(\[\s*\])?\s*=\s*("(?:[^"\\]|\\.)*")\s*;\s*$)");
    std::string line(text_.substr(begin, end - begin));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    // Every line is asked: the pattern only where it may match.
    if (line.empty() || line.back() != ';' || line.find("char") == std::string::npos)
      return false;
    std::smatch m;
    if (!std::regex_match(line, m, declaration))
      return false;
    const std::string name = m[1].str();
    size_t literal_at = begin + size_t(m.position(3));
    MacroDef def;
    def.function_like = false;
    try {
      def.body = parse_htp_expression(std::string_view(text_).substr(literal_at, m[3].length()),
                                      TextOrigin(source_.get(), uint32_t(literal_at)));
    } catch (const Error&) {
      return false;
    }
    def.warning = "op name `" + name + "` is a C identifier bound to " + m[3].str() + " on line " +
                  std::to_string(source_->location(begin).line) +
                  "; the seed's grammar wants a string constant, which teval reads in its place";
    define({begin, name, {}, {}, std::move(def)});
    return true;
  }

  Rule read_rule(size_t begin, size_t end, const Scope& scope) {
    Rule rule;
    size_t name_end = identifier_end(code_, begin);
    rule.macro = std::string(text_.substr(begin, name_end - begin));
    bool wrapped = scope.wrappers.count(rule.macro) != 0;
    rule.kind = wrapped ? scope.wrappers.at(rule.macro).kind : top_level(rule.macro)->kind;
    rule.span = span(begin, name_end);
    try {
      // The file's macros first, as cpp expands them, in the invocation
      // only (up to its closing parenthesis).
      size_t extent = invocation_end(name_end, end);
      std::optional<Preprocessed> pre = preprocess(begin, extent, scope);
      if (pre) {
        rule.diagnostics = pre->failed.errors;
        rule.unexpanded = pre->failed.uses;
      }
      std::string_view region = std::string_view(text_).substr(begin, end - begin);
      Invocation inv;
      try {
        inv = pre ? parse_htp_invocation(pre->text.text, TextOrigin(source_.get(), &pre->text))
                  : parse_htp_invocation(region, TextOrigin(source_.get(), uint32_t(begin)));
      } catch (const Error& e) {
        // A use left as written does not parse: its error says why.
        if (!inside(e.diagnostic().span, rule.unexpanded))
          throw;
        return rule;
      }
      rule.invocation = inv.call;
      size_t after = begin + inv.end;
      if (pre)
        after = inv.end < pre->text.origin.size() ? pre->text.origin[inv.end].begin : extent;
      check_preprocessor_arguments(rule);
      if (wrapped)
        unwrap(rule);
      while (after < end && std::isspace(static_cast<unsigned char>(text_[after])))
        ++after;
      if (after < end && (text_[after] == '(' || text_[after] == ','))
        rule.diagnostics.push_back(diagnostic(
            Severity::Error, span(after, after + 1),
            std::string("`") + text_[after] + "` may not follow the closing `)` of " + rule.macro));
      std::vector<MacroUse> uses;
      FailedUses failed;
      rule.invocation = scope.macros.expand(rule.invocation, &uses, &expansion_budget_, &failed);
      rule.diagnostics.insert(rule.diagnostics.end(), failed.errors.begin(), failed.errors.end());
      rule.unexpanded.insert(rule.unexpanded.end(), failed.uses.begin(), failed.uses.end());
      for (const MacroUse& u : uses)
        if (warned_.insert(u.name).second)
          rule.diagnostics.push_back(diagnostic(Severity::Warning, u.span, u.warning));
    } catch (const Error& e) {
      rule.diagnostics.push_back(e.diagnostic());
    }
    return rule;
  }

  // Just past the `)` that closes the parenthesis after \p name_end (in
  // code_, where comments and literals are blank), or \p end.
  size_t invocation_end(size_t name_end, size_t end) const {
    int depth = 0;
    for (size_t at = name_end; at < end; ++at) {
      if (code_[at] == '(')
        ++depth;
      else if (code_[at] == ')' && --depth == 0)
        return at + 1;
    }
    return end;
  }

  // The file's macros in [begin, end) expanded, if it uses any; the tokens
  // made are taken from the file's budget.
  std::optional<Preprocessed> preprocess(size_t begin, size_t end, const Scope& scope) {
    size_t budget = std::min(kMaxExpandedNodes, expansion_budget_);
    size_t given = budget;
    struct Charge {
      size_t& from;
      const size_t& given;
      const size_t& left;
      ~Charge() { from -= given - left; }
    } charge{expansion_budget_, given, budget};
    return scope.file_macros.expand(source_.get(),
                                    std::string_view(text_).substr(begin, end - begin),
                                    uint32_t(begin), budget, expansion_budget_ < kMaxExpandedNodes);
  }

  // The C preprocessor splits a macro's arguments at every comma outside
  // parentheses, angle brackets included: `impl<A, B>` as an argument is
  // two arguments, and only `(impl<A, B>)` is one.
  void check_preprocessor_arguments(Rule& rule) {
    const auto& call = std::get<ast::Call>(rule.invocation->node);
    for (const ast::ExprPtr& a : call.args) {
      const ast::Name* n = std::get_if<ast::Name>(&a->node);
      if (!n || n->id.find('<') == std::string::npos || n->id.find(',') == std::string::npos)
        continue;
      if (n->parenthesized)
        continue;
      size_t commas = std::count(n->id.begin(), n->id.end(), ',');
      rule.diagnostics.push_back(diagnostic(
          Severity::Error, a->span,
          "the preprocessor splits `" + n->id + "` at its comma" + (commas > 1 ? "s" : "") +
              ", so " + rule.macro + " gets " + std::to_string(call.args.size() + commas) +
              " arguments; write `(" + n->id + ")`"));
    }
  }

  // A use of a rule wrapper has become the rule its body holds, with the
  // arguments substituted; its nodes carry the use's position.
  void unwrap(Rule& rule) {
    const auto& call = std::get<ast::Call>(rule.invocation->node);
    const TopLevel* t = top_level(call.callee);
    if (!t)
      throw Error(core::ErrorKind::Syntax, rule.span,
                  rule.macro + "(...) does not expand to a rule: its expansion begins with " +
                      call.callee);
    rule.diagnostics.push_back(diagnostic(Severity::Note, rule.span,
                                          rule.macro + "(...) is a #define that wraps " +
                                              call.callee + "; read as the rule it expands to"));
    rule.macro = call.callee;
    rule.kind = t->kind;
  }

  std::shared_ptr<const core::SourceFile> source_;
  std::string_view text_;
  // Before code_, which sets it as it is made.
  std::optional<size_t> unclosed_comment_;
  std::string code_;
  // The definitions in the order of the file, and those in effect at the
  // line find_starts is at.
  std::vector<Definition> definitions_;
  Scope scan_;
  // Constructs outside the seed's grammar already warned about: once per
  // file is enough.
  std::set<std::string> warned_;
  // Every name the file #defines (a rule's, an expression's or C++'s).
  std::set<std::string> defined_;
  // The nodes the rules' macro expansions may still visit.
  size_t expansion_budget_ = kMaxExpandedNodes + kExpandedNodesPerFileByte * text_.size();
};

} // namespace

const char* kind_name(ItemKind kind) {
  switch (kind) {
  case ItemKind::Optimization:
    return "optimization";
  case ItemKind::Op:
    return "op";
  case ItemKind::TensorProperties:
    return "tensor_properties";
  case ItemKind::ParamOrder:
    return "param_order";
  }
  TEVAL_UNREACHABLE("item kind");
}

std::string Pass::text() const {
  if (offset == 0)
    return name;
  return name + (offset > 0 ? "+" : "-") + std::to_string(offset > 0 ? offset : -offset);
}

std::optional<int64_t> pass_priority(const std::string& name) {
  static const std::map<std::string, int64_t> kPriorities = {
      {"BEGIN", 0},
      {"GRAPH_CLEANUP", 50},
      {"PRE_OPTIMIZATION", 50},
      {"CLEANUP_GRAPH", 100},
      {"PRE_TRANSLATE", 1000},
      {"PRE_QNN", 1050},
      {"TRANSLATE", 2000},
      {"QNN", 2050},
      {"ANALYSIS", 3000},
      {"EARLY", 3050},
      {"QUANT_FIXES", 4000},
      {"PRE_RESHAPE_OP_SIMPLIFY", 5000},
      {"SPATIAL_RESHAPE", 6000},
      {"SPACE_DEPTH", 7000},
      {"POST_RESHAPE_OP_SIMPLIFY", 8000},
      {"PRE_TILING", 10000},
      {"TILING", 11000},
      {"CENTRAL_TILING", 11900},
      {"TILE_CLEANUP", 12000},
      {"POST_TILING", 13000},
      {"HARD_OPS", 20000},
      {"MIDDLE", 20050},
      {"BEFORE_TCM_MIGRATION", 20800},
      {"TCM_MIGRATION", 21000},
      {"LATE", 21050},
      {"LAYOUT_AND_PLACEMENT", 21100},
      {"POST_TCM", 22000},
      {"FINAL_CLEANUP", 23000},
      {"AUX_CLEANUP", 25000},
  };
  auto it = kPriorities.find(name);
  if (it == kPriorities.end())
    return std::nullopt;
  return it->second;
}

bool Rule::malformed() const {
  for (const Diagnostic& d : diagnostics)
    if (d.severity == Severity::Error)
      return true;
  return false;
}

bool RuleFile::malformed() const {
  for (const Rule& r : rules)
    if (r.malformed())
      return true;
  for (const Diagnostic& d : diagnostics)
    if (d.severity == Severity::Error)
      return true;
  return false;
}

RuleFile read_rules(std::shared_ptr<const core::SourceFile> source) {
  return Reader(std::move(source)).read();
}

} // namespace teval::parser::htp
