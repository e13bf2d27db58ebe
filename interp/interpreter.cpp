// The tree-walking interpreter of the Kernel IR: the ground truth.
#include "interp/interpreter.h"

#include "core/error.h"
#include "core/format.h"
#include "core/interrupt.h"
#include "core/progress.h"
#include "core/scalar_ops.h"
#include "interp/block_eval.h"
#include "interp/contraction.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <optional>

namespace teval::interp {

using core::Error;
using core::ErrorKind;
using core::Expr;
using core::ExprNode;
using core::Fault;
using core::Inexact;
using core::Scalar;
using core::Tensor;

std::vector<int> input_ids(const core::Kernel& kernel) {
  std::vector<int> ids;
  for (size_t i = 0; i < kernel.tensors.size(); ++i)
    if (kernel.tensors[i].role == core::TensorRole::Input)
      ids.push_back(static_cast<int>(i));
  return ids;
}

namespace {

// Thrown (and caught per point) when an index point is not valid under
// OutOfRange::Skip.
struct InvalidPoint {};

class Evaluator {
public:
  Evaluator(const core::Kernel& k, const Options& options)
      : k_(k), options_(options), values_(k.tensors.size()) {}

  std::vector<Tensor> run(std::span<const Tensor> inputs) {
    std::vector<int> ids = input_ids(k_);
    TEVAL_ASSERT(inputs.size() == ids.size(), "wrong number of inputs");
    for (size_t i = 0; i < ids.size(); ++i) {
      const core::TensorDecl& d = k_.tensors[ids[i]];
      core::check_input(d.name, d.dtype, d.shape, d.span, inputs[i]);
      values_[ids[i]] = &inputs[i];
    }
    progress_ = core::current_progress();
    if (progress_)
      progress_->statements.store(int64_t(k_.statements.size()), std::memory_order_relaxed);
    for (const core::Statement& s : k_.statements) {
      if (progress_) {
        progress_->statement.fetch_add(1, std::memory_order_relaxed);
        progress_->done.store(0, std::memory_order_relaxed);
        progress_->total.store(points(s), std::memory_order_relaxed);
      }
      statement(s);
    }
    std::vector<Tensor> out;
    for (int o : k_.outputs)
      out.push_back(*values_[o]);
    return out;
  }

private:
  const Tensor& tensor(int id) const { return *values_[id]; }

  static int64_t points(const core::Statement& s) {
    int64_t total = 1;
    for (const core::IndexVar& v : s.vars)
      total *= std::max<int64_t>(v.end - v.begin, 0); // at most 2^40 (elaboration)
    return total;
  }

  void report(int64_t done) {
    if (progress_)
      progress_->done.store(done, std::memory_order_relaxed);
  }

  void statement(const core::Statement& s) {
    const core::TensorDecl& decl = k_.tensors[s.target];
    Tensor out(decl.dtype, decl.shape);
    if (s.init_from)
      out = tensor(*s.init_from);
    else
      out.fill(s.init);
    s_ = &s;
    point_.assign(s.vars.size(), 0);
    for (size_t i = 0; i < s.vars.size(); ++i) {
      point_[i] = s.vars[i].begin;
      if (s.vars[i].begin >= s.vars[i].end) { // an empty box: nothing to do
        owned_.push_back(std::move(out));
        values_[s.target] = &owned_.back();
        return;
      }
    }
    // A contraction: each output's terms added in order, many outputs at
    // a time (interp/contraction.h), unless a read is out of range (the
    // walk below reports it).
    if (options_.blocks)
      if (std::optional<Contraction> c = Contraction::plan(k_, s, values_)) {
        if (c->sum_in_order(out, [&](int64_t done) { report(done * c->points()); })) {
          owned_.push_back(std::move(out));
          values_[s.target] = &owned_.back();
          return;
        }
        out.fill(s.init);
      }
    // Track which point first wrote each location where that matters.
    bool track = s.start == core::Start::FirstValue ||
                 (s.aggregation == core::Aggregation::Assign && !core::injective(s));
    std::vector<int64_t> writer(track ? static_cast<size_t>(out.numel()) : 0, -1);
    std::vector<int64_t> strides = core::strides(decl.shape);
    std::vector<int64_t> out_index(s.out_index.size());
    if (options_.blocks) {
      run_blocks(s, out, strides, out_index, writer);
    } else {
      for (int64_t number = 0;; ++number) {
        core::poll_interrupt();
        if ((number & 4095) == 0)
          report(number);
        visit_point(s, out, strides, out_index, writer, number);
        if (!advance())
          break;
      }
    }
    owned_.push_back(std::move(out));
    values_[s.target] = &owned_.back();
  }

