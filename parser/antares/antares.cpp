// Elaboration of Antares einstein_v2 programs into the Kernel IR.
#include "parser/antares/antares.h"

#include "core/error.h"
#include "parser/antares/antares_lowering.h"

#include <functional>
#include <optional>

namespace teval::parser {

namespace {

using antares::Axis;
using antares::is_axis_name;
using core::Aggregation;
using core::DType;
using core::Error;
using core::ErrorKind;
using core::Span;

// Visits every expression of a tree, parents before children, left to right.
bool is_int_literal(const ast::Expr& e, uint64_t v) {
  const auto* lit = std::get_if<ast::IntLit>(&e.node);
  return lit && lit->value == v;
}

// The axis an index expression is, whole: `N`, or `N * 1`, `1 * N`, `N + 0`,
// `0 + N`, `N - 0` (which fold to N). Only these give an axis its extent.
const ast::Name* bare_axis(const ast::Expr& e) {
  if (const auto* n = std::get_if<ast::Name>(&e.node))
    return is_axis_name(n->id) ? n : nullptr;
  const auto* b = std::get_if<ast::Binary>(&e.node);
  if (!b)
    return nullptr;
  if (b->op == ast::BinaryOp::Mul && is_int_literal(*b->rhs, 1))
    return bare_axis(*b->lhs);
  if (b->op == ast::BinaryOp::Mul && is_int_literal(*b->lhs, 1))
    return bare_axis(*b->rhs);
  if ((b->op == ast::BinaryOp::Add || b->op == ast::BinaryOp::Sub) && is_int_literal(*b->rhs, 0))
    return bare_axis(*b->lhs);
  if (b->op == ast::BinaryOp::Add && is_int_literal(*b->lhs, 0))
    return bare_axis(*b->rhs);
  return nullptr;
}

struct OpInfo {
  Aggregation aggregation;
  bool scatter;
};

OpInfo op_info(const std::string& op) {
  if (op == "=")
    return {Aggregation::Assign, false};
  if (op == "+=!" || op == "+=")
    return {Aggregation::Sum, false};
  if (op == ">=!")
    return {Aggregation::Max, false};
  if (op == "<=!")
    return {Aggregation::Min, false};
  if (op == "*=!")
    return {Aggregation::Product, false};
  if (op == "&=!")
    return {Aggregation::All, false};
  if (op == "|=!")
    return {Aggregation::Any, false};
  if (op == "=.")
    return {Aggregation::Assign, true};
  if (op == "+=.")
    return {Aggregation::Sum, true};
  TEVAL_UNREACHABLE("assignment operator `" + op + "` is not in the grammar");
}

// A place where an axis indexes a tensor dimension whole.
struct Occurrence {
  int64_t extent;
  Span span;
  std::string tensor;
  size_t dim;
};

class Elaborator {
public:
  Elaborator(const AntaresSource& source, const std::map<std::string, InputType>& inputs)
      : source_(source), inputs_(inputs) {}

  core::Kernel run() {
    const ast::Stmt* last = nullptr;
    for (const ast::StmtPtr& s : source_.program.statements) {
      const auto* a = std::get_if<ast::Assign>(&s->node);
      TEVAL_ASSERT(a, "einstein_v2 programs hold only assignments");
      statement(*s, *a);
      last = s.get();
    }
    if (!last)
      throw Error(ErrorKind::Syntax, source_.program_span,
                  "the einstein_v2 program has no statements");
    for (const OutputName& o : source_.extra_outputs) {
      int id = k_.find(o.name);
      if (id < 0 || k_.tensors[id].role == core::TensorRole::Input)
        throw Error(ErrorKind::Name, o.span,
                    "extra output `" + o.name + "` is not computed by the program");
      add_output(id);
    }
    add_output(k_.statements.back().target);
    core::check_memory(k_);
    return std::move(k_);
  }

private:
  void add_output(int id) {
    for (int o : k_.outputs)
      if (o == id)
        return;
    k_.tensors[id].role = core::TensorRole::Output;
    k_.outputs.push_back(id);
  }

