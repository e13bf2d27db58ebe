// Elaboration of PlaidML Tile functions into the Kernel IR: parameters,
// names and statements (contractions in tile_contraction.cpp, expressions in
// tile_expression.cpp).
#include "parser/tile/tile.h"

#include "parser/tile/tile_elaborator.h"

namespace teval::parser {

namespace tile {

core::Kernel Elaborator::run(Span fn_span, bool allow_no_return) {
  for (const ast::Param& p : f_.params)
    bind_param(p);
  for (const ast::StmtPtr& s : f_.body) {
    execute(*s);
    if (returned_)
      break;
  }
  if (!returned_ && allow_no_return)
    materialize_all();
  else if (!returned_)
    throw Error(ErrorKind::Syntax, fn_span,
                "function `" + f_.name + "` returns nothing; end it with `return TENSOR`");
  core::check_memory(k_);
  return std::move(k_);
}

void Elaborator::bind_param(const ast::Param& p) {
  bool integer_type = p.type == "int" || p.type == "size_t" || p.type == "int64_t" ||
                      p.type == "unsigned" || p.type.rfind("std::vector<", 0) == 0;
  auto given = params_.find(p.name);
  if (given != params_.end()) {
    if (!p.type.empty() && !integer_type)
      throw Error(ErrorKind::Type, p.span,
                  "parameter `" + p.name + "` is a " + p.type + ", not an integer");
    bool vector_type = p.type.rfind("std::vector<", 0) == 0;
    if (!p.type.empty() && vector_type != given->second.list)
      throw Error(ErrorKind::Type, p.span,
                  "parameter `" + p.name + "` is declared `" + p.type + "`: pass " +
                      (vector_type ? "a list, -p " + p.name + "=[v0,...]"
                                   : "one value, -p " + p.name + "=N"));
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
  core::check_kernel_dtype(in->second.dtype, p.span, "input `" + p.name + "`");
  core::check_tensor_size(in->second.dtype, in->second.shape, p.span, "input `" + p.name + "`");
  k_.tensors.push_back(
      {p.name, in->second.dtype, in->second.shape, core::TensorRole::Input, p.span});
  env_[p.name] = {TensorV{static_cast<int>(k_.tensors.size()) - 1}, p.span};
}

Value Elaborator::lookup(const std::string& name, Span span) {
  auto it = env_.find(name);
  if (it == env_.end())
    throw Error(ErrorKind::Name, span, "`" + name + "` is not defined");
  Value v = it->second;
  v.span = span;
  return v;
}

// Gives unnamed dimensions, indices and outputs the name they are bound to.
void Elaborator::name_value(Value& v, const std::string& name) {
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

void Elaborator::assign_name(const std::string& name, Value v, Span span) {
  if (auto* e = std::get_if<EwV>(&v.v)) // an elementwise result is a tensor named here
    v = {TensorV{tile::emit_elementwise(k_, e->e, name, span)}, span};
  name_value(v, name);
  env_[name] = std::move(v);
}

void Elaborator::execute(const ast::Stmt& s) {
  std::visit([&](const auto& n) { statement(s, n); }, s.node);
}

void Elaborator::statement(const ast::Stmt& s, const ast::Declare& d) {
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
    if (d.init && d.ctor_args.empty()) { // std::vector<TensorDim> S = {I, 1};
      Value v = evaluate(*d.init);
      if (!std::holds_alternative<ListV>(v.v))
        throw Error(ErrorKind::Type, d.init->span,
                    "a " + d.type + " is a list, not " + kind_name(v));
      env_[d.name] = std::move(v);
      return;
    }
    if (d.ctor_args.size() != 1)
      throw Error(ErrorKind::Syntax, s.span, "declare the vector's size: " + d.type + " X(2);");
    int64_t n = integer(*d.ctor_args[0]);
    if (n < 0 || n > kMaxListItems)
      throw Error(ErrorKind::Limit, d.ctor_args[0]->span,
                  "a " + d.type + " of " + std::to_string(n) + " elements; teval makes from 0 to " +
                      std::to_string(kMaxListItems));
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

void Elaborator::statement(const ast::Stmt& s, const ast::Assign& a) {
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
bool Elaborator::list_element_assignment(const ast::Assign& a) {
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

void Elaborator::statement(const ast::Stmt& s, const ast::ExprStmt& e) {
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

void Elaborator::statement(const ast::Stmt& s, const ast::Return& r) {
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

void Elaborator::statement(const ast::Stmt& s, const ast::Loop& l) {
  int64_t begin = integer(*l.begin);
  int64_t end = integer(*l.end);
  for (int64_t i = begin; i < end; ++i) {
    // Loops are unrolled as the function is elaborated; nested ones count
    // every iteration.
    if (++iterations_ > kMaxLoopIterations)
      throw Error(ErrorKind::Limit, s.span,
                  "the function's loops run more than " + std::to_string(kMaxLoopIterations) +
                      " iterations in all; teval unrolls at most that many");
    env_[l.var] = {IntV{i}, s.span};
    for (const ast::StmtPtr& b : l.body)
      execute(*b);
  }
  env_.erase(l.var);
}

void Elaborator::statement(const ast::Stmt& s, const ast::Function&) {
  throw Error(ErrorKind::Unsupported, s.span, "functions cannot be nested");
}

void Elaborator::bind_dims(const ast::Call& c) {
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

int64_t Elaborator::integer(const ast::Expr& e) {
  Value v = evaluate(e);
  if (const auto* i = std::get_if<IntV>(&v.v))
    return i->v;
  if (const auto* d = std::get_if<DimV>(&v.v))
    return dim_value(*d, e.span); // reports the unbound dimension
  throw Error(ErrorKind::Type, e.span, "expected an integer, not " + kind_name(v));
}

} // namespace tile

using core::Error;
using core::ErrorKind;

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
  std::string path = program.file                 ? program.file->name()
                     : program.statements.empty() ? std::string()
                                                  : program.statements[0]->span.file->name();
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
  return tile::Elaborator(std::get<ast::Function>(chosen->node), inputs, params).run(chosen->span);
}

core::Kernel elaborate_tile_body(const std::vector<ast::StmtPtr>& body,
                                 const std::map<std::string, InputType>& inputs, core::Span span) {
  ast::Function f;
  f.name = "<input>";
  for (const auto& [name, type] : inputs)
    f.params.push_back({"", name, type.span});
  f.body = body;
  static const std::map<std::string, TileParam> no_params;
  return tile::Elaborator(f, inputs, no_params).run(span, true);
}

} // namespace teval::parser
