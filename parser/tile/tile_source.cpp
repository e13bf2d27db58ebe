// Reading Tile sources in either spelling.
#include "parser/tile/tile_source.h"

#include "core/error.h"
#include "parser/cpp_grammar.h"
#include "parser/python_grammar.h"
#include "parser/text.h"

namespace teval::parser {

namespace {

using core::Error;
using core::ErrorKind;
using core::Span;

bool starts_with_def(std::string_view line) {
  return line.size() > 4 && line.substr(0, 3) == "def" && (line[3] == ' ' || line[3] == '\t');
}

class PythonReader {
public:
  explicit PythonReader(const core::SourceFile& file) : file_(file), text_(file.text()) {}

  ast::Program read() {
    ast::Program program;
    std::vector<LogicalLine> lines = logical_line_ranges(text_);
    size_t i = 0;
    while (i < lines.size()) {
      const LogicalLine& head = lines[i];
      if (head.indent != 0 || !starts_with_def(line_text(head)))
        throw Error(ErrorKind::Syntax, span(head),
                    "expected a function definition `def name(...):`");
      size_t first_body = ++i;
      while (i < lines.size() && lines[i].indent > 0)
        ++i;
      program.statements.push_back(function(head, lines, first_body, i));
    }
    return program;
  }

private:
  std::string_view line_text(const LogicalLine& l) const {
    return text_.substr(l.begin, l.end - l.begin);
  }
  Span span(const LogicalLine& l) const { return Span{&file_, l.begin, l.end}; }

  ast::StmtPtr function(const LogicalLine& head, const std::vector<LogicalLine>& lines,
                        size_t body_begin, size_t body_end) {
    // `def NAME(params):` -> parse `NAME(params)` as a call.
    std::string header = logical_lines(line_text(head));
    size_t colon = header.find_last_not_of(' ');
    if (colon == std::string::npos || header[colon] != ':')
      throw Error(ErrorKind::Syntax, span(head), "expected `:` at the end of the `def` line");
    std::string call_text = std::string(3, ' ') + header.substr(3, colon - 3);
    ast::ExprPtr call_expr = parse_python_expression(call_text, TextOrigin(&file_, head.begin));
    const auto* call = std::get_if<ast::Call>(&call_expr->node);
    if (!call || call->method || !call->keywords.empty())
      throw Error(ErrorKind::Syntax, call_expr->span, "expected `name(parameter, ...)`");
    ast::Function f;
    f.name = call->callee;
    for (const ast::ExprPtr& p : call->args) {
      const auto* name = std::get_if<ast::Name>(&p->node);
      if (!name)
        throw Error(ErrorKind::Syntax, p->span, "a parameter is a name");
      f.params.push_back({"", name->id, p->span});
    }
    if (body_begin == body_end)
      throw Error(ErrorKind::Syntax, span(head), "the function has no body");
    uint32_t indent = lines[body_begin].indent;
    for (size_t i = body_begin; i < body_end; ++i) {
      const LogicalLine& l = lines[i];
      if (l.indent != indent)
        throw Error(ErrorKind::Syntax, span(l),
                    l.indent > indent ? "unexpected indentation"
                                      : "indentation does not match the function body");
      std::string text = logical_lines(line_text(l));
      if (!text.empty() && text.back() == ':')
        throw Error(ErrorKind::Unsupported, span(l),
                    "nested blocks (if, for, ...) are not supported in a Tile function");
      ast::Program stmt = parse_python(text, TextOrigin(&file_, l.begin));
      for (ast::StmtPtr& s : stmt.statements)
        f.body.push_back(std::move(s));
    }
    Span whole{&file_, head.begin, lines[body_end - 1].end};
    return std::make_shared<const ast::Stmt>(ast::Stmt{whole, std::move(f)});
  }

  const core::SourceFile& file_;
  std::string_view text_;
};

} // namespace

ast::Program read_tile(const core::SourceFile& file) {
  std::vector<LogicalLine> lines = logical_line_ranges(file.text());
  bool python =
      !lines.empty() && starts_with_def(std::string_view(file.text()).substr(lines[0].begin));
  ast::Program program =
      python ? PythonReader(file).read() : parse_cpp(file.text(), TextOrigin(&file, uint32_t{0}));
  program.file = &file;
  return program;
}

} // namespace teval::parser
