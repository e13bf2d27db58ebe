// Elaboration of PlaidML Tile functions into the Kernel IR.
#include "parser/tile.h"

#include "core/affine.h"
#include "core/error.h"
#include "parser/tile_elementwise.h"
#include "parser/tile_values.h"

#include <algorithm>
#include <set>
#include <variant>

namespace teval::parser {

namespace {

using core::DType;
using core::Error;
using core::ErrorKind;
using core::Span;
using tile::Ew;
using tile::Poly;
using tile::Rational;

// ---------------------------------------------------------------------------
// Values

struct DimCell {
  std::optional<int64_t> value;
  std::string name;
  Span span;
};

struct Pending;

// A TensorOutput: a shape waiting for the contraction that fills it.
struct OutputCell {
  core::Shape shape;
  std::string name;
  Span span;
  std::shared_ptr<Pending> pending; // its contraction, until materialised
  std::vector<struct ConstraintV> early_constraints;
  std::optional<int> tensor; // the kernel tensor, once materialised
};

struct Value;
struct IntV {
  int64_t v;
};
struct FloatV {
  double v;
};
struct DimV {
  std::shared_ptr<DimCell> cell;
};
struct PolyV {
  Poly p;
};
struct TensorV {
  int id;
};
struct OutputV {
  std::shared_ptr<OutputCell> cell;
};
struct EwV {
  Ew e;
};
struct ListV {
  std::shared_ptr<std::vector<Value>> items;
};
struct ConstraintV {
  Poly p;
  int64_t bound = 0;
  Span span;
};

struct Value {
  std::variant<IntV, FloatV, DimV, PolyV, TensorV, OutputV, EwV, ListV, ConstraintV> v;
  Span span;
};

std::string kind_name(const Value& x) {
  switch (x.v.index()) {
  case 0:
    return "an integer";
  case 1:
    return "a float";
  case 2:
    return "a dimension";
  case 3:
    return "an index expression";
  case 4:
  case 6:
    return "a tensor";
  case 5:
    return "a TensorOutput";
  case 7:
    return "a list";
  default:
    return "a constraint";
  }
}

// One access `A(p0, p1, ...)` inside a contraction.
struct Access {
  int tensor;
  std::vector<Poly> index;
  Span span;
};

// A contraction waiting for its constraints: it becomes a Kernel statement
// when its output is first used, returned, or the function ends.
struct Pending {
  std::shared_ptr<OutputCell> out;
  core::Aggregation aggregation;
  std::vector<Poly> out_index;
  Span out_span;
  std::vector<Access> accesses;
  std::string combination; // "", "+", "*", "==", "cond"
  std::vector<ConstraintV> constraints;
  Span span;
};

struct IndexInfo {
  std::string name;
  Span span;
};

[[noreturn]] void dimension_overflow(Span span) {
  throw Error(ErrorKind::Arithmetic, span, "integer overflow in dimension arithmetic");
}

// ---------------------------------------------------------------------------
// The elaborator of one function

class Elaborator {
public:
  Elaborator(const ast::Function& f, const std::map<std::string, InputType>& inputs,
             const std::map<std::string, TileParam>& params)
      : f_(f), inputs_(inputs), params_(params) {}

  core::Kernel run(Span fn_span) {
    for (const ast::Param& p : f_.params)
      bind_param(p);
    for (const ast::StmtPtr& s : f_.body) {
      execute(*s);
      if (returned_)
        break;
    }
    if (!returned_)
      throw Error(ErrorKind::Syntax, fn_span,
                  "function `" + f_.name + "` returns nothing; end it with `return TENSOR`");
    return std::move(k_);
  }

private:
  // --- parameters and names ------------------------------------------------

  void bind_param(const ast::Param& p) {
    bool integer_type = p.type == "int" || p.type == "size_t" || p.type == "int64_t" ||
                        p.type == "unsigned" || p.type.rfind("std::vector<", 0) == 0;
    auto given = params_.find(p.name);
    if (given != params_.end()) {
      if (!p.type.empty() && !integer_type)
        throw Error(ErrorKind::Type, p.span,
                    "parameter `" + p.name + "` is a " + p.type + ", not an integer");
      if (given->second.list) {
        auto items = std::make_shared<std::vector<Value>>();
        for (int64_t v : given->second.values)
          items->push_back({IntV{v}, p.span});
        env_[p.name] = {ListV{items}, p.span};
      } else {
        env_[p.name] = {IntV{given->second.values.at(0)}, p.span};
      }
      return;
    }
    if (integer_type)
      throw Error(ErrorKind::Name, p.span,
                  "parameter `" + p.name + "` needs a value: pass -p " + p.name + "=...");
    auto in = inputs_.find(p.name);
    if (in == inputs_.end())
      throw Error(ErrorKind::Name, p.span,
                  "tensor parameter `" + p.name + "` needs an input: pass -i " + p.name +
                      "=FILE.npy or -i " + p.name + "=DTYPE[d0,...]");
    k_.tensors.push_back(
        {p.name, in->second.dtype, in->second.shape, core::TensorRole::Input, p.span});
    env_[p.name] = {TensorV{static_cast<int>(k_.tensors.size()) - 1}, p.span};
  }

  Value lookup(const std::string& name, Span span) {
    auto it = env_.find(name);
    if (it == env_.end())
      throw Error(ErrorKind::Name, span, "`" + name + "` is not defined");
    Value v = it->second;
    v.span = span;
    return v;
  }

