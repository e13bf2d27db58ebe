// REPL statements: Antares einstein_v2 programs and Tile statements,
// elaborated against the session's tensors.
#include "core/error.h"
#include "parser/antares/antares.h"
#include "parser/antares/antares_lowering.h"
#include "parser/cpp_grammar.h"
#include "parser/python_grammar.h"
#include "parser/text.h"
#include "parser/tile/tile.h"
#include "tools/teval/cli_support.h"
#include "tools/teval/repl_session.h"

#include <set>

namespace teval::tools::repl {

using core::Error;
using core::ErrorKind;
using core::Span;

namespace {

// How a statement reads a session tensor that the same entry defines
// anew: under this name, with the value from before the entry.
std::string previous_name(const std::string& name) {
  return name + "'";
}

std::string type_text(const core::TensorDecl& t) {
  return tools::type_text(t.dtype, t.shape);
}

// The tensor an Antares statement writes: the base of its target.
const ast::Name* antares_target(const ast::Assign& a) {
  const auto* s = std::get_if<ast::Subscript>(&a.target->node);
  return s ? ast::as_name(*s->base) : nullptr;
}

bool is_scatter(const ast::Assign& a) {
  return !a.op.empty() && a.op.back() == '.';
}

// The tensor names an expression reads (bases of subscripts, not axes).
void tensors_read(const ast::Expr& e, std::vector<const ast::Expr*>& out) {
  ast::for_each_expr(e, [&](const ast::Expr& x) {
    const auto* s = std::get_if<ast::Subscript>(&x.node);
    const ast::Name* base = s ? ast::as_name(*s->base) : nullptr;
    if (base && !parser::antares::is_axis_name(base->id))
      out.push_back(s->base.get());
  });
}

std::string unknown_tensor(const std::string& name) {
  return "unknown tensor `" + name + "`; define it first, as in `" + name +
         " = float32[4, 8]` or `" + name + " = load(\"" + name + ".npy\")`";
}

} // namespace

Outcome Session::statements(const std::shared_ptr<const core::SourceFile>& entry) {
  return lang_ == Lang::Antares ? antares(entry, false) : tile(entry, false);
}

Outcome Session::antares(const std::shared_ptr<const core::SourceFile>& entry, bool type_only) {
  parser::AntaresSource source;
  try {
    source = parser::read_antares(*entry);
  } catch (const Error& e) {
    // `:type` also takes a bare right-hand side.
    if (!type_only || e.kind() != ErrorKind::Syntax)
      throw;
    try {
      return antares_expression_type(entry);
    } catch (const Error& inner) {
      if (inner.kind() == ErrorKind::Syntax)
        throw e;
      throw;
    }
  }
  // A session tensor named like an axis (a Tile result `C`) cannot be read:
  // in Antares an upper-case initial makes a name an axis.
  for (const ast::StmtPtr& s : source.program.statements)
    ast::for_each_expr(*std::get<ast::Assign>(s->node).value, [&](const ast::Expr& x) {
      const auto* sub = std::get_if<ast::Subscript>(&x.node);
      const ast::Name* base = sub ? ast::as_name(*sub->base) : nullptr;
      if (base && parser::antares::is_axis_name(base->id) && vars_.count(base->id)) {
        std::string lower = base->id;
        lower[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(lower[0])));
        throw Error(ErrorKind::Name, sub->base->span,
                    "`" + base->id +
                        "` is a session tensor, but in Antares a name with an upper-case "
                        "initial is an axis, so it cannot be read; copy it to a lower-case "
                        "name first: `" +
                        lower + " = " + base->id + "`");
      }
    });
  std::map<std::string, parser::InputType> inputs = parser::declared_inputs(source);
  for (const auto& [name, v] : vars_) {
    auto declared = inputs.find(name);
    if (declared == inputs.end()) {
      inputs[name] = {v.value.dtype(), v.value.shape(), {}};
      continue;
    }
    if (declared->second.dtype != v.value.dtype() || declared->second.shape != v.value.shape())
      throw Error(ErrorKind::Shape, declared->second.span,
                  "input_dict declares `" + name + "` as " +
                      tools::type_text(declared->second.dtype, declared->second.shape) +
                      " but the session's `" + name + "` is " +
                      tools::type_text(v.value.dtype(), v.value.shape()));
  }

