// Reducing a failing program (see shrink.h).
#include "verify/shrink.h"

#include "core/error.h"
#include "parser/antares/antares_source.h"
#include "parser/ast.h"
#include "parser/tile/tile_source.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <set>

namespace teval::verify {

namespace {

using Clock = std::chrono::steady_clock;

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The identifiers of \p text outside strings (backticks and quotes).
std::set<std::string> identifiers(const std::string& text) {
  std::set<std::string> out;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '`' || c == '"' || c == '\'') {
      size_t end = text.find(c, i + 1);
      i = end == std::string::npos ? text.size() : end + 1;
      continue;
    }
    if (ident_start(c)) {
      size_t j = i;
      while (j < text.size() && ident_char(text[j]))
        ++j;
      out.insert(text.substr(i, j - i));
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < text.size() && (ident_char(text[i]) || text[i] == '.'))
        ++i;
      continue;
    }
    ++i;
  }
  return out;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n");
  size_t e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string join_statements(const std::vector<std::string>& statements) {
  std::string s;
  for (size_t i = 0; i < statements.size(); ++i)
    s += (i ? "; " : "") + statements[i];
  return s;
}

// The tensor a statement writes: the identifier it starts with.
std::string written_tensor(const std::string& statement) {
  size_t j = 0;
  while (j < statement.size() && ident_char(statement[j]))
    ++j;
  return statement.substr(0, j);
}

// Inputs no longer read and extra outputs no longer written go.
Program tidy(Program p) {
  if (p.lang != "antares")
    return p;
  std::set<std::string> used = identifiers(p.text);
  std::erase_if(p.inputs, [&](const auto& in) { return !used.count(in.first); });
  std::set<std::string> written;
  for (const std::string& s : antares_statements(p.text))
    written.insert(written_tensor(s));
  std::erase_if(p.extra_outputs, [&](const std::string& o) { return !written.count(o); });
  return p;
}

// Each statement dropped; a later statement's read of its tensor becomes a
// read of an input of the same type.
void drop_statements(const Program& p, std::vector<Program>& out) {
  if (p.lang != "antares")
    return;
  std::vector<std::string> statements = antares_statements(p.text);
  if (statements.size() < 2)
    return;
  std::shared_ptr<const core::SourceFile> keep;
  core::Kernel k;
  try {
    k = elaborate(p, keep);
  } catch (const core::Error&) {
    return;
  }
  for (size_t j = statements.size(); j-- > 0;) {
    Program c = p;
    std::vector<std::string> rest = statements;
    std::string name = written_tensor(rest[j]);
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(j));
    c.text = join_statements(rest);
    if (identifiers(c.text).count(name)) {
      auto it = std::find_if(k.tensors.begin(), k.tensors.end(),
                             [&](const core::TensorDecl& t) { return t.name == name; });
      if (it == k.tensors.end())
        continue;
      c.inputs.push_back({name, {it->dtype, it->shape, {}}});
    }
    out.push_back(tidy(std::move(c)));
  }
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines)
    s += l + "\n";
  return s;
}

// The identifiers of a generated Tile function's lines other than those
// \p skip accepts.
std::set<std::string> identifiers_except(const std::vector<std::string>& lines,
                                         const std::function<bool(const std::string&)>& skip) {
  std::set<std::string> used;
  for (const std::string& l : lines)
    if (!skip(l))
      used.merge(identifiers(l));
  return used;
}

// `A, B` with \p name removed from the comma-separated list after \p head
// (`  TensorDim `, `  TensorIndex `, up to `;`), or the empty string when
// nothing is left.
std::string without_item(const std::string& line, const std::string& head,
                         const std::set<std::string>& names) {
  std::string list = line.substr(head.size(), line.rfind(';') - head.size());
  std::string kept;
  for (size_t start = 0; start <= list.size();) {
    size_t end = list.find(',', start);
    if (end == std::string::npos)
      end = list.size();
    std::string item = trim(list.substr(start, end - start));
    if (!item.empty() && !names.count(item))
      kept += (kept.empty() ? "" : ", ") + item;
    start = end + 1;
  }
  return kept.empty() ? "" : head + kept + ";";
}