  // Gives unnamed dimensions, indices and outputs the name they are bound to.
  void name_value(Value& v, const std::string& name) {
    if (auto* d = std::get_if<DimV>(&v.v); d && d->cell->name.empty())
      d->cell->name = name;
    if (auto* o = std::get_if<OutputV>(&v.v); o && o->cell->name.empty())
      o->cell->name = name;
    if (auto* p = std::get_if<PolyV>(&v.v)) {
      std::vector<int> vars = p->p.variables();
      if (vars.size() == 1 && p->p == Poly::variable(vars[0]) && indexes_[vars[0]].name.empty())
        indexes_[vars[0]].name = name;
    }
  }

  void assign_name(const std::string& name, Value v, Span span) {
    if (auto* e = std::get_if<EwV>(&v.v)) // an elementwise result is a tensor named here
      v = {TensorV{tile::emit_elementwise(k_, e->e, name, span)}, span};
    name_value(v, name);
    env_[name] = std::move(v);
  }

  // --- statements ------------------------------------------------------------

  void execute(const ast::Stmt& s) {
    std::visit([&](const auto& n) { statement(s, n); }, s.node);
  }

  void statement(const ast::Stmt& s, const ast::Declare& d) {
    auto unbound_dim = [&](const std::string& name) {
      return Value{DimV{std::make_shared<DimCell>(DimCell{std::nullopt, name, d.name_span})},
                   d.name_span};
    };
    auto index = [&](const std::string& name) {
      return Value{PolyV{new_index(name, d.name_span)}, d.name_span};
    };
    if (d.type == "TensorDim" || d.type == "TensorIndex") {
      if (d.init || !d.ctor_args.empty())
        throw Error(ErrorKind::Unsupported, s.span, "a " + d.type + " is declared without a value");
      env_[d.name] = d.type == "TensorDim" ? unbound_dim(d.name) : index(d.name);
      return;
    }
    if (d.type == "std::vector<TensorDim>" || d.type == "std::vector<TensorIndex>") {
      if (d.ctor_args.size() != 1)
        throw Error(ErrorKind::Syntax, s.span, "declare the vector's size: " + d.type + " X(2);");
      int64_t n = integer(*d.ctor_args[0]);
      auto items = std::make_shared<std::vector<Value>>();
      for (int64_t i = 0; i < n; ++i) {
        std::string name = d.name + "[" + std::to_string(i) + "]";
        items->push_back(d.type == "std::vector<TensorDim>" ? unbound_dim(name) : index(name));
      }
      env_[d.name] = {ListV{items}, d.name_span};
      return;
    }
    if (!d.init)
      throw Error(ErrorKind::Syntax, s.span, "`" + d.name + "` needs an initial value");
    assign_name(d.name, evaluate(*d.init), s.span);
  }

  void statement(const ast::Stmt& s, const ast::Assign& a) {
    if (a.op == "=") {
      if (const auto* name = std::get_if<ast::Name>(&a.target->node)) {
        assign_name(name->id, evaluate(*a.value), s.span);
        return;
      }
      if (const auto* tuple = std::get_if<ast::Tuple>(&a.target->node)) {
        Value v = evaluate(*a.value);
        const auto* list = std::get_if<ListV>(&v.v);
        if (!list || list->items->size() != tuple->items.size())
          throw Error(ErrorKind::Shape, a.value->span,
                      "cannot unpack " + kind_name(v) + " into " +
                          std::to_string(tuple->items.size()) + " names");
        for (size_t i = 0; i < tuple->items.size(); ++i) {
          const auto* n = std::get_if<ast::Name>(&tuple->items[i]->node);
          if (!n)
            throw Error(ErrorKind::Syntax, tuple->items[i]->span, "expected a name");
          assign_name(n->id, (*list->items)[i], s.span);
        }
        return;
      }
      if (list_element_assignment(a))
        return;
    }
    contraction(s, *a.target, a.op, a.op_span, *a.value);
  }

  // `Y[i] = e` where Y is a list (C++ std::vector<TensorDim>).
  bool list_element_assignment(const ast::Assign& a) {
    const auto* sub = std::get_if<ast::Subscript>(&a.target->node);
    if (!sub)
      return false;
    Value base = evaluate(*sub->base);
    auto* list = std::get_if<ListV>(&base.v);
    if (!list)
      return false;
    if (sub->indices.size() != 1)
      throw Error(ErrorKind::Syntax, a.target->span, "a list takes one index");
    int64_t i = integer(*sub->indices[0]);
    if (i < 0 || i >= static_cast<int64_t>(list->items->size()))
      throw Error(ErrorKind::Range, sub->indices[0]->span,
                  "index " + std::to_string(i) + " is outside a list of " +
                      std::to_string(list->items->size()));
    Value v = evaluate(*a.value);
    (*list->items)[i] = v;
    return true;
  }

  void statement(const ast::Stmt& s, const ast::ExprStmt& e) {
    if (const auto* b = std::get_if<ast::Binary>(&e.expr->node);
        b && (b->op == ast::BinaryOp::Ge || b->op == ast::BinaryOp::Le)) {
      contraction(s, *b->lhs, b->op == ast::BinaryOp::Ge ? ">=" : "<=", b->op_span, *b->rhs);
      return;
    }
    const auto* c = std::get_if<ast::Call>(&e.expr->node);
    if (c && c->method && c->callee == "bind_dims")
      return bind_dims(*c);
    if (c && c->method && c->callee == "add_constraint")
      return add_constraint(*c);
    throw Error(ErrorKind::Unsupported, s.span, "this statement has no effect in a Tile function");
  }