  // The tensor name \p x uses: the base of `t[...]`, or the receiver of
  // `t.dtype()` and `t.val(d)`, which name a whole tensor.
  static const ast::Expr* named_tensor(const ast::Expr& x) {
    if (const auto* s = std::get_if<ast::Subscript>(&x.node))
      return s->base.get();
    const auto* c = std::get_if<ast::Call>(&x.node);
    if (c && c->method && (c->callee == "dtype" || c->callee == "val") &&
        std::holds_alternative<ast::Name>(c->args[0]->node))
      return c->args[0].get();
    return nullptr;
  }

  // Declares the inputs a statement uses, in order of first use; a tensor
  // whose dtype or size is all a program uses is an input too.
  void declare_inputs(const ast::Expr& e) {
    ast::for_each_expr(e, [&](const ast::Expr& x) {
      const ast::Expr* named = named_tensor(x);
      const auto* base = named ? std::get_if<ast::Name>(&named->node) : nullptr;
      if (!base || is_axis_name(base->id) || k_.find(base->id) >= 0)
        return;
      auto it = inputs_.find(base->id);
      if (it == inputs_.end() && !std::holds_alternative<ast::Subscript>(x.node))
        return; // not a tensor: the lowering reports the unknown name
      if (it == inputs_.end())
        throw Error(ErrorKind::Name, named->span,
                    "unknown tensor `" + base->id +
                        "`; declare it in input_dict or pass it with -i " + base->id + "=...");
      // An input given on the command line has no place in the source: its
      // first use stands for it.
      Span where = it->second.span.valid() ? it->second.span : named->span;
      core::check_kernel_dtype(it->second.dtype, where, "input `" + base->id + "`");
      core::check_tensor_size(it->second.dtype, it->second.shape, where,
                              "input `" + base->id + "`");
      k_.tensors.push_back(
          {base->id, it->second.dtype, it->second.shape, core::TensorRole::Input, where});
    });
  }

  void note_axis(std::vector<Axis>& axes, const ast::Name& n, Span span, bool reduce) {
    for (const Axis& a : axes)
      if (a.name == n.id)
        return;
    axes.push_back({n.id, -1, reduce, span});
  }

  void collect_axes(const ast::Expr& e, std::vector<Axis>& axes, bool reduce) {
    ast::for_each_expr(e, [&](const ast::Expr& x) {
      if (const auto* n = std::get_if<ast::Name>(&x.node); n && is_axis_name(n->id))
        note_axis(axes, *n, x.span, reduce);
    });
  }

  void collect_occurrences(const ast::Expr& e,
                           std::map<std::string, std::vector<Occurrence>>& out) {
    ast::for_each_expr(e, [&](const ast::Expr& x) {
      const auto* s = std::get_if<ast::Subscript>(&x.node);
      const auto* base = s ? std::get_if<ast::Name>(&s->base->node) : nullptr;
      int id = base ? k_.find(base->id) : -1;
      if (id < 0)
        return;
      const core::TensorDecl& t = k_.tensors[id];
      if (t.shape.size() != s->indices.size())
        throw Error(ErrorKind::Shape, x.span,
                    "tensor `" + t.name + "` has rank " + std::to_string(t.shape.size()) +
                        " (shape " + core::to_string(t.shape) + ") but is indexed with " +
                        std::to_string(s->indices.size()) +
                        (s->indices.size() == 1 ? " index" : " indices"));
      for (size_t d = 0; d < s->indices.size(); ++d)
        if (const ast::Name* axis = bare_axis(*s->indices[d]))
          out[axis->id].push_back({k_.tensors[id].shape[d], s->indices[d]->span, base->id, d});
    });
  }