// Tile (the generator's one function, a statement per line): a
// contraction whose result an elementwise statement reads is dropped, its
// result made an input of the same type; index variables and dimensions
// nothing uses any more go with it.
void drop_tile_contractions(const Program& p, std::vector<Program>& out) {
  if (p.lang != "tile")
    return;
  std::vector<std::string> lines = split_lines(p.text);
  std::shared_ptr<const core::SourceFile> keep;
  core::Kernel k;
  try {
    k = elaborate(p, keep);
  } catch (const core::Error&) {
    return;
  }
  const std::string output_head = "  auto ";
  for (const std::string& line : lines) {
    size_t at = line.find(" = TensorOutput(");
    if (!line.starts_with(output_head) || at == std::string::npos)
      continue;
    std::string name = line.substr(output_head.size(), at - output_head.size());
    auto own = [&](const std::string& l) {
      return l.starts_with("  " + name + "(") || l.starts_with("  " + name + ".add_constraint(") ||
             l == line;
    };
    std::set<std::string> used = identifiers_except(
        lines, [&](const std::string& l) { return own(l) || l.starts_with("Tensor "); });
    auto it = std::find_if(k.tensors.begin(), k.tensors.end(),
                           [&](const core::TensorDecl& t) { return t.name == name; });
    if (!used.count(name) || it == k.tensors.end() || lines.empty())
      continue;
    std::vector<std::string> rest;
    for (const std::string& l : lines)
      if (!own(l))
        rest.push_back(l);
    rest[0].insert(rest[0].find('(') + 1, "const Tensor& " + name + ", ");
    // Index variables no statement uses any more.
    std::set<std::string> left = identifiers_except(
        rest, [](const std::string& l) { return l.starts_with("  TensorIndex "); });
    for (std::string& l : rest)
      if (l.starts_with("  TensorIndex ")) {
        std::set<std::string> unused;
        for (const std::string& v : identifiers(l.substr(14)))
          if (!left.count(v))
            unused.insert(v);
        l = without_item(l, "  TensorIndex ", unused);
      }
    std::erase(rest, "");
    Program c = p;
    c.text = join_lines(rest);
    c.inputs.push_back({name, {it->dtype, it->shape, {}}});
    out.push_back(std::move(c));
  }
}

// Tile: an elementwise definition the function returns is dropped, the
// function returning the contraction's result instead.
void drop_tile_epilogues(const Program& p, std::vector<Program>& out) {
  if (p.lang != "tile")
    return;
  std::vector<std::string> lines = split_lines(p.text);
  std::string output;
  for (const std::string& l : lines)
    if (size_t at = l.find(" = TensorOutput("); l.starts_with("  auto ") && at != std::string::npos)
      output = l.substr(7, at - 7);
  if (output.empty())
    return;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    size_t at = l.find(" = ");
    if (!l.starts_with("  auto ") || at == std::string::npos ||
        l.find(" = TensorOutput(") != std::string::npos)
      continue;
    std::string name = l.substr(7, at - 7);
    std::vector<std::string> rest;
    for (size_t j = 0; j < lines.size(); ++j)
      if (j != i)
        rest.push_back(lines[j] == "  return " + name + ";" ? "  return " + output + ";"
                                                            : lines[j]);
    Program c = p;
    c.text = join_lines(rest);
    out.push_back(std::move(c));
  }
}

// Tile: a tensor parameter nothing reads any more (but its bind_dims, of
// dimensions nothing uses) is dropped.
void drop_tile_inputs(const Program& p, std::vector<Program>& out) {
  if (p.lang != "tile")
    return;
  std::vector<std::string> lines = split_lines(p.text);
  if (lines.empty())
    return;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const std::string& name = p.inputs[i].first;
    std::string bind = "  " + name + ".bind_dims(";
    std::set<std::string> dims;
    for (const std::string& l : lines)
      if (l.starts_with(bind))
        dims = identifiers(l.substr(bind.size()));
    std::set<std::string> used = identifiers_except(lines, [&](const std::string& l) {
      return l.starts_with("Tensor ") || l.starts_with("  TensorDim ") || l.starts_with(bind);
    });
    if (used.count(name) ||
        std::any_of(dims.begin(), dims.end(), [&](const std::string& d) { return used.count(d); }))
      continue;
    std::vector<std::string> rest;
    for (const std::string& l : lines) {
      if (l.starts_with(bind))
        continue;
      rest.push_back(l.starts_with("  TensorDim ") ? without_item(l, "  TensorDim ", dims) : l);
    }
    std::erase(rest, "");
    std::string param = "const Tensor& " + name;
    std::string& head = rest[0];
    if (size_t at = head.find(param + ", "); at != std::string::npos)
      head.erase(at, param.size() + 2);
    else if (size_t at2 = head.find(", " + param); at2 != std::string::npos)
      head.erase(at2, param.size() + 2);
    else if (size_t at3 = head.find(param); at3 != std::string::npos)
      head.erase(at3, param.size());
    Program c = p;
    c.text = join_lines(rest);
    c.inputs.erase(c.inputs.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(std::move(c));
  }
}