  void statement(const ast::Stmt& s, const ast::Return& r) {
    if (!r.value)
      throw Error(ErrorKind::Syntax, s.span, "return a tensor");
    Value v = evaluate(*r.value);
    std::string name = "result";
    if (const auto* n = std::get_if<ast::Name>(&r.value->node))
      name = n->id;
    int id = tensor_of(v, name, r.value->span);
    // A returned input or a tensor returned twice is copied under the name.
    if (k_.tensors[id].role == core::TensorRole::Input)
      id = tile::emit_elementwise(k_, tile::ew_tensor(k_, id, r.value->span), name, s.span);
    materialize_all();
    k_.tensors[id].role = core::TensorRole::Output;
    k_.outputs = {id};
    returned_ = true;
  }

  void statement(const ast::Stmt& s, const ast::Loop& l) {
    int64_t begin = integer(*l.begin);
    int64_t end = integer(*l.end);
    for (int64_t i = begin; i < end; ++i) {
      env_[l.var] = {IntV{i}, s.span};
      for (const ast::StmtPtr& b : l.body)
        execute(*b);
    }
    env_.erase(l.var);
  }

  void statement(const ast::Stmt& s, const ast::Function&) {
    throw Error(ErrorKind::Unsupported, s.span, "functions cannot be nested");
  }

  // --- dimensions ------------------------------------------------------------

  void bind_dims(const ast::Call& c) {
    Value t = evaluate(*c.args[0]);
    int id = tensor_of(t, "", c.args[0]->span);
    const core::TensorDecl& d = k_.tensors[id];
    size_t given = c.args.size() - 1;
    if (given != d.shape.size())
      throw Error(ErrorKind::Shape, c.callee_span,
                  "`" + d.name + "` has rank " + std::to_string(d.shape.size()) + " (shape " +
                      core::to_string(d.shape) + ") but bind_dims names " + std::to_string(given) +
                      " dimensions");
    for (size_t i = 0; i < given; ++i) {
      Value v = evaluate_raw(*c.args[i + 1]);
      auto* dim = std::get_if<DimV>(&v.v);
      if (!dim)
        throw Error(ErrorKind::Type, c.args[i + 1]->span,
                    "bind_dims takes TensorDims, not " + kind_name(v));
      DimCell& cell = *dim->cell;
      if (cell.value && *cell.value != d.shape[i])
        throw Error(ErrorKind::Shape, c.args[i + 1]->span,
                    "dimension `" + cell.name + "` is " + std::to_string(*cell.value) +
                        " but dimension " + std::to_string(i) + " of `" + d.name + "` is " +
                        std::to_string(d.shape[i]))
            .note(cell.span,
                  "`" + cell.name + "` was bound to " + std::to_string(*cell.value) + " here");
      if (!cell.value) {
        cell.value = d.shape[i];
        cell.span = c.args[i + 1]->span;
      }
    }
  }

  int64_t integer(const ast::Expr& e) {
    Value v = evaluate(e);
    if (const auto* i = std::get_if<IntV>(&v.v))
      return i->v;
    if (const auto* d = std::get_if<DimV>(&v.v))
      return dim_value(*d, e.span); // reports the unbound dimension
    throw Error(ErrorKind::Type, e.span, "expected an integer, not " + kind_name(v));
  }

  // --- contractions ------------------------------------------------------------

  Poly new_index(const std::string& name, Span span) {
    indexes_.push_back({name, span});
    return Poly::variable(static_cast<int>(indexes_.size()) - 1);
  }

  // The index list of an access `A(i, j)`, `A[i, j]`, `A[()]`.
  std::vector<ast::ExprPtr> access_indices(const ast::Expr& e) {
    if (const auto* c = std::get_if<ast::Call>(&e.node); c && !c->method)
      return c->args;
    if (const auto* s = std::get_if<ast::Subscript>(&e.node)) {
      std::vector<ast::ExprPtr> index = s->indices;
      if (index.size() == 1)
        if (const auto* t = std::get_if<ast::Tuple>(&index[0]->node))
          index = t->items; // O[()] and O[(i, j)]
      return index;
    }
    throw Error(ErrorKind::Syntax, e.span, "expected a tensor access such as A(i, j)");
  }

  Value access_base(const ast::Expr& e) {
    if (const auto* c = std::get_if<ast::Call>(&e.node))
      return lookup(c->callee, c->callee_span);
    return evaluate(*std::get<ast::Subscript>(e.node).base);
  }

  Poly index_poly(const ast::Expr& e) {
    Value v = evaluate(e);
    if (const auto* p = std::get_if<PolyV>(&v.v))
      return p->p;
    if (const auto* i = std::get_if<IntV>(&v.v))
      return Poly::constant(i->v);
    throw Error(ErrorKind::Type, e.span,
                "an index is a TensorIndex expression, not " + kind_name(v));
  }

