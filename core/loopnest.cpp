// The LoopNest IR: checked constructors, substitution and the C printer.
#include "core/loopnest.h"

#include "core/error.h"
#include "core/format.h"

#include <algorithm>

namespace teval::core {

size_t storage_bytes(const Buffer& b) {
  std::optional<int64_t> numel = checked_numel(b.shape);
  TEVAL_ASSERT(numel, "a buffer's size overflows");
  return static_cast<size_t>(*numel) * size_bytes(b.dtype);
}

int LoopNest::add_var(std::string name, DType dtype, bool point) {
  vars.push_back({std::move(name), dtype, point});
  return static_cast<int>(vars.size()) - 1;
}

int LoopNest::add_buffer(Buffer b) {
  buffers.push_back(std::move(b));
  return static_cast<int>(buffers.size()) - 1;
}

namespace {

Stmt make(auto node) {
  return std::make_shared<const StmtNode>(StmtNode{std::move(node)});
}

void check_int64(const Expr& e, const char* what) {
  TEVAL_ASSERT(e && e->dtype == DType::Int64, std::string(what) + " must be an int64 expression");
}

} // namespace

Stmt make_for(int var, Expr begin, Expr end, Stmt body, LoopKind kind) {
  check_int64(begin, "a loop's begin");
  check_int64(end, "a loop's end");
  TEVAL_ASSERT(body, "a loop without a body");
  return make(For{var, std::move(begin), std::move(end), std::move(body), kind});
}

Stmt make_store(int buffer, std::vector<Expr> index, Expr value, Expr guard) {
  for (const Expr& i : index)
    TEVAL_ASSERT(i && is_integer(i->dtype), "store index of a non-integer dtype");
  TEVAL_ASSERT(value, "store without a value");
  TEVAL_ASSERT(!guard || !is_float(guard->dtype), "store guard of a floating dtype");
  return make(Store{buffer, std::move(index), std::move(value), std::move(guard)});
}

Stmt make_let(int var, Expr value, Stmt body) {
  TEVAL_ASSERT(value && body, "incomplete let");
  return make(Let{var, std::move(value), std::move(body)});
}

Stmt make_cond(Expr cond, Stmt then, Stmt otherwise) {
  TEVAL_ASSERT(cond && !is_float(cond->dtype), "condition of a floating dtype");
  TEVAL_ASSERT(then, "a condition without a statement");
  return make(Cond{std::move(cond), std::move(then), std::move(otherwise)});
}

Stmt make_block(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s)
      continue;
    if (const auto* b = std::get_if<Block>(&s->node))
      flat.insert(flat.end(), b->stmts.begin(), b->stmts.end());
    else
      flat.push_back(std::move(s));
  }
  return make(Block{std::move(flat)});
}

Stmt make_allocate(int buffer, bool zeroed) {
  return make(Allocate{buffer, zeroed});
}

Stmt make_free(int buffer) {
  return make(Free{buffer});
}

Stmt make_raise(ErrorKind kind, Span span, std::string message, std::vector<Expr> args) {
  size_t holes = 0;
  for (size_t p = message.find("{}"); p != std::string::npos; p = message.find("{}", p + 2))
    ++holes;
  TEVAL_ASSERT(holes == args.size(), "raise message and arguments disagree");
  return make(Raise{kind, span, std::move(message), std::move(args)});
}

std::string raise_message(const Raise& r, const std::vector<Scalar>& values) {
  TEVAL_ASSERT(values.size() == r.args.size(), "raise values and arguments disagree");
  std::string message;
  size_t from = 0;
  for (const Scalar& v : values) {
    size_t hole = r.message.find("{}", from);
    message += r.message.substr(from, hole - from) + format_scalar(v);
    from = hole + 2;
  }
  return message + r.message.substr(from);
}

Expr int64(int64_t v) {
  return make_const(Scalar::of_int(DType::Int64, v));
}

namespace {

// replace() of \p e's own node (\p memo serves the nodes below it).
Expr replace_node(const Expr& e, const std::function<Expr(const Expr&)>& f, ExprMemo* memo);

} // namespace

