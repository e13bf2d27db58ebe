// The symbolic prover's encoding (see htp_prover.h): the match's graph and
// the replacement as tensors of symbolic extents whose elements are Z3
// terms (the ops' meanings are htp_prove_ops.cpp's, the constraint
// htp_prove_constraint.cpp's).
#include "verify/htp_prover.h"

#include "core/format.h"
#include "core/kernel.h"

#include <regex>

namespace teval::verify::htp::prove {

using rules::TensorType;

namespace {

using ast::as_call;
using ast::as_string;

} // namespace

z3::sort element_sort(z3::context& c, HtpType t) {
  return t == HtpType::Float16 ? c.fpa_sort(5, 11) : c.fpa_sort(8, 24);
}

Encoding::Encoding(z3::context& c, const Rule& rule, const OpSet& ops, const Skeleton& skeleton,
                   const std::vector<HtpType>& leaf_dtypes, bool precision)
    : c_(c), precision_(precision), rule_(rule), ops_(ops), skeleton_(skeleton) {
  for (const char* axis : {"n", "h", "w", "c"})
    index_.push_back(c_.int_const((std::string("at_") + axis).c_str()));
  size_t next = 0;
  for (size_t i = 0; i < skeleton_.items.size(); ++i) {
    const Skeleton::Item& item = skeleton_.items[i];
    if (!item.name.empty())
      tags_[item.name] = int(i);
    if (item.kind == Skeleton::Item::Kind::Op)
      continue;
    Leaf leaf;
    leaf.item = int(i);
    leaf.name = item.name.empty() ? "const" + std::to_string(i) : item.name;
    leaf.dtype = leaf_dtypes.at(next++);
    for (size_t d = 0; d < kRank; ++d)
      leaf.shape.push_back(c_.int_const((leaf.name + "_d" + std::to_string(d)).c_str()));
    z3::sort ints[kRank] = {c_.int_sort(), c_.int_sort(), c_.int_sort(), c_.int_sort()};
    leaf.values = c_.function(("v_" + leaf.name).c_str(), kRank, ints,
                              is_float(leaf.dtype) ? element_sort(c_, leaf.dtype) : c_.int_sort());
    if (rules::quantized(leaf.dtype)) {
      leaf.zero = c_.int_const(("zero_" + leaf.name).c_str());
      leaf.step = c_.constant(("step_" + leaf.name).c_str(), c_.fpa_sort(8, 24));
      encodings_.emplace_back(*leaf.zero, *leaf.step);
    }
    leaves_.push_back(leaf);
  }
}

z3::expr Encoding::assumptions() {
  z3::expr all = c_.bool_val(true);
  nodes_.clear();
  nodes_.reserve(skeleton_.items.size());
  size_t next = 0;
  for (size_t i = 0; i < skeleton_.items.size(); ++i) {
    const Skeleton::Item& item = skeleton_.items[i];
    if (item.kind != Skeleton::Item::Kind::Op) {
      const Leaf& leaf = leaves_[next++];
      SymTensor t;
      t.dtype = leaf.dtype;
      t.shape = leaf.shape;
      for (const z3::expr& d : leaf.shape)
        all = all && d >= 1 && d <= c_.int_val(kMaxExtent);
      t.zero = leaf.zero;
      t.step = leaf.step;
      if (leaf.zero) {
        // The encodings teval draws: a zero offset in the dtype's range
        // (0 for QInt16 and QInt32), a positive, normal step.
        auto [lo, hi] = zero_range(leaf.dtype);
        all = all && *leaf.zero >= c_.int_val(lo) && *leaf.zero <= c_.int_val(hi) &&
              leaf.step->mk_is_normal() && !z3::expr(c_, Z3_mk_fpa_is_negative(c_, *leaf.step));
      }
      const z3::func_decl values = *leaf.values;
      const HtpType dtype = leaf.dtype;
      auto* self = this;
      t.at = [self, values, dtype](const Index& at) -> z3::expr {
        z3::expr v = values(at[0], at[1], at[2], at[3]);
        if (!is_float(dtype)) { // codes of the dtype's range
          auto [lo, hi] = code_range(dtype);
          self->value_conditions_.push_back(v >= self->c_.int_val(lo) && v <= self->c_.int_val(hi));
        } else if (self->precision_) { // within float16's finite range
          self->value_conditions_.push_back(self->in_float16_range(v));
        }
        return v;
      };
      nodes_.push_back(t);
      continue;
    }
    std::vector<const SymTensor*> inputs;
    for (int k : item.inputs)
      inputs.push_back(&nodes_[k]);
    z3::expr typed = c_.bool_val(true);
    try {
      nodes_.push_back(apply(item.op, inputs, nullptr, &typed, rule_.match->span));
      all = all && typed;
    } catch (const Outside& e) {
      SymTensor poisoned;
      poisoned.shape =
          inputs.empty() ? std::vector<z3::expr>(kRank, c_.int_val(1)) : inputs[0]->shape;
      poisoned.poison = e;
      nodes_.push_back(poisoned);
    }
  }
  tags_["*"] = skeleton_.root;
  return all && truth(*rule_.constraint);
}

z3::expr Encoding::obligations(z3::expr& differ) {
  const SymTensor& root = nodes_.at(skeleton_.root);
  z3::expr keep = c_.bool_val(true);
  SymTensor after = replacement(keep);
  z3::expr in_bounds = c_.bool_val(true);
  for (size_t d = 0; d < kRank; ++d)
    in_bounds = in_bounds && index_[d] >= 0 && index_[d] < root.shape[d];
  differ = c_.bool_val(false);
  if (rules::storage(after.dtype) == rules::storage(root.dtype) && !after.is_shape) {
    value_conditions_.clear();
    faults_.clear();
    // A graph that faults before the rewrite is no case (there, at least);
    // a fault after it is a difference.
    const z3::expr before = root.at(index_);
    const size_t before_faults = faults_.size();
    const z3::expr now = after.at(index_);
    if (!z3::eq(now.get_sort(), before.get_sort()))
      throw Outside{rule_.replacement->span, "the output's elements are " +
                                                 now.get_sort().to_string() + " after and " +
                                                 before.get_sort().to_string() + " before"};
    z3::expr faulted_before = c_.bool_val(false), faults_after = c_.bool_val(false);
    for (size_t i = 0; i < faults_.size(); ++i)
      (i < before_faults ? faulted_before : faults_after) =
          (i < before_faults ? faulted_before : faults_after) || faults_[i];
    for (const z3::expr& chunk : chunk_conditions_)
      in_bounds = in_bounds && chunk;
    for (const z3::expr& v : value_conditions_)
      in_bounds = in_bounds && v;
    // (A rule that lowers precision on purpose: beyond the documented
    // change, for outputs within float16's range.)
    const z3::expr values_differ =
        precision_ ? !within_precision_change(before, now) && premise(before) : now != before;
    differ = in_bounds && !faulted_before && (values_differ || faults_after);
  }
  for (const z3::expr& p : premises_)
    differ = differ && p;
  return keep;
}

z3::expr Encoding::in_float16_range(const z3::expr& v) const {
  const z3::expr limit = z3::fpa_to_fpa(c_.fpa_val(65504.0), v.get_sort());
  return !v.mk_is_nan() && v <= limit && v >= -limit;
}

// The documented precision change (docs/HTP_RULES.md, changes-precision),
// element by element: NaN and infinities in their places, and a finite
// difference at most kPrecisionChangeBound (2^-7) of the larger magnitude
// of the two (at least 2^-14), which the graph's largest magnitude bounds;
// a quantized output's codes at most one apart (within one step).
z3::expr Encoding::within_precision_change(const z3::expr& before, const z3::expr& after) const {
  if (!before.is_fpa())
    return before.is_int() ? before - after <= 1 && after - before <= 1 : before == after;
  // In float32 (both exact there), the difference rounded down and up so
  // that the true one lies between: the test is sound, not exact.
  const z3::sort f32 = c_.fpa_sort(8, 24);
  const z3::expr b = z3::fpa_to_fpa(before, f32), a = z3::fpa_to_fpa(after, f32);
  const z3::expr down(c_, Z3_mk_fpa_sub(c_, Z3_mk_fpa_rtn(c_), a, b));
  const z3::expr up(c_, Z3_mk_fpa_sub(c_, Z3_mk_fpa_rtp(c_), a, b));
  const z3::expr floor = c_.fpa_val(0x1p-14f);
  const z3::expr scale = z3::max(z3::max(z3::abs(a), z3::abs(b)), floor);
  const z3::expr bound = scale * c_.fpa_val(1.0f / 128); // exact: a power of two
  const z3::expr finite =
      !before.mk_is_nan() && !before.mk_is_inf() && !after.mk_is_nan() && !after.mk_is_inf();
  return (before.mk_is_nan() == after.mk_is_nan()) &&
         z3::ite(finite, up <= bound && down >= -bound,
                 before.mk_is_nan() || z3::fp_eq(before, after));
}

// What a precision claim assumes of the output before the rewrite: a
// float within float16's finite range.
z3::expr Encoding::premise(const z3::expr& before) const {
  return before.is_fpa() ? in_float16_range(before) : c_.bool_val(true);
}

z3::expr Encoding::obligations_without_values() {
  z3::expr keep = c_.bool_val(true);
  (void)replacement(keep);
  return keep;
}

SymTensor Encoding::shape_node(std::vector<z3::expr> value) const {
  SymTensor t;
  t.dtype = HtpType::Int32;
  t.is_shape = true;
  t.fresh = true;
  t.shape = std::move(value);
  t.at = [](const Index&) -> z3::expr { throw Outside{{}, "the data of a shape"}; };
  return t;
}

SymTensor Encoding::replacement(z3::expr& keep) {
  chunk_conditions_.clear();
  premises_.clear();
  const SymTensor& root = nodes_.at(skeleton_.root);
  if (root.poison)
    throw *root.poison;
  SymTensor in_force = root;
  in_force.fresh = false;
  z3::expr typed = c_.bool_val(true);
  SymTensor after = build(*rule_.replacement, in_force, typed);
  // The output's storage dtype and extents stay (the evaluator compares
  // outputs as stored: a QInt32 and an Int32 of the same codes agree).
  keep = typed &&
         c_.bool_val(rules::storage(after.dtype) == rules::storage(root.dtype) && !after.is_shape);
  for (size_t d = 0; d < kRank; ++d)
    keep = keep && after.shape[d] == root.shape[d];
  for (const z3::expr& p : premises_)
    keep = z3::implies(p, keep);
  return after;
}

// Slice_shape(x, start, size) as optimize.h and teval's standard ops define
// it: the box of extents `size` at `start` (an ops file's own definition
// is not encoded).
SymTensor Encoding::slice(const std::vector<const SymTensor*>& inputs, const SymTensor* declared,
                          z3::expr* typed, core::Span where) {
  elementwise_ = false;
  const rules::OpDef* def =
      inputs.empty() ? nullptr : ops_.find("Slice_shape", inputs[0]->dtype, inputs.size());
  const rules::OpDef* standard =
      inputs.empty() ? nullptr
                     : OpSet::standard().find("Slice_shape", inputs[0]->dtype, inputs.size());
  if (!def || !standard || def->program != standard->program || inputs.size() != 3 ||
      inputs[0]->is_shape || !inputs[1]->is_shape || !inputs[2]->is_shape || !declared)
    throw Outside{where, "a Slice_shape other than the standard one of a tensor and two shapes"};
  const SymTensor x = *inputs[0];
  const std::vector<z3::expr> start = inputs[1]->shape, size = inputs[2]->shape;
  z3::expr ok = c_.bool_val(declared->dtype == x.dtype);
  for (size_t d = 0; d < kRank; ++d)
    ok = ok && declared->shape[d] == size[d] && start[d] >= 0 && size[d] >= 0 &&
         (size[d] == 0 || start[d] + size[d] <= x.shape[d]);
  *typed = ok;
  SymTensor r;
  r.dtype = declared->dtype;
  r.shape = declared->shape;
  r.zero = declared->zero; // the node's encoding, of the codes copied
  r.step = declared->step;
  r.op = "Slice_shape";
  r.at = [x, start](const Index& at) {
    Index moved;
    for (size_t d = 0; d < kRank; ++d) // (i - s) + s is i again: equal reads
      moved.push_back((at[d] + start[d]).simplify());
    return x.at(moved);
  };
  return r;
}

// AUTOSPLIT(dim, tag, chunk, body): a Concat along `dim` of the bodies of
// the chunks [k * chunk, min((k + 1) * chunk, extent)), each built with the
// output definition in force cut to the chunk. One symbolic chunk stands
// for all: its start k * chunk is the solver's to choose, the chunk that
// holds the element the query is about.
SymTensor Encoding::autosplit(const ast::Call& c, const SymTensor& in_force, z3::expr& typed) {
  elementwise_ = false;
  int64_t dim = -1;
  z3::expr dim_e = as_int(eval(*c.args[0]), *c.args[0]).simplify();
  if (!dim_e.is_numeral_i64(dim) || dim < 0 || dim >= int64_t(kRank))
    throw Outside{c.args[0]->span, "AUTOSPLIT of a dimension other than a constant below 4"};
  const std::string tag = as_string(*c.args[1])->value;
  const z3::expr chunk = as_int(eval(*c.args[2]), *c.args[2]);
  const SymTensor whole = in_force;
  const z3::expr extent = whole.shape[dim];
  const std::string id = std::to_string(splits_made_++);
  const z3::expr k = c_.int_const(("chunk_" + id).c_str());
  const z3::expr start = c_.int_const(("chunk_start_" + id).c_str());
  const z3::expr size = z3::ite(chunk < extent - start, chunk, extent - start);
  const z3::expr valid = k >= 0 && start == k * chunk && start < extent;
  // teval builds at most 4096 chunks (rules/htp_rewrite.cpp, kMaxChunks):
  // a larger split is a limit of teval's, beyond the claim.
  premises_.push_back(chunk <= 0 || extent <= 4096 * chunk);
  SymTensor cut = whole;
  cut.shape[dim] = size;
  cut.fresh = false;
  splits_.push_back({tag, int(dim), start, size});
  z3::expr body_typed = c_.bool_val(true);
  SymTensor body = build(*c.args[3], cut, body_typed);
  splits_.pop_back();
  z3::expr fits = body_typed && c_.bool_val(body.dtype == whole.dtype && !body.is_shape);
  for (size_t d = 0; d < kRank; ++d)
    fits = fits && body.shape[d] == (int64_t(d) == dim ? size : whole.shape[d]);
  // A chunk size of 0 or less is a fault of the rewrite; every chunk's
  // body must accept its inputs and have the chunk's type.
  typed = typed && chunk > 0 && z3::implies(valid, fits);
  SymTensor r;
  r.dtype = whole.dtype;
  r.shape = whole.shape;
  r.fresh = true;
  r.op = "Concat";
  auto* self = this;
  r.at = [self, body, dim, start, size, valid, chunk](const Index& at) {
    if (!z3::eq(at[dim], self->index_[dim]))
      throw Outside{{}, "a tiled tensor read at an index other than the output's"};
    // (A chunk size of 0 or less is the types query's: no chunk then.)
    self->chunk_conditions_.push_back(chunk <= 0 ||
                                      (valid && start <= at[dim] && at[dim] < start + size));
    Index local = at;
    local[dim] = (at[dim] - start).simplify();
    return body.at(local);
  };
  return r;
}

// AUTOSPLIT_SHAPEFN_APPLY of the seed's slice macros' shape functions:
// the start or size of an input's slice for the chunk of split `tag`.
SymTensor Encoding::shape_function(const ast::Call& c, z3::expr& typed) {
  elementwise_ = false;
  const auto* name = std::get_if<ast::Name>(&c.args[0]->node);
  const std::string fn = name ? name->id : "";
  const bool simple = fn == "simple_split_start" || fn == "simple_split_size";
  const bool simpledim = fn == "simpledim_split_start" || fn == "simpledim_split_size";
  if (!simple && !simpledim)
    throw Outside{c.args[0]->span, "the shape function '" + fn + "' is not encoded"};
  const std::string& tag = as_string(*c.args[1])->value;
  const Split* s = nullptr;
  for (const Split& x : splits_)
    s = x.tag == tag ? &x : s;
  if (!s)
    throw Outside{c.args[1]->span, "a shape function of a split not in scope"};
  const SymTensor in = opref(*c.args[2]);
  int64_t dim = s->dim;
  if (simpledim) {
    z3::expr d = as_int(eval(*c.args[3]), *c.args[3]).simplify();
    if (!d.is_numeral_i64(dim) || dim < 0 || dim >= int64_t(kRank))
      throw Outside{c.args[3]->span, "a dimension other than a constant below 4"};
  }
  std::vector<z3::expr> start(kRank, c_.int_val(0)), size = in.shape;
  const z3::expr whole = nodes_.at(skeleton_.root).shape[s->dim];
  // A broadcast input (extent 1) gives every chunk its one slice; another
  // must have the split output's extent (else the rewrite is not
  // evaluable), and the chunk must lie inside it.
  const z3::expr broadcast = simple ? in.shape[dim] == 1 && whole != 1 : c_.bool_val(false);
  if (simple)
    typed = typed && (broadcast || in.shape[dim] == whole);
  typed = typed && (broadcast || s->start + s->size <= in.shape[dim]);
  start[dim] = z3::ite(broadcast, c_.int_val(0), s->start);
  size[dim] = z3::ite(broadcast, in.shape[dim], s->size);
  return shape_node(fn.ends_with("_start") ? start : size);
}

// ---- The replacement ---------------------------------------------------------

SymTensor Encoding::build(const ast::Expr& e, const SymTensor& in_force, z3::expr& typed) {
  if (as_string(e)) {
    SymTensor t = opref(e);
    t.fresh = false;
    return t;
  }
  const ast::Call& c = *as_call(e);
  const std::string& f = c.callee;
  if (f == "Operand")
    return build(*c.args[0], in_force, typed);
  if (f == "SELECT") {
    z3::expr cond = truth(*c.args[0]);
    z3::expr ta = c_.bool_val(true), tb = c_.bool_val(true);
    SymTensor a = build(*c.args[1], in_force, ta), b = build(*c.args[2], in_force, tb);
    typed = typed && z3::ite(cond, ta, tb);
    if (a.dtype != b.dtype) {
      // The branches' dtypes differ: only one of them can be taken here.
      z3::solver s(c_);
      s.add(cond);
      if (s.check() == z3::unsat)
        return b;
      s.reset();
      s.add(!cond);
      if (s.check() == z3::unsat)
        return a;
      throw Outside{e.span, "a SELECT whose branches have different dtypes"};
    }
    SymTensor r;
    r.dtype = a.dtype;
    r.fresh = a.fresh || b.fresh;
    for (size_t d = 0; d < kRank; ++d)
      r.shape.push_back(z3::ite(cond, a.shape[d], b.shape[d]));
    r.at = [cond, a, b, span = e.span](const Index& at) {
      z3::expr x = a.at(at), y = b.at(at);
      if (!z3::eq(x.get_sort(), y.get_sort()))
        throw Outside{span, "a SELECT whose branches' elements are of different sorts"};
      return z3::ite(cond, x, y);
    };
    return r;
  }
  if (f == "Op" || f == "WrapOp" || f == "WrapOpAlways") {
    const std::string& name = as_string(*c.args[0])->value;
    std::vector<SymTensor> built;
    for (size_t i = 1; i < c.args.size(); ++i)
      built.push_back(build(*c.args[i], in_force, typed));
    std::vector<const SymTensor*> inputs;
    for (const SymTensor& t : built)
      inputs.push_back(&t);
    if (f != "Op") {
      // WrapOp of an op of that name is that op: not encoded (the graph
      // decides), WrapOpAlways always wraps, with its operand's output.
      if (f == "WrapOp" && built[0].op == name)
        return built[0];
      z3::expr ok = c_.bool_val(true);
      SymTensor r = apply(name, inputs, &built[0], &ok, c.callee_span);
      typed = typed && ok;
      r.fresh = true;
      return r;
    }
    z3::expr ok = c_.bool_val(true);
    SymTensor r = apply(name, inputs, &in_force, &ok, c.callee_span);
    typed = typed && ok;
    r.fresh = true;
    return r;
  }
  if (f == "AUTOSPLIT")
    return autosplit(c, in_force, typed);
  if (f == "gen_Shape") {
    std::vector<z3::expr> value;
    for (const ast::ExprPtr& a : c.args) {
      value.push_back(as_int(eval(*a), *a));
      typed = typed && value.back() >= 0 && value.back() <= c_.int_val(kMaxExtent);
    }
    if (value.size() != kRank)
      throw Outside{e.span, "a gen_Shape of rank other than 4"};
    return shape_node(value);
  }
  if (f == "gen_ShapeOf")
    return shape_node(build(*c.args[0], in_force, typed).shape);
  if (f == "AUTOSPLIT_SHAPEFN_APPLY")
    return shape_function(c, typed);
  if (f == "gen_ConstScalar_f32") {
    Val v = eval(*c.args[0]);
    SymTensor r;
    r.dtype = HtpType::Float32;
    r.fresh = true;
    r.shape.assign(kRank, c_.int_val(1));
    z3::context& ctx = c_;
    if (v.type == Val::Type::Float && v.e) {
      z3::expr x = *v.e;
      r.at = [x](const Index&) { return x; };
    } else if (v.type == Val::Type::Float) {
      float x = v.f;
      r.at = [&ctx, x](const Index&) { return ctx.fpa_val(x); };
    } else if (v.type == Val::Type::Int || v.type == Val::Type::Size) {
      z3::expr i = *v.e;
      r.at = [&ctx, i](const Index&) {
        return z3::expr(ctx, Z3_mk_fpa_to_fp_int_real(ctx, ctx.fpa_rounding_mode(), ctx.int_val(0),
                                                      z3::to_real(i), ctx.fpa_sort(8, 24)));
      };
    } else {
      throw Outside{e.span, "gen_ConstScalar_f32 of a bool or dtype"};
    }
    return r;
  }
  if (f == "WITH_SIZE" || f == "WITH_TYPE" || f == "WITH_SAME_OUTPUT" || f == "WITH_OUTPUT_TYPE" ||
      f == "ResizeDim" || f == "WITH_SAME_ID" || f == "WITH_SPLIT_HISTORY")
    return modifier(c, in_force, typed);
  throw Outside{c.callee_span, f + " is not encoded yet"};
}

SymTensor Encoding::modifier(const ast::Call& c, const SymTensor& in_force, z3::expr& typed) {
  const std::string& f = c.callee;
  SymTensor t = in_force;
  if (f == "WITH_SIZE" || f == "WITH_TYPE" || f == "WITH_SAME_OUTPUT") {
    // An existing opref, or for WITH_SIZE a shape construction.
    SymTensor from = build(*c.args[0], in_force, typed);
    elementwise_ = elementwise_ && f != "WITH_SIZE";
    if (f == "WITH_SIZE")
      t.shape = from.shape;
    else if (f == "WITH_TYPE") {
      t.dtype = from.dtype; // and its encoding
      t.zero = from.zero;
      t.step = from.step;
    } else {
      t = from;
    }
  } else if (f == "WITH_OUTPUT_TYPE") {
    // The dtype, zero offset and step given (the step a constant, an
    // integer or a tensor's STEPSIZE_OF).
    Val dt = eval(*c.args[0]);
    std::optional<HtpType> h = rules::htp_type_from_name(dt.dtype);
    if (dt.type != Val::Type::DType || !h)
      throw Outside{c.args[0]->span, "WITH_OUTPUT_TYPE of an unmodelled dtype"};
    t.dtype = *h;
    t.zero.reset();
    t.step.reset();
    if (rules::quantized(*h)) {
      t.zero = as_int(eval(*c.args[1]), *c.args[1]);
      const ast::Call* step = as_call(*c.args[2]);
      if (step && step->callee == "STEPSIZE_OF") {
        const SymTensor& of = opref(*step->args[0]);
        t.step = of.step ? *of.step : c_.fpa_val(1.0f);
      } else if (Val v = eval(*c.args[2]); v.type == Val::Type::Float) {
        t.step = v.e ? *v.e : c_.fpa_val(v.f);
      } else {
        t.step = z3::expr(c_, Z3_mk_fpa_to_fp_real(c_, c_.fpa_rounding_mode(),
                                                   z3::to_real(as_int(v, *c.args[2])),
                                                   c_.fpa_sort(8, 24)));
      }
    }
  } else if (f == "ResizeDim") {
    elementwise_ = false;
    const auto* lit = std::get_if<ast::IntLit>(&c.args[0]->node);
    if (!lit || lit->value >= kRank)
      throw Outside{c.args[0]->span, "ResizeDim of a dimension other than a constant below 4"};
    t.shape[lit->value] = as_int(eval(*c.args[1]), *c.args[1]);
  }
  const ast::Call* last = as_call(*c.args.back());
  if (f == "WITH_SAME_OUTPUT" && last && last->callee.starts_with("gen_Const"))
    throw Outside{c.callee_span, "WITH_SAME_OUTPUT of a constant, which HTP does not define"};
  // An existing node keeps its type; a constructed one has t's.
  return build(*c.args.back(), t, typed);
}

// The output's dtype and encoding as infer_type gives them, for an op whose
// definition \p def computes \p computed: a declared output's (ill-typed,
// into \p ok, when the definition computes another dtype), else the type
// that stores it; a definition that quantizes into its output's encoding
// takes one drawn for it, another keeps its first input's encoding.
void Encoding::output_type(const std::string& op, const rules::OpDef& def, core::DType computed,
                           const std::vector<const SymTensor*>& inputs, const SymTensor* declared,
                           SymTensor& result, z3::expr& ok) {
  const std::string& program = def.program;
  const bool own_encoding = program.find("$quantize(") != std::string::npos ||
                            program.find("$encode(") != std::string::npos ||
                            program.find("$out0.zero") != std::string::npos ||
                            program.find("$out0.step") != std::string::npos;
  if (declared) {
    result.dtype = declared->dtype;
    result.zero = declared->zero;
    result.step = declared->step;
    if (rules::storage(declared->dtype) != computed)
      ok = c_.bool_val(false); // the definition computes another dtype: ill-typed
    if (rules::quantized(result.dtype) && (!result.zero || !result.step))
      throw Outside{def.span, op + " gives a quantized tensor of an encoding not encoded"};
    return;
  }
  // The type that stores what it computes, its first input's where that
  // does; none: ill-typed.
  const std::optional<HtpType> t = rules::htp_type_of_storage(
      computed, inputs.empty() ? std::nullopt : std::optional(inputs[0]->dtype));
  if (!t) {
    ok = c_.bool_val(false);
    return;
  }
  result.dtype = *t;
  if (!rules::quantized(*t))
    return;
  if (own_encoding) {
    // A definition that quantizes into its output's encoding: any.
    const std::string id = std::to_string(encodings_made_++);
    result.zero = c_.int_const(("zero_op" + id).c_str());
    result.step = c_.constant(("step_op" + id).c_str(), c_.fpa_sort(8, 24));
    encodings_.emplace_back(*result.zero, *result.step);
    auto [lo, hi] = zero_range(result.dtype);
    ok = ok && *result.zero >= c_.int_val(lo) && *result.zero <= c_.int_val(hi) &&
         result.step->mk_is_normal() && !z3::expr(c_, Z3_mk_fpa_is_negative(c_, *result.step));
  } else if (!inputs.empty() && inputs[0]->zero) {
    result.zero = inputs[0]->zero; // computed in its first input's encoding
    result.step = inputs[0]->step;
  } else {
    // A float first input's encoding (zero offset 0, step 1), as
    // infer_type keeps it.
    result.zero = c_.int_val(0);
    result.step = c_.fpa_val(1.0f);
  }
}

} // namespace teval::verify::htp::prove