  Access access(const ast::Expr& e) {
    std::vector<ast::ExprPtr> index = access_indices(e);
    Value base = access_base(e);
    int id = tensor_of(base, "", e.span);
    const core::TensorDecl& t = k_.tensors[id];
    if (index.size() != t.shape.size())
      throw Error(ErrorKind::Shape, e.span,
                  "`" + t.name + "` has rank " + std::to_string(t.shape.size()) + " (shape " +
                      core::to_string(t.shape) + ") but is indexed with " +
                      std::to_string(index.size()));
    Access a{id, {}, e.span};
    for (const ast::ExprPtr& i : index)
      a.index.push_back(index_poly(*i));
    return a;
  }

  void contraction(const ast::Stmt& s, const ast::Expr& target, const std::string& op, Span op_span,
                   const ast::Expr& value) {
    static const std::map<std::string, core::Aggregation> kAggregations = {
        {"+=", core::Aggregation::Sum},
        {"*=", core::Aggregation::Product},
        {">=", core::Aggregation::Max},
        {"<=", core::Aggregation::Min},
        {"=", core::Aggregation::Assign}};
    auto agg = kAggregations.find(op);
    if (agg == kAggregations.end())
      throw Error(ErrorKind::Unsupported, op_span,
                  "`" + op + "` is not a Tile aggregation; use +=, *=, >=, <= or =");
    std::vector<ast::ExprPtr> index = access_indices(target);
    Value out = access_base(target);
    auto* cell = std::get_if<OutputV>(&out.v);
    if (!cell)
      throw Error(ErrorKind::Type, target.span,
                  "a contraction writes a TensorOutput, not " + kind_name(out));
    OutputCell& o = *cell->cell;
    if (o.pending || o.tensor)
      throw Error(ErrorKind::Name, target.span, "`" + o.name + "` already has a contraction");
    if (index.size() != o.shape.size())
      throw Error(ErrorKind::Shape, target.span,
                  "the contraction writes `" + o.name + "` with " + std::to_string(index.size()) +
                      (index.size() == 1 ? " index" : " indices") + " but it was declared with " +
                      std::to_string(o.shape.size()) + " dimensions " + core::to_string(o.shape))
          .note(o.span, "declared here");
    auto p = std::make_shared<Pending>();
    p->out = cell->cell;
    p->aggregation = agg->second;
    p->out_span = target.span;
    p->span = s.span;
    for (const ast::ExprPtr& i : index)
      p->out_index.push_back(index_poly(*i));
    combination(value, *p);
    p->constraints = std::move(o.early_constraints);
    o.pending = p;
    pending_.push_back(p);
  }

  void combination(const ast::Expr& value, Pending& p) {
    if (const auto* b = std::get_if<ast::Binary>(&value.node)) {
      const char* op = b->op == ast::BinaryOp::Add   ? "+"
                       : b->op == ast::BinaryOp::Mul ? "*"
                       : b->op == ast::BinaryOp::Eq  ? "=="
                                                     : nullptr;
      if (!op)
        throw Error(ErrorKind::Unsupported, b->op_span,
                    "a contraction combines two tensors with +, * or ==, or three with "
                    "cond(A, B, C)");
      p.combination = op;
      p.accesses = {access(*b->lhs), access(*b->rhs)};
      return;
    }
    if (const auto* c = std::get_if<ast::Call>(&value.node);
        c && !c->method && c->callee == "cond") {
      if (c->args.size() != 3)
        throw Error(ErrorKind::Syntax, c->callee_span, "cond takes three tensor accesses");
      p.combination = "cond";
      p.accesses = {access(*c->args[0]), access(*c->args[1]), access(*c->args[2])};
      return;
    }
    p.accesses = {access(value)};
  }

  void add_constraint(const ast::Call& c) {
    if (c.args.size() != 2)
      throw Error(ErrorKind::Syntax, c.callee_span, "add_constraint takes one constraint");
    Value out = evaluate(*c.args[0]);
    auto* cell = std::get_if<OutputV>(&out.v);
    if (!cell)
      throw Error(ErrorKind::Type, c.args[0]->span,
                  "constraints belong to a TensorOutput's contraction, not to " + kind_name(out));
    Value v = evaluate(*c.args[1]);
    auto* constraint = std::get_if<ConstraintV>(&v.v);
    if (!constraint)
      throw Error(ErrorKind::Type, c.args[1]->span,
                  "a constraint is `index_expression < bound`, not " + kind_name(v));
    OutputCell& o = *cell->cell;
    if (o.tensor)
      throw Error(ErrorKind::Syntax, c.callee_span,
                  "`" + o.name + "` was already used; add its constraints before using it");
    if (o.pending)
      o.pending->constraints.push_back(*constraint);
    else
      o.early_constraints.push_back(*constraint);
  }

  void materialize_all() {
    for (const std::shared_ptr<Pending>& p : pending_)
      if (!p->out->tensor)
        materialize(*p);
  }

  // The Kernel statement of a contraction, with the exact bounding box of
  // its valid points.
  int materialize(Pending& p);

  // --- expressions -------------------------------------------------------------

  // The kernel tensor \p v stands for (materialising or emitting it).
  int tensor_of(const Value& v, const std::string& name, Span span) {
    if (const auto* t = std::get_if<TensorV>(&v.v))
      return t->id;
    if (const auto* o = std::get_if<OutputV>(&v.v)) {
      OutputCell& cell = *o->cell;
      if (cell.tensor)
        return *cell.tensor;
      if (!cell.pending)
        throw Error(ErrorKind::Syntax, span,
                    "`" + cell.name + "` is a TensorOutput that no contraction writes");
      return materialize(*cell.pending);
    }
    if (const auto* e = std::get_if<EwV>(&v.v))
      return tile::emit_elementwise(k_, e->e, name.empty() ? "tmp" : name, span);
    throw Error(ErrorKind::Type, span, "expected a tensor, not " + kind_name(v));
  }