  // The same walk as one visit_point() per point, a block of points at a
  // time; a block that meets any error is replayed point by point.
  void run_blocks(const core::Statement& s, Tensor& out, const std::vector<int64_t>& strides,
                  std::vector<int64_t>& out_index, std::vector<int64_t>& writer) {
    int64_t total = 1;
    for (const core::IndexVar& v : s.vars)
      total *= v.end - v.begin;
    detail::BlockEvaluator block(s, values_, out.shape());
    // The commonest reduction, a float32 sum from the initial value, stores
    // without going through Scalars.
    bool sum32 = s.aggregation == core::Aggregation::Sum && out.dtype() == core::DType::Float32 &&
                 s.start == core::Start::Init && writer.empty();
    if (sum32)
      if (std::optional<core::Statement> moved = block.with_output_row_innermost()) {
        if (sum_in_order(*moved, out, total))
          return;
        out.fill(s.init); // evaluated again in the statement's own order
      }
    for (int64_t number = 0; number < total;) {
      core::poll_interrupt();
      report(number);
      int n = static_cast<int>(std::min<int64_t>(detail::BlockEvaluator::kBlock, total - number));
      if (block.evaluate(point_, n)) {
        const std::vector<int32_t>& valid = block.selected();
        if (sum32) {
          add_float32(block, out);
          advance(n);
        } else {
          for (int32_t k : valid)
            store(s, out, block.flat(k), block.value(k), writer, number + k);
          advance(n);
        }
      } else {
        for (int k = 0; k < n; ++k) {
          visit_point(s, out, strides, out_index, writer, number + k);
          advance();
        }
      }
      number += n;
    }
  }

  // Adds the values of \p block's valid points into float32 \p out: the
  // same computation as combine(), float32(acc + v) in double, which is
  // float32 addition (v is a float32 value, the statement's dtype, and the
  // double sum of two floats rounds to the correctly rounded float sum).
  // The accumulator stays in a register while consecutive points add into
  // one location (a reduction's inner loop).
  static void add_float32(const detail::BlockEvaluator& block, Tensor& out) {
    auto* acc = reinterpret_cast<unsigned char*>(out.bytes().data());
    const std::vector<int32_t>& valid = block.selected();
    for (size_t j = 0; j < valid.size();) {
      int64_t flat = block.flat(valid[j]);
      float a;
      std::memcpy(&a, acc + flat * 4, 4);
      for (; j < valid.size() && block.flat(valid[j]) == flat; ++j)
        a = a + static_cast<float>(block.float_value(valid[j]));
      std::memcpy(acc + flat * 4, &a, 4);
    }
  }

  // A float32 sum that cannot fail, its points in the order of \p moved
  // (BlockEvaluator::with_output_row_innermost: the output's row innermost,
  // so that a matmul reads B along rows): each output still adds its values
  // in the statement's order, and the sums of a row's outputs are
  // independent additions instead of one chain. False, with \p out partly
  // summed, when a block gives up (which cannot fail should not).
  bool sum_in_order(const core::Statement& moved, Tensor& out, int64_t total) {
    detail::BlockEvaluator block(moved, values_, out.shape());
    std::vector<int64_t> at(moved.vars.size());
    for (size_t v = 0; v < at.size(); ++v)
      at[v] = moved.vars[v].begin;
    auto* acc = reinterpret_cast<unsigned char*>(out.bytes().data());
    for (int64_t number = 0; number < total;) {
      core::poll_interrupt();
      report(number);
      int n = static_cast<int>(std::min<int64_t>(detail::BlockEvaluator::kBlock, total - number));
      if (!block.evaluate(at, n))
        return false;
      // add_float32's computation, point by point: here consecutive points
      // add into different locations, and the run detection costs 40%.
      for (int32_t k : block.selected()) {
        int64_t flat = block.flat(k);
        float a;
        std::memcpy(&a, acc + flat * 4, 4);
        a = a + static_cast<float>(block.float_value(k));
        std::memcpy(acc + flat * 4, &a, 4);
      }
      advance(moved.vars, at, n);
      number += n;
    }
    return true;
  }