  // Every statement's tensor becomes a session tensor, so each is an output.
  std::vector<std::string> order;
  std::set<std::string> defined_later;
  for (const ast::StmtPtr& s : source.program.statements) {
    const auto& a = std::get<ast::Assign>(s->node);
    const ast::Name* target = antares_target(a);
    if (!target)
      continue; // the elaborator reports it
    if (std::find(order.begin(), order.end(), target->id) == order.end()) {
      order.push_back(target->id);
      source.extra_outputs.push_back({target->id, a.target->span});
    }
    if (!is_scatter(a) && vars_.count(target->id))
      defined_later.insert(target->id);
  }

  // A statement that defines a session tensor anew reads the old value (as
  // do the statements before it): `x[N] = x[N] * 2` doubles x.
  std::map<std::string, std::string> renamed;
  std::set<std::string> defined;
  ast::Program program;
  for (const ast::StmtPtr& s : source.program.statements) {
    ast::Assign a = std::get<ast::Assign>(s->node);
    std::map<std::string, std::string> here;
    for (const std::string& name : defined_later)
      if (!defined.count(name))
        here[name] = previous_name(name);
    std::vector<const ast::Expr*> reads;
    tensors_read(*a.value, reads);
    for (const ast::Where& w : a.where)
      tensors_read(*w.extent, reads);
    if (const auto* target = std::get_if<ast::Subscript>(&a.target->node))
      for (const ast::ExprPtr& i : target->indices)
        tensors_read(*i, reads);
    for (const ast::Expr* r : reads) {
      const std::string& id = ast::as_name(*r)->id;
      if (!inputs.count(id) && !defined.count(id) && !here.count(id))
        throw Error(ErrorKind::Name, r->span, unknown_tensor(id));
      if (here.count(id))
        renamed[id] = here[id];
    }
    if (!here.empty()) {
      a.value = ast::rename(a.value, here);
      for (ast::Where& w : a.where)
        w.extent = ast::rename(w.extent, here);
      if (const auto* target = std::get_if<ast::Subscript>(&a.target->node)) {
        ast::Subscript t = *target;
        for (ast::ExprPtr& i : t.indices)
          i = ast::rename(i, here);
        a.target = std::make_shared<const ast::Expr>(ast::Expr{a.target->span, t});
      }
    }
    if (const ast::Name* target = antares_target(a))
      defined.insert(target->id);
    program.statements.push_back(std::make_shared<const ast::Stmt>(ast::Stmt{s->span, a}));
  }
  source.program = std::move(program);
  for (const auto& [name, hidden] : renamed)
    inputs[hidden] = inputs.at(name);
  for (const std::string& name : defined_later)
    inputs.erase(name);

  core::Kernel kernel = parser::elaborate_antares(source, inputs);
  if (!type_only)
    return run(std::move(kernel), renamed, order, entry);
  Outcome out;
  for (const std::string& name : order)
    for (int id : kernel.outputs)
      if (kernel.tensors[id].name == name)
        out.text += name + ": " + type_text(kernel.tensors[id]) + "\n";
  return out;
}

Outcome Session::antares_expression_type(const std::shared_ptr<const core::SourceFile>& entry) {
  const std::string& text = entry->text();
  ast::ExprPtr e =
      parser::parse_python_expression(text, parser::TextOrigin(entry.get(), uint32_t{0}));
  // The result's axes: every axis the expression names, in order.
  std::vector<std::string> axes;
  std::vector<const ast::Expr*> reads;
  tensors_read(*e, reads);
  for (const ast::Expr* r : reads)
    if (!vars_.count(ast::as_name(*r)->id))
      throw Error(ErrorKind::Name, r->span, unknown_tensor(ast::as_name(*r)->id));
  ast::for_each_expr(*e, [&](const ast::Expr& x) {
    const ast::Name* n = ast::as_name(x);
    if (n && parser::antares::is_axis_name(n->id) &&
        std::find(axes.begin(), axes.end(), n->id) == axes.end())
      axes.push_back(n->id);
  });
  ast::Subscript target{std::make_shared<const ast::Expr>(ast::Expr{e->span, ast::Name{"_"}}), {}};
  for (const std::string& a : axes)
    target.indices.push_back(std::make_shared<const ast::Expr>(ast::Expr{e->span, ast::Name{a}}));
  ast::Assign assign{
      std::make_shared<const ast::Expr>(ast::Expr{e->span, target}), "=", e->span, e, {}};
  parser::AntaresSource source;
  source.program.statements.push_back(
      std::make_shared<const ast::Stmt>(ast::Stmt{e->span, assign}));
  source.program_span = e->span;
  std::map<std::string, parser::InputType> inputs;
  for (const auto& [name, v] : vars_)
    inputs[name] = {v.value.dtype(), v.value.shape(), {}};
  core::Kernel kernel = parser::elaborate_antares(source, inputs);
  const core::TensorDecl& t = kernel.tensors[kernel.outputs.at(0)];
  std::string over;
  for (const std::string& a : axes)
    over += (over.empty() ? " over " : ", ") + a;
  return {type_text(t) + over + "\n"};
}