  int64_t where_extent(const ast::Where& w) {
    const ast::Expr& e = *w.extent;
    int64_t sign = 1;
    const ast::Expr* x = &e;
    if (const auto* u = std::get_if<ast::Unary>(&e.node); u && u->op == ast::UnaryOp::Neg) {
      sign = -1;
      x = u->operand.get();
    }
    const auto* lit = std::get_if<ast::IntLit>(&x->node);
    if (!lit)
      throw Error(ErrorKind::Syntax, e.span,
                  "an axis extent is an integer literal (use an f-string to compute it)");
    if (sign < 0 && lit->value != 0)
      throw Error(ErrorKind::Range, e.span, "axis extents cannot be negative");
    if (lit->value > static_cast<uint64_t>(INT32_MAX))
      throw Error(ErrorKind::Limit, e.span,
                  "axis extent " + lit->text + " does not fit int32, the type of axes");
    return static_cast<int64_t>(lit->value);
  }

  void infer_extents(std::vector<Axis>& axes, const ast::Assign& a, bool scatter) {
    std::map<std::string, const ast::Where*> where;
    for (const ast::Where& w : a.where) {
      if (where.count(w.axis))
        throw Error(ErrorKind::Name, w.axis_span, "axis `" + w.axis + "` is bound twice")
            .note(where[w.axis]->axis_span, "first bound here");
      where[w.axis] = &w;
    }
    std::map<std::string, std::vector<Occurrence>> occurrences;
    if (scatter)
      collect_occurrences(*a.target, occurrences);
    collect_occurrences(*a.value, occurrences);
    for (Axis& axis : axes) {
      if (auto it = where.find(axis.name); it != where.end()) {
        axis.extent = where_extent(*it->second);
        continue;
      }
      const std::vector<Occurrence>& occ = occurrences[axis.name];
      if (occ.empty())
        throw Error(ErrorKind::Shape, axis.span,
                    "cannot infer the extent of axis `" + axis.name +
                        "`: it never indexes a whole tensor dimension; add `where " + axis.name +
                        " in <extent>`");
      for (const Occurrence& o : occ)
        if (o.extent != occ.front().extent)
          throw Error(ErrorKind::Shape, o.span,
                      "axis `" + axis.name + "` has extent " + std::to_string(o.extent) +
                          " here (dimension " + std::to_string(o.dim) + " of `" + o.tensor +
                          "`) but " + std::to_string(occ.front().extent) + " elsewhere")
              .note(occ.front().span, "extent " + std::to_string(occ.front().extent) +
                                          " from dimension " + std::to_string(occ.front().dim) +
                                          " of `" + occ.front().tensor +
                                          "`; bind it with "
                                          "`where " +
                                          axis.name + " in ...` if that is intended");
      axis.extent = occ.front().extent;
    }
  }