  // Moves \p point n points on in row-major order over \p vars (n may pass
  // the last point only by landing just after it).
  static void advance(const std::vector<core::IndexVar>& vars, std::vector<int64_t>& point, int n) {
    int64_t carry = n;
    for (size_t i = point.size(); i-- > 0 && carry > 0;) {
      const core::IndexVar& v = vars[i];
      int64_t extent = v.end - v.begin;
      int64_t at = point[i] - v.begin + carry;
      point[i] = v.begin + at % extent;
      carry = at / extent;
    }
  }
  void advance(int n) { advance(s_->vars, point_, n); }

  // Moves to the next point in row-major order; false after the last.
  bool advance() { return core::next_point(s_->vars, point_); }

  void visit_point(const core::Statement& s, Tensor& out, const std::vector<int64_t>& strides,
                   std::vector<int64_t>& out_index, std::vector<int64_t>& writer, int64_t number) {
    bool skip = s.out_of_range == core::OutOfRange::Skip;
    try {
      for (const core::Constraint& c : s.constraints) {
        int64_t v = eval(c.expr).i;
        if (v < 0 || v >= c.bound)
          return;
      }
      if (skip && !valid(s.value))
        return;
      // All indices first, then the range checks, as for reads.
      for (size_t d = 0; d < s.out_index.size(); ++d)
        out_index[d] = eval(s.out_index[d]).i;
      int64_t flat = 0;
      for (size_t d = 0; d < s.out_index.size(); ++d) {
        int64_t extent = out.shape()[d];
        if (out_index[d] < 0 || out_index[d] >= extent) {
          if (skip)
            return;
          throw Error(ErrorKind::Range, s.out_index[d]->span,
                      core::write_out_of_range(k_.tensors[s.target].name,
                                               core::format_index(out_index), out.shape(),
                                               point_text()));
        }
        flat += out_index[d] * strides[d];
      }
      Scalar v = eval(s.value);
      store(s, out, flat, v, writer, number);
    } catch (const Fault& f) {
      throw Error(ErrorKind::Arithmetic, fault_span_, f.message + " (at " + point_text() + ")");
    } catch (const Inexact& f) {
      if (!skip)
        throw Error(ErrorKind::Range, fault_span_,
                    "fractional index: " + f.message + " (at " + point_text() + ")");
    } catch (const InvalidPoint&) {
    }
  }

  void store(const core::Statement& s, Tensor& out, int64_t flat, const Scalar& v,
             std::vector<int64_t>& writer, int64_t number) {
    bool first = writer.empty() || writer[flat] < 0;
    if (s.aggregation == core::Aggregation::Assign) {
      if (!first) {
        Scalar old = out.get(flat);
        if (s.conflict == core::WriteConflict::Error || !core::identical(old, v))
          throw Error(
              ErrorKind::Range, s.span,
              "two writes to " + k_.tensors[s.target].name + "[" + location_text(out, flat) + "]" +
                  (s.conflict == core::WriteConflict::Error
                       ? ""
                       : " with different values " + core::format_scalar(old) + " and " +
                             core::format_scalar(v)) +
                  ": first at " + point_text(writer[flat]) + ", again at " + point_text(number));
      }
      out.set(flat, v);
    } else if (first && s.start == core::Start::FirstValue) {
      out.set(flat, v);
    } else {
      out.set(flat, combine(s.aggregation, out.get(flat), v));
    }
    if (!writer.empty() && first)
      writer[flat] = number;
  }

  std::string location_text(const Tensor& t, int64_t flat) const {
    std::vector<int64_t> idx(t.shape().size());
    for (size_t d = idx.size(); d-- > 0;) {
      idx[d] = flat % t.shape()[d];
      flat /= t.shape()[d];
    }
    return core::format_index(idx);
  }