  Ew as_elementwise(const Value& v) {
    if (const auto* i = std::get_if<IntV>(&v.v))
      return tile::ew_int(i->v, v.span);
    if (const auto* f = std::get_if<FloatV>(&v.v))
      return tile::ew_float(f->v, v.span);
    if (const auto* d = std::get_if<DimV>(&v.v))
      return tile::ew_int(dim_value(*d, v.span), v.span);
    if (const auto* e = std::get_if<EwV>(&v.v))
      return e->e;
    return tile::ew_tensor(k_, tensor_of(v, "", v.span), v.span);
  }

  static bool is_tensor(const Value& v) {
    return std::holds_alternative<TensorV>(v.v) || std::holds_alternative<OutputV>(v.v) ||
           std::holds_alternative<EwV>(v.v);
  }

  int64_t dim_value(const DimV& d, Span span) {
    if (!d.cell->value)
      throw Error(ErrorKind::Name, span,
                  "dimension `" + d.cell->name + "` is used before bind_dims gives it a size");
    return *d.cell->value;
  }

  // The value of \p e; a bound dimension is its integer.
  Value evaluate(const ast::Expr& e) {
    Value v = evaluate_raw(e);
    if (auto* d = std::get_if<DimV>(&v.v); d && d->cell->value)
      return {IntV{*d->cell->value}, e.span};
    return v;
  }

  // The value of \p e, dimensions kept as dimensions (for bind_dims).
  Value evaluate_raw(const ast::Expr& e) {
    Value v = std::visit([&](const auto& n) { return eval(e, n); }, e.node);
    v.span = e.span;
    return v;
  }

  Value eval(const ast::Expr& e, const ast::Name& n) { return lookup(n.id, e.span); }
  Value eval(const ast::Expr& e, const ast::IntLit& n) {
    if (n.value > static_cast<uint64_t>(INT64_MAX))
      throw Error(ErrorKind::Range, e.span, "integer literal does not fit in 64 bits");
    return {IntV{static_cast<int64_t>(n.value)}, e.span};
  }
  Value eval(const ast::Expr& e, const ast::FloatLit& n) { return {FloatV{n.value}, e.span}; }
  Value eval(const ast::Expr& e, const ast::StringLit&) {
    throw Error(ErrorKind::Type, e.span, "strings have no meaning in Tile");
  }
  Value eval(const ast::Expr& e, const ast::List& n) { return sequence(e, n.items); }
  Value eval(const ast::Expr& e, const ast::Tuple& n) { return sequence(e, n.items); }
  Value eval(const ast::Expr& e, const ast::Dict&) {
    throw Error(ErrorKind::Type, e.span, "dicts have no meaning in Tile");
  }

  Value sequence(const ast::Expr& e, const std::vector<ast::ExprPtr>& items) {
    auto out = std::make_shared<std::vector<Value>>();
    for (const ast::ExprPtr& i : items)
      out->push_back(evaluate(*i));
    return {ListV{out}, e.span};
  }

  Value eval(const ast::Expr& e, const ast::Subscript& s) {
    Value base = evaluate(*s.base);
    if (auto* list = std::get_if<ListV>(&base.v)) {
      if (s.indices.size() != 1)
        throw Error(ErrorKind::Syntax, e.span, "a list takes one index");
      int64_t i = integer(*s.indices[0]);
      if (i < 0 || i >= static_cast<int64_t>(list->items->size()))
        throw Error(ErrorKind::Range, s.indices[0]->span,
                    "index " + std::to_string(i) + " is outside a list of " +
                        std::to_string(list->items->size()));
      return (*list->items)[i];
    }
    throw Error(ErrorKind::Syntax, e.span,
                "a tensor access such as " + std::string(s.base->span.text()) +
                    "[...] belongs in a contraction");
  }

  Value eval(const ast::Expr& e, const ast::Unary& u) {
    Value x = evaluate(*u.operand);
    if (u.op == ast::UnaryOp::Plus)
      return x;
    if (u.op != ast::UnaryOp::Neg)
      throw Error(ErrorKind::Unsupported, e.span,
                  "`" + std::string(spelling(u.op)) + "` is not supported here");
    if (auto* i = std::get_if<IntV>(&x.v)) {
      if (i->v == INT64_MIN)
        dimension_overflow(e.span);
      return {IntV{-i->v}, e.span};
    }
    if (auto* f = std::get_if<FloatV>(&x.v))
      return {FloatV{-f->v}, e.span};
    if (auto* p = std::get_if<PolyV>(&x.v))
      return {PolyV{-p->p}, e.span};
    return {EwV{tile::ew_apply(core::Op::Neg, {as_elementwise(x)}, e.span)}, e.span};
  }