  void statement(const ast::Stmt& s, const ast::Assign& a) {
    OpInfo op = op_info(a.op);
    const auto* lhs = std::get_if<ast::Subscript>(&a.target->node);
    const auto* target = lhs ? std::get_if<ast::Name>(&lhs->base->node) : nullptr;
    if (!target)
      throw Error(ErrorKind::Syntax, a.target->span,
                  "the left-hand side is an output tensor with its axes, as in `output0[N, M]`");
    if (is_axis_name(target->id))
      throw Error(ErrorKind::Syntax, lhs->base->span,
                  "`" + target->id +
                      "` starts with an upper-case letter, so it is an axis; "
                      "tensor names start with a lower-case letter");
    int existing = k_.find(target->id);
    if (!op.scatter && (existing >= 0 || inputs_.count(target->id)))
      throw Error(ErrorKind::Name, lhs->base->span,
                  "`" + target->id +
                      "` is already defined; every statement defines a new "
                      "tensor (scatter into an existing one with `=.` or `+=.`)");
    if (op.scatter) {
      declare_inputs(*a.target);
      existing = k_.find(target->id);
      if (existing < 0)
        throw Error(ErrorKind::Name, lhs->base->span,
                    "scatter target `" + target->id + "` is not an input or an earlier output");
    }
    declare_inputs(*a.value);

    std::vector<Axis> axes;
    if (!op.scatter) {
      for (const ast::ExprPtr& i : lhs->indices) {
        const auto* n = std::get_if<ast::Name>(&i->node);
        if (!n || !is_axis_name(n->id))
          throw Error(ErrorKind::Syntax, i->span,
                      "an output index is a plain axis name (upper-case initial); index "
                      "expressions on the left need a scatter, `=.` or `+=.`");
        for (const Axis& seen : axes)
          if (seen.name == n->id)
            throw Error(ErrorKind::Name, i->span,
                        "axis `" + n->id + "` appears twice on the left-hand side")
                .note(seen.span, "first here");
        axes.push_back({n->id, -1, false, i->span});
      }
    } else {
      collect_axes(*a.target, axes, false);
    }
    for (const ast::Where& w : a.where)
      note_axis(axes, ast::Name{w.axis}, w.axis_span, !op.scatter);
    collect_axes(*a.value, axes, !op.scatter);
    infer_extents(axes, a, op.scatter);
    if (op.aggregation == Aggregation::Assign && !op.scatter)
      for (const Axis& axis : axes)
        if (axis.reduce)
          throw Error(ErrorKind::Shape, axis.span,
                      "axis `" + axis.name +
                          "` is not on the left-hand side, so it would be "
                          "reduced, but `=` does not reduce; use +=! (sum), >=! (max), <=! (min), "
                          "*=! (product), &=! (all) or |=! (any)");

    antares::Lowering lower(k_, axes);
    core::Statement st;
    st.span = s.span;
    st.aggregation = op.aggregation;
    st.value = lower.value(*a.value);
    // Sums and products are arithmetic: bool values accumulate in int8.
    if (core::is_bool(st.value->dtype) &&
        (op.aggregation == Aggregation::Sum || op.aggregation == Aggregation::Product) &&
        !op.scatter)
      st.value = core::make_cast(st.value, DType::Int8, a.value->span);
    for (size_t i = 0; i < axes.size(); ++i)
      st.vars.push_back(
          {axes[i].name, 0, axes[i].extent, axes[i].reduce, DType::Int32, axes[i].span});
    core::check_index_points(st.vars, s.span);
    if (op.scatter) {
      const core::TensorDecl old = k_.tensors[existing];
      if (lhs->indices.size() != old.shape.size())
        throw Error(ErrorKind::Shape, a.target->span,
                    "tensor `" + old.name + "` has rank " + std::to_string(old.shape.size()) +
                        " but is indexed with " + std::to_string(lhs->indices.size()));
      for (const ast::ExprPtr& i : lhs->indices)
        st.out_index.push_back(lower.index(*i));
      if (st.value->dtype != old.dtype)
        st.value = core::make_cast(st.value, old.dtype, a.value->span);
      st.init_from = existing;
      st.conflict = core::WriteConflict::ErrorIfDifferent;
      k_.tensors.push_back(
          {old.name, old.dtype, old.shape, core::TensorRole::Intermediate, a.target->span});
    } else {
      core::Shape shape;
      for (size_t i = 0; i < lhs->indices.size(); ++i) {
        shape.push_back(axes[i].extent);
        st.out_index.push_back(core::make_var(static_cast<int>(i), DType::Int32, axes[i].span));
      }
      core::check_tensor_size(st.value->dtype, shape, a.target->span);
      k_.tensors.push_back({target->id, st.value->dtype, std::move(shape),
                            core::TensorRole::Intermediate, a.target->span});
    }
    st.target = static_cast<int>(k_.tensors.size()) - 1;
    st.init = core::aggregation_init(st.aggregation, k_.tensors[st.target].dtype);
    core::check_statement_count(k_, s.span);
    k_.statements.push_back(std::move(st));
  }

  const AntaresSource& source_;
  const std::map<std::string, InputType>& inputs_;
  core::Kernel k_;
};

} // namespace

core::Kernel elaborate_antares(const AntaresSource& source,
                               const std::map<std::string, InputType>& inputs) {
  return Elaborator(source, inputs).run();
}

std::map<std::string, InputType> declared_inputs(const AntaresSource& source) {
  std::map<std::string, InputType> out;
  for (const InputSpec& in : source.inputs)
    out[in.name] = {in.dtype, in.shape, in.span};
  return out;
}

} // namespace teval::parser
