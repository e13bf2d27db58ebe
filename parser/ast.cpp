// The one AST: operator spellings and the S-expression dump.
#include "parser/ast.h"

#include "core/error.h"

namespace teval::ast {

namespace {

// Calls \p f on each child pointer of \p e (an Expr or a const Expr), in
// source order: the one place that knows which fields hold children.
template <class E, class F> void for_each_child(E& e, F&& f) {
  std::visit(
      [&](auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, Unary>) {
          f(n.operand);
        } else if constexpr (std::is_same_v<T, Binary>) {
          f(n.lhs);
          f(n.rhs);
        } else if constexpr (std::is_same_v<T, Subscript>) {
          f(n.base);
          for (auto& i : n.indices)
            f(i);
        } else if constexpr (std::is_same_v<T, Call>) {
          for (auto& a : n.args)
            f(a);
          for (auto& k : n.keywords)
            f(k.value);
        } else if constexpr (std::is_same_v<T, List> || std::is_same_v<T, Tuple>) {
          for (auto& i : n.items)
            f(i);
        } else if constexpr (std::is_same_v<T, Dict>) {
          for (auto& [k, v] : n.items) {
            f(k);
            f(v);
          }
        }
      },
      e.node);
}

// The children of the trees being freed on this thread, while the
// outermost destructor runs.
thread_local std::vector<ExprPtr>* pending = nullptr;

} // namespace

// The outermost destructor frees the tree from a work list; the nodes it
// frees, destroyed inside it, only hand their children to the list, so the
// stack never holds more than two destructor frames.
Expr::~Expr() {
  std::vector<ExprPtr> work;
  std::vector<ExprPtr>& into = pending ? *pending : work;
  for_each_child(*this, [&](ExprPtr& c) {
    if (c)
      into.push_back(std::move(c));
  });
  if (pending)
    return;
  pending = &work;
  while (!work.empty()) {
    ExprPtr e = std::move(work.back());
    work.pop_back();
    e.reset();
  }
  pending = nullptr;
}

std::string_view spelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Plus:
    return "+";
  case UnaryOp::Invert:
    return "~";
  case UnaryOp::Not:
    return "not";
  }
  TEVAL_UNREACHABLE("unknown unary operator");
}

std::string_view spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "//";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Pow:
    return "**";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  case BinaryOp::LogicalAnd:
    return "&&";
  case BinaryOp::LogicalOr:
    return "||";
  }
  TEVAL_UNREACHABLE("unknown binary operator");
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

namespace {

std::string list(std::string head, const std::vector<ExprPtr>& items) {
  for (const ExprPtr& e : items)
    head += " " + dump(*e);
  return "(" + head + ")";
}

std::string node(const Name& n) {
  return n.id;
}
std::string node(const IntLit& n) {
  return n.text;
}
std::string node(const FloatLit& n) {
  return n.text;
}
std::string node(const StringLit& n) {
  return (n.formatted ? "f" : "") + quote(n.value);
}
std::string node(const Unary& n) {
  return "(" + std::string(spelling(n.op)) + " " + dump(*n.operand) + ")";
}
std::string node(const Binary& n) {
  return "(" + std::string(spelling(n.op)) + " " + dump(*n.lhs) + " " + dump(*n.rhs) + ")";
}
std::string node(const Subscript& n) {
  return list("sub " + dump(*n.base), n.indices);
}
std::string node(const Call& n) {
  std::string out = list((n.method ? "." : "") + n.callee, n.args);
  out.pop_back();
  for (const Keyword& k : n.keywords)
    out += " :" + k.name + " " + dump(*k.value);
  return out + ")";
}
std::string node(const List& n) {
  return list("list", n.items);
}
std::string node(const Tuple& n) {
  return list("tuple", n.items);
}
std::string node(const Dict& n) {
  std::string out = "(dict";
  for (const auto& [k, v] : n.items)
    out += " (" + dump(*k) + " " + dump(*v) + ")";
  return out + ")";
}

std::string stmt(const Stmt& s);

std::string block(const std::vector<StmtPtr>& body) {
  std::string out;
  for (const StmtPtr& s : body)
    out += " " + stmt(*s);
  return out;
}

std::string stmt(const Stmt& s) {
  return std::visit(
      [](const auto& n) -> std::string {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, Assign>) {
          std::string out = "(" + n.op + " " + dump(*n.target) + " " + dump(*n.value);
          for (const Where& w : n.where)
            out += " (in " + w.axis + " " + dump(*w.extent) + ")";
          return out + ")";
        } else if constexpr (std::is_same_v<T, ExprStmt>) {
          return dump(*n.expr);
        } else if constexpr (std::is_same_v<T, Return>) {
          return "(return " + (n.value ? dump(*n.value) : std::string()) + ")";
        } else if constexpr (std::is_same_v<T, Declare>) {
          std::string out = "(decl " + quote(n.type) + " " + n.name;
          for (const ExprPtr& a : n.ctor_args)
            out += " " + dump(*a);
          if (n.init)
            out += " = " + dump(*n.init);
          return out + ")";
        } else if constexpr (std::is_same_v<T, Function>) {
          std::string out = "(def " + n.name + " (";
          for (size_t i = 0; i < n.params.size(); ++i) {
            out += (i ? " " : "") + n.params[i].name;
            if (n.params[i].type_expr)
              out += ":" + dump(*n.params[i].type_expr);
          }
          out += ")";
          if (n.result_type)
            out += " -> " + dump(*n.result_type);
          return out + block(n.body) + ")";
        } else {
          static_assert(std::is_same_v<T, Loop>);
          return "(for " + n.var + " " + dump(*n.begin) + " " + dump(*n.end) + block(n.body) + ")";
        }
      },
      s.node);
}

} // namespace