  Value eval(const ast::Expr& e, const ast::Binary& b) {
    Value l = evaluate(*b.lhs);
    Value r = evaluate(*b.rhs);
    if (b.op == ast::BinaryOp::Lt && is_index(l) && !is_tensor(r)) {
      if (!std::holds_alternative<IntV>(r.v))
        throw Error(ErrorKind::Type, b.rhs->span,
                    "a constraint's bound is an integer or a dimension, not " + kind_name(r));
      return {ConstraintV{poly(l), std::get<IntV>(r.v).v, e.span}, e.span};
    }
    if (is_tensor(l) || is_tensor(r) || std::holds_alternative<FloatV>(l.v) ||
        std::holds_alternative<FloatV>(r.v))
      return elementwise_binary(e, b, l, r);
    if (std::holds_alternative<IntV>(l.v) && std::holds_alternative<IntV>(r.v))
      return {IntV{int_binary(b, std::get<IntV>(l.v).v, std::get<IntV>(r.v).v, e.span)}, e.span};
    if (is_index(l) && is_index(r))
      return {PolyV{poly_binary(b, poly(l), poly(r))}, e.span};
    throw Error(ErrorKind::Type, b.op_span,
                "`" + std::string(spelling(b.op)) + "` of " + kind_name(l) + " and " +
                    kind_name(r) + " has no meaning here");
  }

  static bool is_index(const Value& v) {
    return std::holds_alternative<PolyV>(v.v) || std::holds_alternative<IntV>(v.v);
  }
  static Poly poly(const Value& v) {
    if (const auto* p = std::get_if<PolyV>(&v.v))
      return p->p;
    return Poly::constant(std::get<IntV>(v.v).v);
  }

  // Dimension arithmetic: integers, truncating division.
  int64_t int_binary(const ast::Binary& b, int64_t x, int64_t y, Span span) {
    int64_t r = 0;
    bool overflow = false;
    switch (b.op) {
    case ast::BinaryOp::Add:
      overflow = __builtin_add_overflow(x, y, &r);
      break;
    case ast::BinaryOp::Sub:
      overflow = __builtin_sub_overflow(x, y, &r);
      break;
    case ast::BinaryOp::Mul:
      overflow = __builtin_mul_overflow(x, y, &r);
      break;
    case ast::BinaryOp::Div:
    case ast::BinaryOp::FloorDiv:
    case ast::BinaryOp::Mod:
      if (y == 0)
        throw Error(ErrorKind::Arithmetic, b.op_span, "division of dimensions by zero");
      if (x == INT64_MIN && y == -1)
        dimension_overflow(span);
      return b.op == ast::BinaryOp::Mod ? x % y : x / y;
    default:
      throw Error(ErrorKind::Unsupported, b.op_span,
                  "`" + std::string(spelling(b.op)) + "` is not a dimension operation");
    }
    if (overflow)
      dimension_overflow(span);
    return r;
  }

  // Index arithmetic: polynomials with exact rational division by constants.
  Poly poly_binary(const ast::Binary& b, const Poly& x, const Poly& y) {
    switch (b.op) {
    case ast::BinaryOp::Add:
      return x + y;
    case ast::BinaryOp::Sub:
      return x - y;
    case ast::BinaryOp::Mul:
      return x * y;
    case ast::BinaryOp::Div:
    case ast::BinaryOp::FloorDiv:
      if (!y.is_constant())
        throw Error(ErrorKind::Unsupported, b.rhs->span,
                    "an index expression can only be divided by a constant");
      if (y.constant_term() == 0)
        throw Error(ErrorKind::Arithmetic, b.rhs->span, "division by zero in an index expression");
      return x.divided_by(y.constant_term());
    default:
      break;
    }
    throw Error(ErrorKind::Unsupported, b.op_span,
                "`" + std::string(spelling(b.op)) + "` is not an index operation");
  }

  Value elementwise_binary(const ast::Expr& e, const ast::Binary& b, const Value& l,
                           const Value& r) {
    static const std::map<ast::BinaryOp, core::Op> kOps = {
        {ast::BinaryOp::Add, core::Op::Add}, {ast::BinaryOp::Sub, core::Op::Sub},
        {ast::BinaryOp::Mul, core::Op::Mul}, {ast::BinaryOp::Div, core::Op::Div},
        {ast::BinaryOp::Mod, core::Op::Mod}, {ast::BinaryOp::Eq, core::Op::Eq},
        {ast::BinaryOp::Ne, core::Op::Ne},   {ast::BinaryOp::Lt, core::Op::Lt},
        {ast::BinaryOp::Le, core::Op::Le},   {ast::BinaryOp::Gt, core::Op::Gt},
        {ast::BinaryOp::Ge, core::Op::Ge}};
    auto op = kOps.find(b.op);
    if (op == kOps.end())
      throw Error(ErrorKind::Unsupported, b.op_span,
                  "`" + std::string(spelling(b.op)) + "` is not an elementwise Tile operation");
    if (std::holds_alternative<PolyV>(l.v) || std::holds_alternative<PolyV>(r.v))
      throw Error(ErrorKind::Type, b.op_span,
                  "an index expression cannot be combined with a tensor outside a contraction");
    return {EwV{tile::ew_apply(op->second, {as_elementwise(l), as_elementwise(r)}, e.span)},
            e.span};
  }