void drop_extra_outputs(const Program& p, std::vector<Program>& out) {
  for (size_t i = 0; i < p.extra_outputs.size(); ++i) {
    Program c = p;
    c.extra_outputs.erase(c.extra_outputs.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(tidy(std::move(c)));
  }
}

bool atomic_text(const std::string& s) {
  for (char c : s)
    if (!ident_char(c) && c != '.' && c != '[' && c != ']' && c != ',' && c != '`')
      return false;
  return true;
}

// Each expression replaced by one of its operands, or a read by a
// constant; each item of a condition list dropped.
void simplify_expressions(const Program& p, std::vector<Program>& out) {
  auto file = core::SourceFile::make("<shrink>", p.text);
  std::vector<const ast::Expr*> roots;
  ast::Program tree;
  try {
    if (p.lang == "tile") {
      tree = parser::read_tile(*file);
    } else {
      tree = parser::read_antares(*file).program;
    }
  } catch (const core::Error&) {
    return;
  }
  std::vector<std::pair<const ast::Expr*, bool>> exprs; // (node, on a value side)
  std::function<void(const std::vector<ast::StmtPtr>&)> collect =
      [&](const std::vector<ast::StmtPtr>& body) {
        for (const ast::StmtPtr& s : body) {
          if (const auto* a = std::get_if<ast::Assign>(&s->node)) {
            if (a->value)
              ast::for_each_expr(*a->value, [&](const ast::Expr& e) {
                exprs.push_back({&e, true});
              });
            for (const ast::Where& w : a->where)
              if (w.extent)
                ast::for_each_expr(*w.extent, [&](const ast::Expr& e) {
                  exprs.push_back({&e, false});
                });
          } else if (const auto* f = std::get_if<ast::Function>(&s->node)) {
            collect(f->body);
          } else if (const auto* d = std::get_if<ast::Declare>(&s->node)) {
            if (d->init)
              ast::for_each_expr(*d->init, [&](const ast::Expr& e) {
                exprs.push_back({&e, true});
              });
          } else if (const auto* r = std::get_if<ast::Return>(&s->node)) {
            (void)r;
          }
        }
      };
  collect(tree.statements);
  // Index variables: each `where` entry dropped, each output index dropped
  // with its where entry; a reduction made a plain assignment.
  for (const ast::StmtPtr& st : tree.statements) {
    const auto* a = std::get_if<ast::Assign>(&st->node);
    if (!a || !st->span.valid() || st->span.file != file.get())
      continue;
    auto with_where = [&](const std::string& head, std::optional<size_t> skip) {
      std::string w;
      for (size_t i = 0; i < a->where.size(); ++i)
        if (!skip || i != *skip)
          w += (w.empty() ? " where " : ", ") + a->where[i].axis + " in " +
               std::string(a->where[i].extent->span.text());
      Program c = p;
      c.text = p.text.substr(0, st->span.begin) + head + w + p.text.substr(st->span.end);
      if (c.text != p.text)
        out.push_back(tidy(std::move(c)));
    };
    if (!a->target || !a->value || !a->value->span.valid())
      continue;
    std::string value(a->value->span.text());
    std::string target(a->target->span.text());
    for (size_t i = 0; i < a->where.size(); ++i)
      with_where(target + " " + a->op + " " + value, i);
    if (value != "1.0")
      with_where(target + " " + a->op + " 1.0", std::nullopt);
    if (a->op != "=" && a->op.ends_with("!"))
      with_where(target + " = " + value, std::nullopt);
    const auto* sub = std::get_if<ast::Subscript>(&a->target->node);
    if (!sub || !sub->base || !sub->base->span.valid())
      continue;
    for (size_t i = 0; i < sub->indices.size(); ++i) {
      std::string t = std::string(sub->base->span.text()) + "[";
      for (size_t j = 0, n = 0; j < sub->indices.size(); ++j)
        if (j != i)
          t += (n++ ? ", " : "") + std::string(sub->indices[j]->span.text());
      t += "]";
      std::optional<size_t> where;
      if (const auto* axis = ast::as_name(*sub->indices[i]))
        for (size_t w = 0; w < a->where.size(); ++w)
          if (a->where[w].axis == axis->id)
            where = w;
      with_where(t + " " + a->op + " " + value, where);
    }
  }
  auto replace = [&](const ast::Expr& e, const std::string& with) {
    if (!e.span.valid() || e.span.file != file.get() || e.span.end > p.text.size())
      return;
    Program c = p;
    c.text = p.text.substr(0, e.span.begin) + with + p.text.substr(e.span.end);
    if (c.text != p.text)
      out.push_back(tidy(std::move(c)));
  };
  auto text_of = [&](const ast::ExprPtr& e) -> std::string {
    if (!e || !e->span.valid() || e->span.file != file.get())
      return "";
    std::string t(e->span.text());
    return atomic_text(t) ? t : "(" + t + ")";
  };
  for (const auto& [e, value_side] : exprs) {
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, ast::Binary>) {
            replace(*e, text_of(n.lhs));
            replace(*e, text_of(n.rhs));
          } else if constexpr (std::is_same_v<T, ast::Unary>) {
            replace(*e, text_of(n.operand));
          } else if constexpr (std::is_same_v<T, ast::Call>) {
            for (const ast::ExprPtr& a : n.args)
              if (!ast::as_string(*a))
                replace(*e, text_of(a));
          } else if constexpr (std::is_same_v<T, ast::Subscript>) {
            if (value_side) {
              replace(*e, "1.0");
              replace(*e, "1");
              replace(*e, "0");
            }
          } else if constexpr (std::is_same_v<T, ast::FloatLit>) {
            if (n.text != "1.0")
              replace(*e, "1.0");
          } else if constexpr (std::is_same_v<T, ast::List>) {
            for (size_t i = 0; n.items.size() > 1 && i < n.items.size(); ++i) {
              std::string s = "[";
              for (size_t j = 0, w = 0; j < n.items.size(); ++j)
                if (j != i)
                  s += (w++ ? ", " : "") + std::string(n.items[j]->span.text());
              replace(*e, s + "]");
            }
          }
        },
        e->node);
  }
}