uint32_t depth_over_children(const Expr& e) {
  uint32_t deepest = 0;
  for_each_child(e, [&](const ExprPtr& c) {
    if (c)
      deepest = std::max(deepest, c->depth);
  });
  return deepest + 1;
}

const Expr* deeper_than(const Expr& e, size_t limit) {
  std::vector<std::pair<const Expr*, size_t>> stack = {{&e, 1}};
  std::vector<const Expr*> children;
  while (!stack.empty()) {
    auto [x, depth] = stack.back();
    stack.pop_back();
    if (depth > limit)
      return x;
    // Pushed in reverse, so children are visited in source order.
    children.clear();
    for_each_child(*x, [&](const ExprPtr& c) {
      if (c)
        children.push_back(c.get());
    });
    for (auto it = children.rbegin(); it != children.rend(); ++it)
      stack.emplace_back(*it, depth + 1);
  }
  return nullptr;
}

void for_each_expr(const Expr& e, const std::function<void(const Expr&)>& f) {
  f(e);
  for_each_child(e, [&](const ExprPtr& c) { for_each_expr(*c, f); });
}

ExprPtr rename(const ExprPtr& e, const std::map<std::string, std::string>& names) {
  bool changed = false;
  auto sub = [&](const ExprPtr& x) {
    ExprPtr r = rename(x, names);
    changed = changed || r != x;
    return r;
  };
  auto subs = [&](const std::vector<ExprPtr>& xs) {
    std::vector<ExprPtr> out;
    for (const ExprPtr& x : xs)
      out.push_back(sub(x));
    return out;
  };
  Expr copy{e->span, e->node};
  std::visit(
      [&](auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, Name>) {
          if (auto it = names.find(n.id); it != names.end()) {
            n.id = it->second;
            changed = true;
          }
        } else if constexpr (std::is_same_v<T, Unary>) {
          n.operand = sub(n.operand);
        } else if constexpr (std::is_same_v<T, Binary>) {
          n.lhs = sub(n.lhs);
          n.rhs = sub(n.rhs);
        } else if constexpr (std::is_same_v<T, Subscript>) {
          n.base = sub(n.base);
          n.indices = subs(n.indices);
        } else if constexpr (std::is_same_v<T, Call>) {
          n.args = subs(n.args);
          for (Keyword& k : n.keywords)
            k.value = sub(k.value);
        } else if constexpr (std::is_same_v<T, List> || std::is_same_v<T, Tuple>) {
          n.items = subs(n.items);
        } else if constexpr (std::is_same_v<T, Dict>) {
          for (auto& [k, v] : n.items) {
            k = sub(k);
            v = sub(v);
          }
        }
      },
      copy.node);
  return changed ? std::make_shared<const Expr>(std::move(copy)) : e;
}

std::string dump(const Expr& e) {
  return std::visit([](const auto& n) { return node(n); }, e.node);
}

std::string dump(const Program& p) {
  std::string out;
  for (const StmtPtr& s : p.statements)
    out += stmt(*s) + "\n";
  return out;
}

} // namespace teval::ast