namespace {

// Statements that declare dimensions and indices, which later Tile entries
// of the session see: `TensorDim M, N;`, `TensorIndex i;`,
// `std::vector<TensorDim> X(2);`, `M, N = TensorDims(2)`, `I.bind_dims(M)`.
bool is_tile_declaration(const ast::Stmt& s) {
  if (const auto* d = std::get_if<ast::Declare>(&s.node))
    return !d->init;
  const ast::Call* c = nullptr;
  if (const auto* a = std::get_if<ast::Assign>(&s.node); a && a->op == "=")
    c = ast::as_call(*a->value);
  else if (const auto* e = std::get_if<ast::ExprStmt>(&s.node))
    return (c = ast::as_call(*e->expr)) && c->method && c->callee == "bind_dims";
  return c && !c->method &&
         (c->callee == "TensorDims" || c->callee == "TensorIndexes" || c->callee == "TensorDim" ||
          c->callee == "TensorIndex");
}

// The name of the tensor an access `O(i)` / `O[i]` is of.
std::string accessed(const ast::Expr& e) {
  if (const ast::Call* c = ast::as_call(e); c && !c->method)
    return c->callee;
  if (const auto* s = std::get_if<ast::Subscript>(&e.node))
    if (const ast::Name* n = ast::as_name(*s->base))
      return n->id;
  return "";
}

// The tensor a Tile statement computes, or "" for an expression statement
// whose value is the result.
std::string tile_result(const ast::Stmt& s) {
  if (const auto* d = std::get_if<ast::Declare>(&s.node))
    return d->name;
  if (const auto* a = std::get_if<ast::Assign>(&s.node)) {
    if (const ast::Name* n = ast::as_name(*a->target))
      return n->id;
    return accessed(*a->target);
  }
  if (const auto* e = std::get_if<ast::ExprStmt>(&s.node)) {
    if (const auto* b = std::get_if<ast::Binary>(&e->expr->node);
        b && (b->op == ast::BinaryOp::Ge || b->op == ast::BinaryOp::Le))
      return accessed(*b->lhs);
    if (const ast::Call* c = ast::as_call(*e->expr);
        c && c->method && c->callee == "add_constraint")
      if (const ast::Name* n = ast::as_name(*c->args[0]))
        return n->id;
  }
  return "";
}

// Every name a statement mentions.
void names_in(const ast::Stmt& s, std::set<std::string>& out) {
  auto add = [&](const ast::ExprPtr& e) {
    if (e)
      ast::for_each_expr(*e, [&](const ast::Expr& x) {
        if (const ast::Name* n = ast::as_name(x))
          out.insert(n->id);
        if (const ast::Call* c = ast::as_call(x); c && !c->method)
          out.insert(c->callee); // a C++ access `A(i)`
      });
  };
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::Assign>) {
          add(n.target);
          add(n.value);
        } else if constexpr (std::is_same_v<T, ast::ExprStmt>) {
          add(n.expr);
        } else if constexpr (std::is_same_v<T, ast::Return>) {
          add(n.value);
        } else if constexpr (std::is_same_v<T, ast::Declare>) {
          add(n.init);
          for (const ast::ExprPtr& a : n.ctor_args)
            add(a);
        } else if constexpr (std::is_same_v<T, ast::Loop>) {
          add(n.begin);
          add(n.end);
          for (const ast::StmtPtr& b : n.body)
            names_in(*b, out);
        }
      },
      s.node);
}