// Each integer literal made smaller: 0, 1, half, one less.
void smaller_numbers(const Program& p, std::vector<Program>& out) {
  const std::string& t = p.text;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '`' || t[i] == '"') {
      size_t end = t.find(t[i], i + 1);
      if (end == std::string::npos)
        return;
      i = end;
      continue;
    }
    if (ident_char(t[i]) && !std::isdigit(static_cast<unsigned char>(t[i]))) {
      while (i + 1 < t.size() && ident_char(t[i + 1]))
        ++i;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(t[i])) || (i > 0 && t[i - 1] == '.'))
      continue;
    size_t j = i;
    while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j])))
      ++j;
    bool integer =
        j >= t.size() || (t[j] != '.' && t[j] != 'e' && t[j] != 'E' && !ident_char(t[j]));
    if (integer && j - i < 10) {
      int64_t n = std::stoll(t.substr(i, j - i));
      std::set<int64_t> tried;
      for (int64_t m : {int64_t{0}, int64_t{1}, n / 2, n - 1}) {
        if (m < 0 || m >= n || !tried.insert(m).second)
          continue;
        Program c = p;
        c.text = t.substr(0, i) + std::to_string(m) + t.substr(j);
        out.push_back(std::move(c));
      }
    }
    i = j - 1;
  }
}