  Value eval(const ast::Expr& e, const ast::Call& c) {
    if (c.method) {
      if (c.callee == "size" && c.args.size() == 1) {
        Value base = evaluate(*c.args[0]);
        if (auto* list = std::get_if<ListV>(&base.v))
          return {IntV{static_cast<int64_t>(list->items->size())}, e.span};
      }
      throw Error(ErrorKind::Unsupported, c.callee_span,
                  "`." + c.callee + "(...)` has no value here");
    }
    const std::string& f = c.callee;
    if (env_.count(f))
      throw Error(ErrorKind::Syntax, e.span,
                  "a tensor access such as " + f + "(...) belongs in a contraction");
    if (f == "TensorOutput") {
      auto cell = std::make_shared<OutputCell>();
      cell->span = e.span;
      for (const ast::ExprPtr& a : c.args) {
        int64_t d = integer(*a);
        if (d < 0)
          throw Error(ErrorKind::Shape, a->span, "negative dimension " + std::to_string(d));
        cell->shape.push_back(d);
      }
      return {OutputV{cell}, e.span};
    }
    if (f == "TensorDims" || f == "TensorIndexes") {
      int64_t n = c.args.size() == 1 ? integer(*c.args[0]) : -1;
      if (n < 0)
        throw Error(ErrorKind::Syntax, c.callee_span, f + " takes a count");
      auto items = std::make_shared<std::vector<Value>>();
      for (int64_t i = 0; i < n; ++i)
        items->push_back(constructor(f == "TensorDims", e.span));
      return {ListV{items}, e.span};
    }
    if (f == "TensorDim" || f == "TensorIndex") {
      if (!c.args.empty())
        throw Error(ErrorKind::Syntax, c.callee_span, f + "() takes no arguments");
      return constructor(f == "TensorDim", e.span);
    }
    if (f == "select") {
      if (c.args.size() != 3)
        throw Error(ErrorKind::Syntax, c.callee_span, "select takes three arguments");
      return {EwV{tile::ew_select(as_elementwise(evaluate(*c.args[0])),
                                  as_elementwise(evaluate(*c.args[1])),
                                  as_elementwise(evaluate(*c.args[2])), e.span)},
              e.span};
    }
    std::optional<core::Op> op = core::op_from_spelling(f);
    if (op && std::isalpha(static_cast<unsigned char>(f[0])) && *op != core::Op::Not &&
        *op != core::Op::ExactDiv) {
      if (static_cast<int>(c.args.size()) != core::arity(*op))
        throw Error(ErrorKind::Syntax, c.callee_span,
                    f + " takes " + std::to_string(core::arity(*op)) + " argument" +
                        (core::arity(*op) == 1 ? "" : "s"));
      std::vector<Ew> args;
      for (const ast::ExprPtr& a : c.args)
        args.push_back(as_elementwise(evaluate(*a)));
      return {EwV{tile::ew_apply(*op, std::move(args), e.span)}, e.span};
    }
    if (f == "cond")
      throw Error(ErrorKind::Syntax, c.callee_span,
                  "cond(A, B, C) combines tensor accesses inside a contraction");
    throw Error(ErrorKind::Name, c.callee_span, "unknown function `" + f + "`");
  }

  Value constructor(bool dim, Span span) {
    if (dim)
      return {DimV{std::make_shared<DimCell>(DimCell{std::nullopt, "", span})}, span};
    return {PolyV{new_index("", span)}, span};
  }