Expr replace(const Expr& e, const std::function<Expr(const Expr&)>& f, ExprMemo* memo) {
  if (memo)
    if (auto done = memo->find(e.get()); done != memo->end())
      return done->second;
  Expr r = replace_node(e, f, memo);
  if (memo)
    memo->emplace(e.get(), r);
  return r;
}

namespace {

Expr replace_node(const Expr& e, const std::function<Expr(const Expr&)>& f, ExprMemo* memo) {
  if (Expr r = f(e))
    return r;
  auto rebuild = [&](const std::vector<Expr>& in, std::vector<Expr>& out) {
    bool changed = false;
    for (const Expr& a : in) {
      out.push_back(replace(a, f, memo));
      changed |= out.back() != a;
    }
    return changed;
  };
  return std::visit(
      [&](const auto& n) -> Expr {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, VarRef> || std::is_same_v<T, Const>) {
          return e;
        } else if constexpr (std::is_same_v<T, Load>) {
          std::vector<Expr> index;
          if (!rebuild(n.index, index))
            return e;
          return make_load(n.tensor, e->dtype, std::move(index), e->span);
        } else if constexpr (std::is_same_v<T, Apply>) {
          std::vector<Expr> args;
          if (!rebuild(n.args, args))
            return e;
          return std::make_shared<const ExprNode>(
              ExprNode{e->dtype, e->span, Apply{n.op, std::move(args), n.overflow}});
        } else if constexpr (std::is_same_v<T, Cast>) {
          Expr v = replace(n.value, f, memo);
          return v == n.value ? e : make_cast(v, e->dtype, e->span);
        } else {
          static_assert(std::is_same_v<T, Select>);
          Expr c = replace(n.cond, f, memo), t = replace(n.then, f, memo),
               o = replace(n.otherwise, f, memo);
          if (c == n.cond && t == n.then && o == n.otherwise)
            return e;
          return make_select(c, t, o, e->span);
        }
      },
      e->node);
}

} // namespace

Expr substitute(const Expr& e, const std::function<Expr(const ExprNode&, const VarRef&)>& f) {
  return replace(e, [&](const Expr& x) -> Expr {
    const auto* v = std::get_if<VarRef>(&x->node);
    return v ? f(*x, *v) : nullptr;
  });
}

namespace {

std::string_view kind_name(BufferKind k) {
  switch (k) {
  case BufferKind::Input:
    return "input";
  case BufferKind::Output:
    return "output";
  case BufferKind::Temp:
    return "temp";
  }
  TEVAL_UNREACHABLE("unknown buffer kind");
}

class CPrinter {
public:
  explicit CPrinter(const LoopNest& n)
      : nest_(n), var_([&n](int v) { return n.vars[v].name; }),
        buffer_([&n](int b) { return n.buffers[b].name; }) {}

  std::string print() {
    for (const Buffer& b : nest_.buffers)
      if (b.kind != BufferKind::Temp) // declared where allocated
        out_ += std::string(kind_name(b.kind)) + " " + std::string(name(b.dtype)) + " " + b.name +
                to_string(b.shape) + ";\n";
    stmt(nest_.root, 0);
    return out_;
  }

private:
  std::string expr(const Expr& e) {
    std::string s = to_string(e, var_, buffer_, true);
    // Drop the outer parentheses of a binary operation.
    if (s.size() > 1 && s.front() == '(' && s.back() == ')' &&
        std::holds_alternative<Apply>(e->node))
      return s.substr(1, s.size() - 2);
    return s;
  }

  std::string index(const std::vector<Expr>& idx) {
    std::string s;
    for (const Expr& i : idx)
      s += "[" + expr(i) + "]";
    return s;
  }

  void line(int depth, const std::string& text) {
    out_ += std::string(2 * depth, ' ') + text + "\n";
  }

  void body(const Stmt& s, int depth) {
    stmt(s, depth + 1);
    line(depth, "}");
  }