// The statements of a Tile entry: C++ spelling when it ends with `;` or
// `}`, Python spelling otherwise.
std::vector<ast::StmtPtr> read_tile_entry(const core::SourceFile& entry) {
  const std::string& text = entry.text();
  size_t last = text.find_last_not_of(" \t\r\n");
  if (last != std::string::npos && (text[last] == ';' || text[last] == '}')) {
    // Parsed as the body of a function; the wrapper's bytes point at the
    // ends of the entry.
    parser::MappedText wrapped;
    uint32_t end = static_cast<uint32_t>(text.size());
    for (char c : std::string("Tensor entry() {\n"))
      wrapped.append(c, {0, 0});
    for (uint32_t i = 0; i < text.size(); ++i)
      wrapped.append(text[i], {i, i + 1});
    for (char c : std::string("\n}\n"))
      wrapped.append(c, {end, end});
    ast::Program p = parser::parse_cpp(wrapped.text, parser::TextOrigin(&entry, &wrapped));
    return std::get<ast::Function>(p.statements.at(0)->node).body;
  }
  std::string lines = parser::logical_lines(text);
  return parser::parse_python(lines, parser::TextOrigin(&entry, uint32_t{0})).statements;
}

} // namespace

Outcome Session::tile(const std::shared_ptr<const core::SourceFile>& entry, bool type_only) {
  std::vector<ast::StmtPtr> stmts = read_tile_entry(*entry);
  Span whole{entry.get(), 0, static_cast<uint32_t>(entry->text().size())};
  if (stmts.empty())
    return {};
  std::vector<ast::StmtPtr> body = tile_declarations_;
  std::vector<ast::StmtPtr> declarations;
  const ast::Stmt* last = nullptr;
  for (const ast::StmtPtr& s : stmts) {
    if (is_tile_declaration(*s))
      declarations.push_back(s);
    else
      last = s.get();
  }
  std::string result;
  for (const ast::StmtPtr& s : stmts) {
    if (s.get() != last || std::holds_alternative<ast::Return>(s->node)) {
      body.push_back(s);
      continue;
    }
    result = tile_result(*s);
    if (!result.empty()) {
      body.push_back(s);
      auto name = std::make_shared<const ast::Expr>(ast::Expr{s->span, ast::Name{result}});
      body.push_back(std::make_shared<const ast::Stmt>(ast::Stmt{s->span, ast::Return{name}}));
      continue;
    }
    // A bare expression is the result, named `result`. Any other statement
    // (a tuple assignment of something that is not a declaration, say) has
    // none: it is elaborated as written and reports its own errors.
    const auto* e = std::get_if<ast::ExprStmt>(&s->node);
    if (!e) {
      body.push_back(s);
      continue;
    }
    result = "result";
    body.push_back(std::make_shared<const ast::Stmt>(ast::Stmt{s->span, ast::Return{e->expr}}));
  }
  if (last && std::holds_alternative<ast::Return>(last->node)) {
    const ast::ExprPtr& v = std::get<ast::Return>(last->node).value;
    const ast::Name* n = v ? ast::as_name(*v) : nullptr;
    result = n ? n->id : "result";
  }

  std::set<std::string> names;
  for (const ast::StmtPtr& s : body)
    names_in(*s, names);
  std::map<std::string, parser::InputType> inputs;
  for (const std::string& n : names)
    if (auto it = vars_.find(n); it != vars_.end())
      inputs[n] = {it->second.value.dtype(), it->second.value.shape(), {}};
  core::Kernel kernel = parser::elaborate_tile_body(body, inputs, whole);
  if (kernel.outputs.empty()) { // declarations only
    if (!type_only) {
      tile_declarations_.insert(tile_declarations_.end(), declarations.begin(), declarations.end());
      sources_.push_back(entry);
    }
    return {};
  }
  if (type_only)
    return {result + ": " + type_text(kernel.tensors[kernel.outputs[0]]) + "\n"};
  kernel.tensors[kernel.outputs[0]].name = result;
  Outcome out = run(std::move(kernel), {}, {result}, entry);
  tile_declarations_.insert(tile_declarations_.end(), declarations.begin(), declarations.end());
  return out;
}

} // namespace teval::tools::repl