  // "N=1, K=2" for the current point, or for the point numbered \p number.
  std::string point_text(std::optional<int64_t> number = std::nullopt) const {
    std::vector<int64_t> p = point_;
    if (number) {
      int64_t n = *number;
      for (size_t i = p.size(); i-- > 0;) {
        int64_t extent = s_->vars[i].end - s_->vars[i].begin;
        p[i] = s_->vars[i].begin + n % extent;
        n /= extent;
      }
    }
    return core::format_point(s_->vars, p);
  }

  // Under OutOfRange::Skip: every tensor access anywhere in \p e is in
  // range. Both branches of a select count: validity is a property of the
  // point, not of the evaluation path.
  bool valid(const Expr& e) {
    return std::visit(
        [&](const auto& n) -> bool {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, core::Load>) {
            for (const Expr& i : n.index)
              if (!valid(i))
                return false;
            const Tensor& t = tensor(n.tensor);
            for (size_t d = 0; d < n.index.size(); ++d) {
              int64_t v = eval(n.index[d]).i;
              if (v < 0 || v >= t.shape()[d])
                return false;
            }
            return true;
          } else if constexpr (std::is_same_v<T, core::Apply>) {
            for (const Expr& a : n.args)
              if (!valid(a))
                return false;
            return true;
          } else if constexpr (std::is_same_v<T, core::Cast>) {
            return valid(n.value);
          } else if constexpr (std::is_same_v<T, core::Select>) {
            return valid(n.cond) && valid(n.then) && valid(n.otherwise);
          } else {
            return true;
          }
        },
        e->node);
  }

  Scalar eval(const Expr& e) {
    return std::visit([&](const auto& n) { return eval_node(*e, n); }, e->node);
  }

  Scalar eval_node(const ExprNode&, const core::Const& c) { return c.value; }

  Scalar eval_node(const ExprNode& e, const core::VarRef& v) {
    return Scalar::of_int(e.dtype, point_[v.var]);
  }

  Scalar eval_node(const ExprNode& e, const core::Load& l) {
    const Tensor& t = tensor(l.tensor);
    int64_t flat = 0;
    bool in_range = true;
    for (size_t d = 0; d < l.index.size(); ++d) {
      int64_t i = eval(l.index[d]).i;
      in_range &= i >= 0 && i < t.shape()[d];
      flat = flat * t.shape()[d] + i;
    }
    if (in_range)
      return t.get(flat);
    if (s_->out_of_range == core::OutOfRange::Skip)
      throw InvalidPoint{};
    std::vector<int64_t> idx; // evaluated again only to report the error
    for (const Expr& i : l.index)
      idx.push_back(eval(i).i);
    throw Error(ErrorKind::Range, e.span,
                core::read_out_of_range(k_.tensors[l.tensor].name, core::format_index(idx),
                                        t.shape(), point_text()));
  }

  Scalar eval_node(const ExprNode& e, const core::Apply& a) {
    switch (a.op) {
    case core::Op::And: {
      bool v = eval(a.args[0]).truthy() && eval(a.args[1]).truthy();
      return core::constant(e.dtype, v);
    }
    case core::Op::Or: {
      bool v = eval(a.args[0]).truthy() || eval(a.args[1]).truthy();
      return core::constant(e.dtype, v);
    }
    case core::Op::Not:
      return core::constant(e.dtype, !eval(a.args[0]).truthy());
    default:
      break;
    }
    Scalar args[2];
    for (size_t i = 0; i < a.args.size(); ++i)
      args[i] = eval(a.args[i]);
    fault_span_ = e.span;
    return apply(a.op, args, e.dtype, a.overflow);
  }

  Scalar eval_node(const ExprNode& e, const core::Cast& c) {
    Scalar v = eval(c.value);
    fault_span_ = e.span;
    return cast(v, e.dtype);
  }

  Scalar eval_node(const ExprNode&, const core::Select& s) {
    return eval(s.cond).truthy() ? eval(s.then) : eval(s.otherwise);
  }

  const core::Kernel& k_;
  Options options_;
  core::Progress* progress_ = nullptr;
  std::vector<const Tensor*> values_;
  std::deque<Tensor> owned_;
  const core::Statement* s_ = nullptr;
  std::vector<int64_t> point_;
  core::Span fault_span_;
};

} // namespace

std::vector<Tensor> run(const core::Kernel& kernel, std::span<const Tensor> inputs,
                        const Options& options) {
  return Evaluator(kernel, options).run(inputs);
}

} // namespace teval::interp