  void stmt(const Stmt& s, int depth) {
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, For>) {
            const std::string& v = nest_.vars[n.var].name;
            std::string kind = n.kind == LoopKind::Unrolled     ? "  // unrolled"
                               : n.kind == LoopKind::Vectorized ? "  // vectorized"
                               : n.kind == LoopKind::Parallel   ? "  // parallel"
                                                                : "";
            line(depth, "for (" + std::string(name(nest_.vars[n.var].dtype)) + " " + v + " = " +
                            expr(n.begin) + "; " + v + " < " + expr(n.end) + "; ++" + v + ") {" +
                            kind);
            body(n.body, depth);
          } else if constexpr (std::is_same_v<T, Store>) {
            std::string store =
                nest_.buffers[n.buffer].name + index(n.index) + " = " + expr(n.value) + ";";
            line(depth, n.guard ? "if (" + expr(n.guard) + ") " + store : store);
          } else if constexpr (std::is_same_v<T, Let>) {
            const LoopVar& v = nest_.vars[n.var];
            line(depth, "{");
            line(depth + 1, "const " + std::string(name(v.dtype)) + " " + v.name + " = " +
                                expr(n.value) + ";");
            stmt(n.body, depth + 1);
            line(depth, "}");
          } else if constexpr (std::is_same_v<T, Cond>) {
            line(depth, "if (" + expr(n.cond) + ") {");
            stmt(n.then, depth + 1);
            if (n.otherwise) {
              line(depth, "} else {");
              stmt(n.otherwise, depth + 1);
            }
            line(depth, "}");
          } else if constexpr (std::is_same_v<T, Block>) {
            for (const Stmt& c : n.stmts)
              stmt(c, depth);
          } else if constexpr (std::is_same_v<T, Allocate>) {
            const Buffer& b = nest_.buffers[n.buffer];
            line(depth, std::string(name(b.dtype)) + " " + b.name + to_string(b.shape) +
                            (n.zeroed ? " = allocate();" : " = allocate_unset();"));
          } else if constexpr (std::is_same_v<T, Free>) {
            line(depth, "free(" + nest_.buffers[n.buffer].name + ");");
          } else {
            static_assert(std::is_same_v<T, Raise>);
            std::string args;
            for (const Expr& a : n.args)
              args += ", " + expr(a);
            line(depth, "error(\"" + n.message + "\"" + args + ");");
          }
        },
        s->node);
  }

  const LoopNest& nest_;
  NameOf var_;
  NameOf buffer_;
  std::string out_;
};

} // namespace

bool mentions(const Expr& e, int var) {
  bool found = false;
  for_each_node(e, [&](const Expr& x) {
    if (const auto* v = std::get_if<VarRef>(&x->node))
      found |= v->var == var;
  });
  return found;
}

bool mentions(std::span<const Expr> exprs, int var) {
  return std::any_of(exprs.begin(), exprs.end(), [&](const Expr& e) { return mentions(e, var); });
}

const For* find_loop(const Stmt& root, int var) {
  const For* found = nullptr;
  each_stmt(root, [&](const Stmt& s) {
    if (const auto* f = std::get_if<For>(&s->node); f && f->var == var && !found)
      found = f;
  });
  return found;
}

void each_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f) {
  f(s);
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, For> || std::is_same_v<T, Let>) {
          each_stmt(n.body, f);
        } else if constexpr (std::is_same_v<T, Cond>) {
          each_stmt(n.then, f);
          if (n.otherwise)
            each_stmt(n.otherwise, f);
        } else if constexpr (std::is_same_v<T, Block>) {
          for (const Stmt& c : n.stmts)
            each_stmt(c, f);
        }
      },
      s->node);
}

std::vector<Expr> own_exprs(const Stmt& s) {
  return std::visit(
      [](const auto& n) -> std::vector<Expr> {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, For>) {
          return {n.begin, n.end};
        } else if constexpr (std::is_same_v<T, Store>) {
          std::vector<Expr> e = n.index;
          e.push_back(n.value);
          if (n.guard)
            e.push_back(n.guard);
          return e;
        } else if constexpr (std::is_same_v<T, Let>) {
          return {n.value};
        } else if constexpr (std::is_same_v<T, Cond>) {
          return {n.cond};
        } else if constexpr (std::is_same_v<T, Raise>) {
          return n.args;
        } else {
          return {};
        }
      },
      s->node);
}

std::string to_string(const LoopNest& nest) {
  return CPrinter(nest).print();
}

} // namespace teval::core