// Each pair of parentheses that is not a call's dropped.
void fewer_parentheses(const Program& p, std::vector<Program>& out) {
  const std::string& t = p.text;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '(')
      continue;
    size_t b = i;
    while (b > 0 && t[b - 1] == ' ')
      --b;
    if (b > 0 && (ident_char(t[b - 1]) || t[b - 1] == ')' || t[b - 1] == ']'))
      continue; // a call
    int depth = 0;
    size_t j = i;
    for (; j < t.size(); ++j) {
      depth += t[j] == '(' ? 1 : t[j] == ')' ? -1 : 0;
      if (depth == 0)
        break;
    }
    if (j >= t.size())
      return;
    Program c = p;
    c.text = t.substr(0, i) + t.substr(i + 1, j - i - 1) + t.substr(j + 1);
    out.push_back(std::move(c));
  }
}

// Each input dimension made smaller: 1, half, one less, 0.
void smaller_shapes(const Program& p, std::vector<Program>& out) {
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const core::Shape& shape = p.inputs[i].second.shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t n = shape[d];
      std::set<int64_t> tried;
      for (int64_t m : {int64_t{1}, n / 2, n - 1, int64_t{0}}) {
        if (m < 0 || m >= n || !tried.insert(m).second)
          continue;
        Program c = p;
        c.inputs[i].second.shape[d] = m;
        out.push_back(std::move(c));
      }
    }
  }
}

} // namespace

std::vector<std::string> antares_statements(const std::string& text) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ';';
    if (c == '`' || c == '"' || c == '\'') {
      size_t end = text.find(c, i + 1);
      i = end == std::string::npos ? text.size() - 1 : end;
      continue;
    }
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (c == ';' && depth <= 0) {
      std::string s = trim(text.substr(start, i - start));
      if (!s.empty())
        out.push_back(s);
      start = i + 1;
    }
  }
  return out;
}

int statement_count(const Program& p) {
  if (p.lang == "antares")
    return static_cast<int>(antares_statements(p.text).size());
  if (p.lang == "mlir") { // its ops: the lines that define a value
    int n = 0;
    for (size_t at = p.text.find("\n  %"); at != std::string::npos;
         at = p.text.find("\n  %", at + 1))
      ++n;
    return n;
  }
  // A Tile function: the statements that assign (contractions and
  // elementwise definitions), not its declarations, binds and return.
  auto file = core::SourceFile::make("<count>", p.text);
  int n = 0;
  try {
    for (const ast::StmtPtr& s : parser::read_tile(*file).statements) {
      const auto* f = std::get_if<ast::Function>(&s->node);
      if (!f)
        continue;
      for (const ast::StmtPtr& b : f->body) {
        if (std::holds_alternative<ast::Assign>(b->node)) {
          ++n;
        } else if (const auto* d = std::get_if<ast::Declare>(&b->node); d && d->init) {
          // `auto O = TensorOutput(...)` declares an output; other
          // initialised declarations compute.
          const ast::Call* call = ast::as_call(*d->init);
          n += !(call && call->callee == "TensorOutput");
        }
      }
    }
  } catch (const core::Error&) {
  }
  return n;
}

std::vector<Program> shrink_candidates(const Program& p) {
  std::vector<Program> out;
  drop_statements(p, out);
  drop_tile_contractions(p, out);
  drop_tile_epilogues(p, out);
  drop_tile_inputs(p, out);
  drop_extra_outputs(p, out);
  simplify_expressions(p, out);
  fewer_parentheses(p, out);
  smaller_numbers(p, out);
  smaller_shapes(p, out);
  return out;
}

ShrinkResult shrink(const Program& p, const std::function<bool(const Program&)>& still_fails,
                    const ShrinkLimits& limits) {
  ShrinkResult r{p, 0, 0};
  // The edits read Antares and Tile text; an MLIR function shrinks only
  // through its generator's choices (fewer ops, smaller shapes).
  if (p.lang == "mlir")
    return r;
  auto start = Clock::now();
  std::set<std::string> seen{source(p) + "\n" + std::to_string(p.inputs.size())};
  for (bool progress = true; progress;) {
    progress = false;
    for (Program& c : shrink_candidates(r.program)) {
      if (r.attempts >= limits.max_attempts || Clock::now() - start >= limits.max_time)
        return r;
      std::string key = source(c);
      for (const auto& [name, type] : c.inputs)
        key += "\n" + name + core::to_string(type.shape);
      if (!seen.insert(key).second)
        continue;
      ++r.attempts;
      if (still_fails(c)) {
        r.program = std::move(c);
        ++r.steps;
        progress = true;
        break;
      }
    }
  }
  return r;
}

} // namespace teval::verify
