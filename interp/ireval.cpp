// IREval: a direct evaluator of the LoopNest IR (see ireval.h).
#include "interp/ireval.h"

#include "core/format.h"
#include "core/interrupt.h"
#include "core/scalar_ops.h"

#include <algorithm>
#include <optional>

namespace teval::interp {

using core::Error;
using core::ErrorKind;
using core::Expr;
using core::ExprNode;
using core::Fault;
using core::Inexact;
using core::Scalar;
using core::Stmt;
using core::Tensor;

namespace {

class IREvaluator {
public:
  explicit IREvaluator(const core::LoopNest& n)
      : n_(n), buffers_(n.buffers.size()), vars_(n.vars.size()), bound_(n.vars.size(), false) {}

  std::vector<Tensor> run(std::span<const Tensor> inputs) {
    TEVAL_ASSERT(inputs.size() == n_.inputs.size(), "wrong number of inputs");
    for (size_t i = 0; i < inputs.size(); ++i) {
      const core::Buffer& b = n_.buffers[n_.inputs[i]];
      core::check_input(b.name, b.dtype, b.shape, b.span, inputs[i]);
      buffers_[n_.inputs[i]] = inputs[i];
    }
    for (int o : n_.outputs) {
      const core::Buffer& b = n_.buffers[o];
      if (b.kind != core::BufferKind::Output)
        continue;
      // An output's contents are unspecified when the nest begins (the
      // JIT's may be a caller's memory): a pattern, not zeros, so that a
      // nest that reads one before writing it shows in every comparison.
      Tensor t(b.dtype, b.shape);
      std::span<std::byte> bytes = t.bytes();
      std::fill(bytes.begin(), bytes.end(), core::kUnwrittenOutput);
      buffers_[o] = std::move(t);
    }
    exec(n_.root);
    std::vector<Tensor> out;
    for (int o : n_.outputs) {
      TEVAL_ASSERT(buffers_[o].has_value(), "an output buffer that does not exist");
      out.push_back(*buffers_[o]);
    }
    return out;
  }

private:
  Tensor& buffer(int id) {
    TEVAL_ASSERT(buffers_[id].has_value(),
                 "access to buffer `" + n_.buffers[id].name + "` outside its allocation");
    return *buffers_[id];
  }

  void bind(int var, Scalar v) {
    TEVAL_ASSERT(!bound_[var], "variable `" + n_.vars[var].name + "` bound twice");
    vars_[var] = v;
    bound_[var] = true;
  }
  void unbind(int var) { bound_[var] = false; }

  void exec(const Stmt& s) {
    std::visit([&](const auto& n) { exec_node(n); }, s->node);
  }

  void exec_node(const core::For& f) {
    int64_t begin = eval(f.begin).i, end = eval(f.end).i;
    const core::LoopVar& v = n_.vars[f.var];
    for (int64_t i = begin; i < end; ++i) {
      core::poll_interrupt();
      bind(f.var, Scalar::of_int(v.dtype, i));
      exec(f.body);
      unbind(f.var);
    }
  }

  void exec_node(const core::Store& st) {
    if (st.guard && !eval(st.guard).truthy())
      return;
    Tensor& t = buffer(st.buffer);
    std::vector<int64_t> index;
    for (const Expr& i : st.index)
      index.push_back(eval(i).i);
    int64_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      if (index[d] < 0 || index[d] >= t.shape()[d])
        throw Error(ErrorKind::Range, st.index[d]->span,
                    core::write_out_of_range(n_.buffers[st.buffer].name, core::format_index(index),
                                             t.shape(), point_text()));
      flat = flat * t.shape()[d] + index[d];
    }
    Scalar v = eval(st.value);
    TEVAL_ASSERT(v.dtype == t.dtype(), "store of a value of another dtype");
    t.set(flat, v);
  }

  void exec_node(const core::Let& l) {
    Scalar v = eval(l.value);
    TEVAL_ASSERT(v.dtype == n_.vars[l.var].dtype, "let of a value of another dtype");
    bind(l.var, v);
    exec(l.body);
    unbind(l.var);
  }

  void exec_node(const core::Cond& c) {
    if (eval(c.cond).truthy())
      exec(c.then);
    else if (c.otherwise)
      exec(c.otherwise);
  }

  void exec_node(const core::Block& b) {
    for (const Stmt& s : b.stmts)
      exec(s);
  }