  const ast::Function& f_;
  const std::map<std::string, InputType>& inputs_;
  const std::map<std::string, TileParam>& params_;
  core::Kernel k_;
  std::map<std::string, Value> env_;
  std::vector<IndexInfo> indexes_;
  std::vector<std::shared_ptr<Pending>> pending_;
  bool returned_ = false;
};

// ---------------------------------------------------------------------------
// Materialising a contraction

int Elaborator::materialize(Pending& p) {
  OutputCell& out = *p.out;
  // The statement's variables: output indices first, then the right-hand
  // side's, in order of appearance.
  std::map<int, int> var;
  std::vector<int> order;
  auto note = [&](const Poly& x) {
    for (int v : x.variables())
      if (var.emplace(v, static_cast<int>(order.size())).second)
        order.push_back(v);
  };
  for (const Poly& x : p.out_index)
    note(x);
  size_t data_vars = order.size();
  for (const Access& a : p.accesses)
    for (const Poly& x : a.index)
      note(x);
  for (const ConstraintV& c : p.constraints)
    for (int v : c.p.variables())
      if (!var.count(v))
        throw Error(ErrorKind::Name, c.span,
                    "index `" + indexes_[v].name +
                        "` appears only in constraints, not in the contraction");

  // The polyhedron: every access in range, every constraint satisfied.
  std::vector<core::LinearConstraint> system;
  auto in_range = [&](const Poly& x, int64_t extent, Span span) {
    if (!x.is_linear())
      return; // checked point by point; its bounds come from elsewhere
    std::optional<tile::ScaledLinear> s = tile::scaled(x, var);
    if (!s || __builtin_mul_overflow(s->denominator, extent - 1, &extent))
      throw Error(ErrorKind::Limit, span,
                  "the coefficients of this index expression are too large");
    // 0 <= (a.x + c) / d <= extent - 1
    system.push_back({s->coeffs, s->constant});
    std::vector<int64_t> neg = s->coeffs;
    for (int64_t& a : neg)
      a = -a;
    system.push_back({neg, extent - s->constant});
  };
  for (size_t d = 0; d < p.out_index.size(); ++d)
    in_range(p.out_index[d], out.shape[d], p.out_span);
  for (const Access& a : p.accesses)
    for (size_t d = 0; d < a.index.size(); ++d)
      in_range(a.index[d], k_.tensors[a.tensor].shape[d], a.span);
  for (const ConstraintV& c : p.constraints)
    in_range(c.p, c.bound, c.span);
  std::optional<std::vector<core::IntegerRange>> box = core::bounding_box(order.size(), system);

  core::Statement st;
  st.span = p.span;
  for (size_t i = 0; i < order.size(); ++i) {
    const IndexInfo& info = indexes_[order[i]];
    int64_t begin = 0, end = 0; // an empty box when nothing is valid
    if (box) {
      const core::IntegerRange& r = (*box)[i];
      if (!r.lo || !r.hi)
        throw Error(ErrorKind::Shape, p.span,
                    "index `" + info.name + "` is unbounded: no access or constraint limits " +
                        (!r.lo && !r.hi ? "it"
                         : !r.lo        ? "it from below"
                                        : "it from above"))
            .note(info.span, "`" + info.name + "` is declared here");
      if (__builtin_add_overflow(*r.hi, 1, &end))
        throw Error(ErrorKind::Limit, p.span, "index `" + info.name + "` has too large a range");
      begin = *r.lo;
    }
    st.vars.push_back({info.name, begin, end, i >= data_vars, DType::Int64, info.span});
  }
  core::check_index_points(st.vars, p.span);
  for (const Poly& x : p.out_index)
    st.out_index.push_back(tile::to_expr(x, var, p.out_span));

  // The value: one access, or a combination of two or three.
  std::vector<core::Expr> loads;
  for (const Access& a : p.accesses) {
    std::vector<core::Expr> index;
    for (const Poly& x : a.index)
      index.push_back(tile::to_expr(x, var, a.span));
    loads.push_back(
        core::make_load(a.tensor, k_.tensors[a.tensor].dtype, std::move(index), a.span));
  }
  auto convert = [&](core::Expr x, DType t) {
    return x->dtype == t ? x : core::make_cast(std::move(x), t, x->span);
  };
  if (p.combination.empty()) {
    st.value = loads[0];
  } else if (p.combination == "cond") {
    DType t = core::promote(loads[0]->dtype, loads[1]->dtype);
    core::Expr eq = core::make_apply(core::Op::Eq, {convert(loads[0], t), convert(loads[1], t)},
                                     p.span, DType::Bool);
    st.value = core::make_select(
        eq, loads[2], core::make_const(core::constant(loads[2]->dtype, 0), p.span), p.span);
  } else {
    DType t = core::promote(loads[0]->dtype, loads[1]->dtype);
    if (p.combination == "==") {
      st.value = core::make_apply(core::Op::Eq, {convert(loads[0], t), convert(loads[1], t)},
                                  p.span, DType::Bool);
    } else {
      if (core::is_bool(t))
        t = DType::Int8;
      st.value = core::make_apply(p.combination == "+" ? core::Op::Add : core::Op::Mul,
                                  {convert(loads[0], t), convert(loads[1], t)}, p.span);
    }
  }
  if (core::is_bool(st.value->dtype) &&
      (p.aggregation == core::Aggregation::Sum || p.aggregation == core::Aggregation::Product))
    st.value = core::make_cast(st.value, DType::Int8, p.span);
  for (const ConstraintV& c : p.constraints)
    st.constraints.push_back({tile::to_expr(c.p, var, c.span), c.bound, c.span});

  DType t = st.value->dtype;
  st.aggregation = p.aggregation;
  st.init = core::constant(t, 0);
  st.start = core::Start::FirstValue;
  st.out_of_range = core::OutOfRange::Skip;
  st.conflict = core::WriteConflict::Error;
  core::check_tensor_size(t, out.shape, out.span);
  int id = static_cast<int>(k_.tensors.size());
  k_.tensors.push_back({out.name, t, out.shape, core::TensorRole::Intermediate, out.span});
  st.target = id;
  k_.statements.push_back(std::move(st));
  out.tensor = id;
  out.pending = nullptr;
  return id;
}

} // namespace

std::vector<std::string> tile_functions(const ast::Program& program) {
  std::vector<std::string> names;
  for (const ast::StmtPtr& s : program.statements)
    if (const auto* f = std::get_if<ast::Function>(&s->node))
      names.push_back(f->name);
  return names;
}

core::Kernel elaborate_tile(const ast::Program& program, const std::string& entry,
                            const std::map<std::string, InputType>& inputs,
                            const std::map<std::string, TileParam>& params) {
  std::vector<std::string> names = tile_functions(program);
  std::string path =
      program.statements.empty() ? std::string() : program.statements[0]->span.file->name();
  auto list = [&] {
    std::string out;
    for (const std::string& n : names)
      out += (out.empty() ? "" : ", ") + n;
    return out;
  };
  const ast::Stmt* chosen = nullptr;
  for (const ast::StmtPtr& s : program.statements) {
    const auto* f = std::get_if<ast::Function>(&s->node);
    if (!f)
      continue;
    if (entry.empty() ? names.size() == 1 : f->name == entry)
      chosen = s.get();
  }
  if (!chosen) {
    if (names.empty())
      throw Error(ErrorKind::Syntax, path, "the Tile source defines no function");
    if (entry.empty())
      throw Error(ErrorKind::Name, path,
                  "the Tile source defines several functions (" + list() +
                      "); choose one with --entry NAME");
    throw Error(ErrorKind::Name, path, "no function `" + entry + "`; the source defines " + list());
  }
  return Elaborator(std::get<ast::Function>(chosen->node), inputs, params).run(chosen->span);
}

} // namespace teval::parser