  void exec_node(const core::Allocate& a) {
    TEVAL_ASSERT(!buffers_[a.buffer], "buffer allocated twice");
    const core::Buffer& b = n_.buffers[a.buffer];
    buffers_[a.buffer] = Tensor(b.dtype, b.shape);
    if (!a.zeroed) // unspecified: the unwritten pattern, so that a read before a write shows
      std::fill(buffers_[a.buffer]->bytes().begin(), buffers_[a.buffer]->bytes().end(),
                core::kUnwrittenOutput);
  }

  void exec_node(const core::Free& f) {
    TEVAL_ASSERT(buffers_[f.buffer], "free of a buffer that does not exist");
    buffers_[f.buffer].reset();
  }

  [[noreturn]] void exec_node(const core::Raise& r) {
    std::vector<Scalar> values;
    for (const Expr& a : r.args)
      values.push_back(eval(a));
    throw Error(r.kind, r.span, core::raise_message(r, values));
  }

  // "N=1, K=2": the bound point variables, or "the only point".
  std::string point_text() const {
    std::string out;
    for (size_t v = 0; v < vars_.size(); ++v)
      if (bound_[v] && n_.vars[v].point)
        out += (out.empty() ? "" : ", ") + n_.vars[v].name + "=" + std::to_string(vars_[v].i);
    return out.empty() ? "the only point" : out;
  }

  Scalar eval(const Expr& e) {
    return std::visit([&](const auto& n) { return eval_node(*e, n); }, e->node);
  }

  Scalar eval_node(const ExprNode&, const core::Const& c) { return c.value; }

  Scalar eval_node(const ExprNode& e, const core::VarRef& v) {
    TEVAL_ASSERT(bound_[v.var], "variable `" + n_.vars[v.var].name + "` used unbound");
    TEVAL_ASSERT(vars_[v.var].dtype == e.dtype, "variable read with another dtype");
    return vars_[v.var];
  }

  Scalar eval_node(const ExprNode& e, const core::Load& l) {
    const Tensor& t = buffer(l.tensor);
    std::vector<int64_t> index;
    for (const Expr& i : l.index)
      index.push_back(eval(i).i);
    int64_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      if (index[d] < 0 || index[d] >= t.shape()[d])
        throw Error(ErrorKind::Range, e.span,
                    core::read_out_of_range(n_.buffers[l.tensor].name, core::format_index(index),
                                            t.shape(), point_text()));
      flat = flat * t.shape()[d] + index[d];
    }
    return t.get(flat);
  }

  Scalar eval_node(const ExprNode& e, const core::Apply& a) {
    switch (a.op) {
    case core::Op::And:
      return core::constant(e.dtype, eval(a.args[0]).truthy() && eval(a.args[1]).truthy());
    case core::Op::Or:
      return core::constant(e.dtype, eval(a.args[0]).truthy() || eval(a.args[1]).truthy());
    case core::Op::Not:
      return core::constant(e.dtype, !eval(a.args[0]).truthy());
    default:
      break;
    }
    Scalar args[2];
    for (size_t i = 0; i < a.args.size(); ++i)
      args[i] = eval(a.args[i]);
    try {
      return apply(a.op, args, e.dtype, a.overflow);
    } catch (const Fault& f) {
      throw Error(ErrorKind::Arithmetic, e.span, f.message + " (at " + point_text() + ")");
    } catch (const Inexact& f) {
      throw Error(ErrorKind::Range, e.span,
                  "fractional index: " + f.message + " (at " + point_text() + ")");
    }
  }

  Scalar eval_node(const ExprNode& e, const core::Cast& c) {
    Scalar v = eval(c.value);
    try {
      return cast(v, e.dtype);
    } catch (const Fault& f) {
      throw Error(ErrorKind::Arithmetic, e.span, f.message + " (at " + point_text() + ")");
    }
  }

  Scalar eval_node(const ExprNode&, const core::Select& s) {
    return eval(s.cond).truthy() ? eval(s.then) : eval(s.otherwise);
  }

  const core::LoopNest& n_;
  std::vector<std::optional<Tensor>> buffers_;
  std::vector<Scalar> vars_;
  std::vector<bool> bound_;
};

} // namespace

std::vector<Tensor> ireval(const core::LoopNest& nest, std::span<const Tensor> inputs) {
  return IREvaluator(nest).run(inputs);
}

} // namespace teval::interp
