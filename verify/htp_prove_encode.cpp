// The symbolic prover's encoding (see htp_prover.h): the match's graph and
// the replacement as tensors of symbolic extents whose elements are Z3
// terms, the ops' meanings read from their definitions' kernels, the
// constraint as integer arithmetic over the extents and options.
#include "verify/htp_prover.h"

#include "core/format.h"
#include "core/kernel.h"

#include <regex>

namespace teval::verify::htp::prove {

using rules::TensorType;

namespace {

using ast::as_call;
using ast::as_string;

bool is_float(HtpType t) {
  return t == HtpType::Float32 || t == HtpType::Float16;
}

// A definition's program reads extents ($inK[d], $out0[d], $(...)): its
// meaning is not one function of the elements for every shape.
bool reads_extents(const std::string& program) {
  static const std::regex extent(R"(\$(in\d+|out0)\[|\$\()");
  return std::regex_search(program, extent);
}

// The zero offsets teval's verifier draws for a quantized dtype.
std::pair<int64_t, int64_t> zero_range(HtpType t) {
  switch (t) {
  case HtpType::QUInt8:
    return {0, 255};
  case HtpType::QInt8:
    return {-128, 127};
  case HtpType::QUInt16:
    return {0, 65535};
  default:
    return {0, 0};
  }
}

// Probe encodings: distinctive zero offsets and steps given to a
// definition's inputs (and output) so that the kernel's constants that are
// theirs can be told apart and made symbolic again.
constexpr int64_t kProbeZero[] = {113, 109, 107, 103};
constexpr float kProbeStep[] = {0.0123456f, 0.0234567f, 0.0345678f, 0.0456789f};
constexpr size_t kProbeOut = 3;

} // namespace

std::pair<int64_t, int64_t> code_range(HtpType t) {
  switch (t) {
  case HtpType::QUInt8:
    return {0, 255};
  case HtpType::QInt8:
    return {-128, 127};
  case HtpType::QUInt16:
    return {0, 65535};
  case HtpType::QInt16:
    return {-32768, 32767};
  default:
    return {INT32_MIN, INT32_MAX};
  }
}

z3::sort element_sort(z3::context& c, HtpType t) {
  return t == HtpType::Float16 ? c.fpa_sort(5, 11) : c.fpa_sort(8, 24);
}

// A constraint value: a bool, an integer (int or size; a size is an
// integer in [0, 2^64), arithmetic wrapping), a float constant or a dtype.
struct Encoding::Val {
  enum class Type { Bool, Int, Size, Float, DType } type = Type::Bool;
  std::optional<z3::expr> e; ///< Bool, Int, Size
  float f = 0;
  std::string dtype;
};

Encoding::Encoding(z3::context& c, const Rule& rule, const OpSet& ops, const Skeleton& skeleton,
                   const std::vector<HtpType>& leaf_dtypes)
    : c_(c), rule_(rule), ops_(ops), skeleton_(skeleton) {
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
    differ = in_bounds && !faulted_before && (now != before || faults_after);
  }
  for (const z3::expr& p : premises_)
    differ = differ && p;
  return keep;
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

// ---- Ops: their definitions' kernels, elementwise -------------------------

SymTensor Encoding::apply(const std::string& op, const std::vector<const SymTensor*>& inputs,
                          const SymTensor* declared, z3::expr* typed, core::Span where) {
  for (const SymTensor* in : inputs)
    if (in->poison)
      throw *in->poison;
  if (op == "Concat" || op == "$Out")
    throw Outside{where, "the built-in " + op + " is not encoded yet"};
  for (const SymTensor* in : inputs)
    if (in->is_shape && op != "Slice_shape")
      throw Outside{where, op + " of a shape"};
  if (op == "Slice_shape")
    return slice(inputs, declared, typed, where);
  if (inputs.size() > kProbeOut)
    throw Outside{where, op + " of more than " + std::to_string(kProbeOut) + " inputs"};
  std::vector<TensorType> probe;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool q = rules::quantized(inputs[i]->dtype);
    probe.push_back(TensorType{
        inputs[i]->dtype, {2, 3, 4, 5}, q ? int32_t(kProbeZero[i]) : 0, q ? kProbeStep[i] : 1.0f});
  }
  TensorType out = probe.empty() ? TensorType{} : probe[0];
  if (declared)
    out.dtype = declared->dtype;
  if (rules::quantized(out.dtype)) {
    out.zero_offset = int32_t(kProbeZero[kProbeOut]);
    out.step = kProbeStep[kProbeOut];
  } else {
    out.zero_offset = 0;
    out.step = 1.0f;
  }
  const rules::OpDef* def = nullptr;
  core::Kernel k;
  try {
    k = rules::op_kernel(ops_, op, probe, out, &def);
  } catch (const rules::IllTyped& e) {
    // No definition for these dtypes, or one that rejects them: when it
    // accepts inputs of the same extents in the first one's dtype (or in
    // float32), these dtypes are what it rejects, at every shape.
    std::vector<TensorType> uniform = probe;
    for (TensorType& t : uniform)
      t.dtype = probe.empty() ? HtpType::Float32 : probe[0].dtype;
    bool dtypes = e.message.find("has no definition") != std::string::npos;
    if (!dtypes && !probe.empty()) {
      try {
        (void)rules::op_kernel(ops_, op, uniform, uniform[0]);
        dtypes = true;
      } catch (const rules::IllTyped&) {
      }
      // Or float32 inputs of these extents.
      for (TensorType& t : uniform)
        t.dtype = HtpType::Float32;
      try {
        if (!dtypes)
          (void)rules::op_kernel(ops_, op, uniform, uniform[0]);
        dtypes = true;
      } catch (const rules::IllTyped&) {
      }
    }
    if (!dtypes)
      throw Outside{where, op + ": " + e.message};
    *typed = c_.bool_val(false);
    SymTensor none;
    none.dtype = out.dtype;
    none.shape = inputs.empty() ? std::vector<z3::expr>(kRank, c_.int_val(1)) : inputs[0]->shape;
    none.at = [](const Index&) -> z3::expr { throw Outside{{}, "an ill-typed op"}; };
    return none;
  }
  if (reads_extents(def->program))
    throw Outside{def->span, op + "'s definition reads its extents"};
  // Elementwise: one statement out0[N, H, W, C] = f(inputs at the same
  // index or at fixed elements).
  // The statements: each assigns its target, or folds it over one reduce
  // variable, at the index its data variables give; out0's is the last.
  // Every variable's extent is that of a dimension of an input it indexes
  // (or of an intermediate's), which the definition's loads must agree on.
  if (k.statements.empty() || k.tensors[k.statements.back().target].name != "out0" ||
      k.statements.back().out_index.size() != kRank)
    throw Outside{def->span, op + "'s definition does not end in a statement writing out0"};
  z3::expr ok = c_.bool_val(true);
  std::map<int, std::vector<z3::expr>> shapes; // intermediate and output tensors' extents
  std::vector<std::vector<z3::expr>> extents;  // per statement, per variable
  for (const core::Statement& st : k.statements) {
    size_t reduce = 0;
    for (const core::IndexVar& v : st.vars)
      reduce += v.reduce;
    const bool fold =
        st.aggregation == core::Aggregation::Sum || st.aggregation == core::Aggregation::Max ||
        st.aggregation == core::Aggregation::Min || st.aggregation == core::Aggregation::Product;
    if (st.init_from || !st.constraints.empty() ||
        (st.aggregation == core::Aggregation::Assign ? reduce != 0 : !fold || reduce != 1) ||
        shapes.count(st.target))
      throw Outside{def->span, op + "'s definition has a statement other than an assignment or "
                                    "a fold over one variable (a window, a scatter, a guard)"};
    std::vector<std::optional<z3::expr>> ext(st.vars.size());
    std::function<void(const core::Expr&)> scan = [&](const core::Expr& e) {
      if (const auto* l = std::get_if<core::Load>(&e->node)) {
        const std::string& name = k.tensors[l->tensor].name;
        const bool input = k.tensors[l->tensor].role == core::TensorRole::Input;
        if (!input && !shapes.count(l->tensor))
          throw Outside{def->span, op + "'s definition reads " + name + " before writing it"};
        const std::vector<z3::expr>& shape =
            input ? inputs[std::stoul(name.substr(2))]->shape : shapes.at(l->tensor);
        if (l->index.size() != shape.size())
          throw Outside{def->span, op + "'s definition reads " + name + " at another rank"};
        for (size_t d = 0; d < l->index.size(); ++d) {
          if (const auto* v = std::get_if<core::VarRef>(&l->index[d]->node)) {
            if (!ext[v->var])
              ext[v->var] = shape[d];
            else
              ok = ok && *ext[v->var] == shape[d];
          } else if (const auto* c = std::get_if<core::Const>(&l->index[d]->node)) {
            ok = ok && c_.int_val(c->value.i) < shape[d];
          } else {
            throw Outside{def->span, op + "'s definition reads " + name + " at a computed index"};
          }
        }
        return;
      }
      if (const auto* a = std::get_if<core::Apply>(&e->node))
        for (const core::Expr& x : a->args)
          scan(x);
      if (const auto* c = std::get_if<core::Cast>(&e->node))
        scan(c->value);
      if (const auto* s = std::get_if<core::Select>(&e->node)) {
        scan(s->cond);
        scan(s->then);
        scan(s->otherwise);
      }
    };
    scan(st.value);
    std::vector<z3::expr> known;
    for (const std::optional<z3::expr>& x : ext) {
      if (!x)
        throw Outside{def->span, op + "'s definition has an index variable no input's extent "
                                      "gives"};
      known.push_back(*x);
    }
    std::vector<z3::expr> shape;
    for (const core::Expr& i : st.out_index) {
      const auto* v = std::get_if<core::VarRef>(&i->node);
      if (!v || st.vars[v->var].reduce)
        throw Outside{def->span, op + "'s definition writes at a computed index"};
      shape.push_back(known[v->var]);
    }
    shapes[st.target] = shape;
    extents.push_back(known);
  }
  const core::Statement& s = k.statements.back();
  SymTensor result;
  result.shape = declared ? declared->shape : shapes.at(s.target);
  for (size_t d = 0; d < kRank; ++d)
    ok = ok && shapes.at(s.target)[d] == result.shape[d];
  const core::DType computed = k.tensors[s.target].dtype;
  std::optional<HtpType> dtype = computed == core::DType::Float32   ? HtpType::Float32
                                 : computed == core::DType::Float16 ? HtpType::Float16
                                                                    : std::optional<HtpType>();
  // The output's dtype as infer_type gives it: a float's; a definition
  // that quantizes into its output's encoding takes one drawn for it (not
  // encoded); another keeps its first input's encoding.
  const std::string& program = def->program;
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
  } else if (dtype) {
    result.dtype = *dtype;
  } else if (!inputs.empty() && rules::storage(inputs[0]->dtype) == computed &&
             (!own_encoding || rules::quantized(inputs[0]->dtype))) {
    // Its first input's dtype; its encoding too, or (a definition that
    // quantizes into its output's) one of its own, any.
    result.dtype = inputs[0]->dtype;
    result.zero = inputs[0]->zero;
    result.step = inputs[0]->step;
    if (own_encoding) {
      const std::string id = std::to_string(encodings_made_++);
      result.zero = c_.int_const(("zero_op" + id).c_str());
      result.step = c_.constant(("step_op" + id).c_str(), c_.fpa_sort(8, 24));
      encodings_.emplace_back(*result.zero, *result.step);
      auto [lo, hi] = zero_range(result.dtype);
      ok = ok && *result.zero >= c_.int_val(lo) && *result.zero <= c_.int_val(hi) &&
           result.step->mk_is_normal() && !z3::expr(c_, Z3_mk_fpa_is_negative(c_, *result.step));
    }
  } else {
    throw Outside{def->span, op + " computes " + std::string(core::name(computed)) +
                                 " in an encoding of its own from " +
                                 (inputs.empty() ? "no input" : rules::tag(inputs[0]->dtype)) +
                                 ": which quantized dtype it gives is not encoded"};
  }
  if (rules::quantized(result.dtype) && (!result.zero || !result.step))
    throw Outside{def->span, op + " gives a quantized tensor of an encoding not encoded"};
  // The probe encodings' constants in the kernel, made symbolic again.
  std::vector<std::pair<int64_t, z3::expr>> zeros;
  std::vector<std::pair<float, z3::expr>> steps;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i]->zero) {
      zeros.emplace_back(kProbeZero[i], *inputs[i]->zero);
      steps.emplace_back(kProbeStep[i], *inputs[i]->step);
    }
  if (result.zero) {
    zeros.emplace_back(kProbeZero[kProbeOut], *result.zero);
    steps.emplace_back(kProbeStep[kProbeOut], *result.step);
  }
  *typed = ok;
  // The element: the kernel's expression at the index.
  std::vector<SymTensor> ins;
  for (const SymTensor* in : inputs)
    ins.push_back(*in);
  result.op = op;
  std::string op_name = op;
  core::Span span = def->span;
  auto* self = this;
  result.at = [self, k, ins, op_name, span, zeros, steps, extents](const Index& at) -> z3::expr {
    z3::context& c = self->c_;
    const std::vector<z3::expr>* env = nullptr; // the statement's variables' values
    int depth = 0;                              // folds being built
    std::function<z3::expr(int, const Index&)> value_of;
    std::function<z3::expr(const core::Expr&)> term = [&](const core::Expr& e) -> z3::expr {
      const core::DType t = e->dtype;
      const bool integer = core::is_integer(t) && t != core::DType::Bool;
      auto sort_of = [&](core::DType d) -> z3::sort {
        if (d == core::DType::Float32)
          return c.fpa_sort(8, 24);
        if (d == core::DType::Float16)
          return c.fpa_sort(5, 11);
        if (d == core::DType::Float64)
          return c.fpa_sort(11, 53);
        if (core::is_integer(d) && d != core::DType::Bool && d != core::DType::UInt64)
          return c.int_sort();
        throw Outside{span, op_name + "'s definition computes in " + std::string(core::name(d)) +
                                ", which is not encoded yet"};
      };
      if (const auto* k0 = std::get_if<core::Const>(&e->node)) {
        if (t == core::DType::Bool)
          return c.bool_val(k0->value.i != 0);
        // A probe encoding's zero offset or step: the tensor's own.
        for (const auto& [magic, zero] : zeros)
          if (integer ? k0->value.i == magic : k0->value.f == double(magic))
            return integer ? zero
                           : z3::expr(c, Z3_mk_fpa_to_fp_real(c, c.fpa_rounding_mode(),
                                                              z3::to_real(zero), sort_of(t)));
        if (!integer)
          for (const auto& [magic, step] : steps)
            if (float(k0->value.f) == magic) // float32, or its float64 widening
              return z3::fpa_to_fpa(step, sort_of(t));
        // A probe value left over would make the proof one of that
        // encoding only: never let it through.
        for (size_t i = 0; i <= kProbeOut; ++i)
          if ((integer
                   ? k0->value.i == kProbeZero[i]
                   : k0->value.f == double(kProbeZero[i]) || float(k0->value.f) == kProbeStep[i]))
            throw Outside{span, op_name + "'s definition has a constant equal to a probe "
                                          "encoding's, which the encoding cannot tell apart"};
        if (integer)
          return c.int_val(k0->value.i);
        return z3::fpa_to_fpa(c.fpa_val(k0->value.f), sort_of(t));
      }
      if (const auto* l = std::get_if<core::Load>(&e->node)) {
        Index where;
        for (const core::Expr& i : l->index) {
          const auto* cst = std::get_if<core::Const>(&i->node);
          where.push_back(cst ? c.int_val(cst->value.i)
                              : (*env)[std::get<core::VarRef>(i->node).var]);
        }
        if (k.tensors[l->tensor].role != core::TensorRole::Input)
          return value_of(l->tensor, where);
        size_t in = std::stoul(k.tensors[l->tensor].name.substr(2));
        z3::expr v = ins[in].at(where);
        if (!z3::eq(v.get_sort(), sort_of(t))) // an ill-typed input's values
          throw Outside{span, op_name + " reads " + v.get_sort().to_string() + " elements as " +
                                  std::string(core::name(t))};
        return v;
      }
      if (const auto* cast = std::get_if<core::Cast>(&e->node)) {
        z3::expr v = term(cast->value);
        const core::DType from = cast->value->dtype;
        if (v.is_fpa() && !integer)
          return z3::fpa_to_fpa(v, sort_of(t));
        if (v.is_int() && !integer) // exact for the integers storage holds
          return z3::expr(
              c, Z3_mk_fpa_to_fp_real(c, c.fpa_rounding_mode(), z3::to_real(v), sort_of(t)));
        if (!integer || t == core::DType::Int64 || t == core::DType::UInt64)
          throw Outside{span, op_name + "'s definition casts " + std::string(core::name(from)) +
                                  " to " + std::string(core::name(t))};
        const int64_t lo = core::int_min(t), hi = core::int_max(t);
        if (v.is_fpa()) {
          // Truncated toward zero; NaN and values out of range fault.
          z3::expr whole(c, Z3_mk_fpa_round_to_integral(c, Z3_mk_fpa_rtz(c), v));
          z3::expr r(c, Z3_mk_real2int(c, Z3_mk_fpa_to_real(c, whole)));
          self->faults_.push_back(v.mk_is_nan() || v.mk_is_inf() || r < c.int_val(lo) ||
                                  r > c.int_val(hi));
          return z3::ite(v.mk_is_nan() || v.mk_is_inf(), c.int_val(0), r);
        }
        if (!v.is_int())
          throw Outside{span, op_name + "'s definition casts a bool to an integer"};
        // Integers wrap into the target's range.
        const int64_t width = hi - lo + 1;
        return z3::mod(v - c.int_val(lo), c.int_val(width)) + c.int_val(lo);
      }
      if (const auto* sel = std::get_if<core::Select>(&e->node))
        return z3::ite(term(sel->cond), term(sel->then), term(sel->otherwise));
      if (const auto* v = std::get_if<core::VarRef>(&e->node)) {
        if (!integer)
          throw Outside{span, op_name + "'s definition uses an index as a float"};
        return (*env)[v->var];
      }
      const auto* applied = std::get_if<core::Apply>(&e->node);
      if (!applied)
        throw Outside{span, op_name + "'s definition has an expression not encoded yet"};
      const auto& a = *applied;
      std::vector<z3::expr> x;
      for (const core::Expr& arg : a.args)
        x.push_back(term(arg));
      auto nan = [&](const z3::expr& v) { return v.mk_is_nan(); };
      // IEEE addition, multiplication, maximum and minimum commute bit for
      // bit (SMT-LIB has one NaN; so does teval's maximum): their operands
      // in one order, so that a rule that only swaps them is a syntactic
      // identity rather than an equivalence of two circuits.
      if ((a.op == core::Op::Add || a.op == core::Op::Mul || a.op == core::Op::Max ||
           a.op == core::Op::Min) &&
          x.size() == 2 && Z3_get_ast_id(c, x[1]) < Z3_get_ast_id(c, x[0]))
        std::swap(x[0], x[1]);
      if (!x.empty() && x[0].is_int()) {
        // Integers: comparisons, maximum, minimum, and +, -, * with the
        // node's overflow rule.
        switch (a.op) {
        case core::Op::Max:
          return z3::ite(x[0] >= x[1], x[0], x[1]);
        case core::Op::Min:
          return z3::ite(x[0] <= x[1], x[0], x[1]);
        case core::Op::Lt:
          return x[0] < x[1];
        case core::Op::Le:
          return x[0] <= x[1];
        case core::Op::Gt:
          return x[0] > x[1];
        case core::Op::Ge:
          return x[0] >= x[1];
        case core::Op::Eq:
          return x[0] == x[1];
        case core::Op::Ne:
          return x[0] != x[1];
        case core::Op::Add:
        case core::Op::Sub:
        case core::Op::Mul:
        case core::Op::Neg: {
          // Exact, then wrapped into the dtype's range (two's complement)
          // or, for index arithmetic, a fault outside it.
          if (t == core::DType::UInt64)
            throw Outside{span, op_name + "'s definition computes in uint64"};
          const z3::expr exact = a.op == core::Op::Add   ? x[0] + x[1]
                                 : a.op == core::Op::Sub ? x[0] - x[1]
                                 : a.op == core::Op::Mul ? x[0] * x[1]
                                                         : -x[0];
          const z3::expr lo = c.int_val(core::int_min(t)), hi = c.int_val(core::int_max(t));
          if (a.overflow == core::Overflow::Trap) {
            self->faults_.push_back(exact < lo || exact > hi);
            return exact;
          }
          const z3::expr width = hi - lo + 1;
          return z3::ite(exact >= lo && exact <= hi, exact, z3::mod(exact - lo, width) + lo);
        }
        default:
          throw Outside{span, op_name + "'s definition applies `" +
                                  std::string(core::spelling(a.op)) +
                                  "` to integers, which is not encoded yet"};
        }
      }
      switch (a.op) {
      case core::Op::Neg:
        return -x[0];
      case core::Op::Abs:
        return z3::abs(x[0]);
      case core::Op::Add:
        return x[0] + x[1];
      case core::Op::Sub:
        return x[0] - x[1];
      case core::Op::Mul:
        return x[0] * x[1];
      case core::Op::Div:
        return x[0] / x[1];
      case core::Op::Sqrt:
        return z3::sqrt(x[0], c.fpa_rounding_mode());
      case core::Op::RFloor: // the float's floor and ceiling, exact
      case core::Op::RCeil: {
        z3::expr mode(c, a.op == core::Op::RFloor ? Z3_mk_fpa_rtn(c) : Z3_mk_fpa_rtp(c));
        return z3::expr(c, Z3_mk_fpa_round_to_integral(c, mode, x[0]));
      }
      case core::Op::Max:
      case core::Op::Min: {
        // IEEE maximum (minimum): NaN if either is; +0 above -0.
        const bool max = a.op == core::Op::Max;
        z3::expr first = max ? (x[0] > x[1] || (z3::fp_eq(x[0], x[1]) && !x[0].mk_is_zero()) ||
                                (z3::fp_eq(x[0], x[1]) && x[0].mk_is_zero() &&
                                 !z3::expr(c, Z3_mk_fpa_is_negative(c, x[0]))))
                             : (x[0] < x[1] || (z3::fp_eq(x[0], x[1]) && !x[0].mk_is_zero()) ||
                                (z3::fp_eq(x[0], x[1]) && x[0].mk_is_zero() &&
                                 z3::expr(c, Z3_mk_fpa_is_negative(c, x[0]))));
        return z3::ite(nan(x[0]) || nan(x[1]), c.fpa_nan(x[0].get_sort()),
                       z3::ite(first, x[0], x[1]));
      }
      case core::Op::Lt:
        return x[0] < x[1];
      case core::Op::Le:
        return x[0] <= x[1];
      case core::Op::Gt:
        return x[0] > x[1];
      case core::Op::Ge:
        return x[0] >= x[1];
      case core::Op::Eq:
        return x[0].is_fpa() ? z3::fp_eq(x[0], x[1]) : x[0] == x[1];
      case core::Op::Ne:
        return x[0].is_fpa() ? !z3::fp_eq(x[0], x[1]) : x[0] != x[1];
      case core::Op::And:
        return x[0] && x[1];
      case core::Op::Or:
        return x[0] || x[1];
      case core::Op::Not:
        return !x[0];
      default:
        break;
      }
      if (core::rule(a.op) != core::OpRule::Float || x.size() != 1 || !x[0].is_fpa())
        throw Outside{span, op_name + "'s definition applies `" +
                                std::string(core::spelling(a.op)) + "`, which is not encoded yet"};
      // A math function: the same uninterpreted function wherever it is
      // applied to values of one type (equal arguments, equal results).
      const std::string fn = std::string(core::spelling(a.op)) + "_" + std::string(core::name(t));
      auto it = self->functions_.find(fn);
      if (it == self->functions_.end())
        it =
            self->functions_.emplace(fn, c.function(fn.c_str(), x[0].get_sort(), sort_of(t))).first;
      return it->second(x[0]);
    };
    // A tensor's element: its statement's value with the data variables
    // at the index; a fold is an uninterpreted function (one per kind,
    // start and sort) of the values over the reduce variable's range, as
    // an array (zero outside it) and of the range's extent: folds of equal
    // values over equal ranges are equal, in whatever order teval folds.
    value_of = [&](int tensor, const Index& index) -> z3::expr {
      size_t n = 0;
      while (k.statements[n].target != tensor)
        ++n;
      const core::Statement& st = k.statements[n];
      std::vector<z3::expr> vars;
      for (size_t v = 0; v < st.vars.size(); ++v)
        vars.push_back(c.int_val(0));
      for (size_t j = 0; j < st.out_index.size(); ++j)
        vars[std::get<core::VarRef>(st.out_index[j]->node).var] = index[j];
      const std::vector<z3::expr>* outer = env;
      env = &vars;
      if (st.aggregation == core::Aggregation::Assign) {
        z3::expr v = term(st.value);
        env = outer;
        return v;
      }
      size_t r = 0;
      while (!st.vars[r].reduce)
        ++r;
      // Named by its depth among the folds being built, so that the same
      // fold built twice is the same term (Z3 tells lambdas apart by
      // their variables' names).
      const z3::expr bound = c.int_const(("fold_" + std::to_string(depth)).c_str());
      vars[r] = bound;
      ++depth;
      const z3::expr body = term(st.value);
      --depth;
      env = outer;
      const z3::expr& extent = extents[n][r];
      const z3::expr none = body.is_fpa()   ? z3::fpa_to_fpa(c.fpa_val(0.0), body.get_sort())
                            : body.is_int() ? c.int_val(0)
                                            : c.bool_val(false);
      const z3::expr values = z3::lambda(bound, z3::ite(bound >= 0 && bound < extent, body, none));
      const std::string fn = "fold_" + std::to_string(int(st.aggregation)) + "_" +
                             std::to_string(int(st.start)) + "_" + core::format_scalar(st.init) +
                             "_" + body.get_sort().to_string();
      auto it = self->functions_.find(fn);
      if (it == self->functions_.end()) {
        z3::sort domain[2] = {values.get_sort(), c.int_sort()};
        it = self->functions_.emplace(fn, c.function(fn.c_str(), 2, domain, body.get_sort())).first;
      }
      return it->second(values, extent);
    };
    return value_of(k.statements.back().target, at);
  };
  return result;
}

// Slice_shape(x, start, size) as optimize.h and teval's standard ops define
// it: the box of extents `size` at `start` (an ops file's own definition
// is not encoded).
SymTensor Encoding::slice(const std::vector<const SymTensor*>& inputs, const SymTensor* declared,
                          z3::expr* typed, core::Span where) {
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
  r.op = "Slice_shape";
  r.at = [x, start](const Index& at) {
    Index moved;
    for (size_t d = 0; d < kRank; ++d)
      moved.push_back(at[d] + start[d]);
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
    local[dim] = at[dim] - start;
    return body.at(local);
  };
  return r;
}

// AUTOSPLIT_SHAPEFN_APPLY of the seed's slice macros' shape functions:
// the start or size of an input's slice for the chunk of split `tag`.
SymTensor Encoding::shape_function(const ast::Call& c, z3::expr& typed) {
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

// ---- The constraint ----------------------------------------------------------

// A condition outside the fragment is a fresh, unconstrained bool: the
// graphs it admits are a superset of the rule's, so a proof still holds, a
// vacuous case is still vacuous, and a counterexample that its real value
// rules out does not replay (the rule does not apply to it).
z3::expr Encoding::truth(const ast::Expr& e) {
  try {
    Val v = eval(e);
    if (v.type == Val::Type::Bool)
      return *v.e;
  } catch (const Outside&) {
  }
  return c_.bool_const(("condition_" + std::to_string(conditions_++)).c_str());
}

const SymTensor& Encoding::opref(const ast::Expr& e) {
  if (const ast::StringLit* s = as_string(e)) {
    auto it = tags_.find(s->value);
    if (it == tags_.end())
      throw Outside{e.span, "tag \"" + s->value + "\" is not in the match"};
    if (nodes_.at(it->second).poison)
      throw *nodes_.at(it->second).poison;
    return nodes_.at(it->second);
  }
  throw Outside{e.span, "an operand reference other than a tag (INPUT_OF, OUTPUT_OF, SELECT)"};
}

z3::expr Encoding::as_int(const Val& v, const ast::Expr& e) {
  if (v.type == Val::Type::Int || v.type == Val::Type::Size)
    return *v.e;
  throw Outside{e.span, "an integer was expected"};
}

Encoding::Val Encoding::eval(const ast::Expr& e) {
  auto boolean = [&](z3::expr b) {
    Val v;
    v.type = Val::Type::Bool;
    v.e = b;
    return v;
  };
  auto integer = [&](z3::expr i, Val::Type t) {
    Val v;
    v.type = t;
    v.e = i;
    return v;
  };
  if (const auto* i = std::get_if<ast::IntLit>(&e.node)) {
    bool size = i->text.find_first_of("uU") != std::string::npos;
    return integer(c_.int_val(int64_t(i->value)), size ? Val::Type::Size : Val::Type::Int);
  }
  if (const auto* f = std::get_if<ast::FloatLit>(&e.node)) {
    Val v;
    v.type = Val::Type::Float;
    v.f = float(f->value);
    return v;
  }
  if (const auto* u = std::get_if<ast::Unary>(&e.node)) {
    Val v = eval(*u->operand);
    if (u->op != ast::UnaryOp::Neg)
      return v;
    if (v.type == Val::Type::Float) {
      v.f = -v.f;
      return v;
    }
    return integer(-as_int(v, e), Val::Type::Int);
  }
  if (const auto* n = std::get_if<ast::Name>(&e.node)) {
    if (n->id == "OK" || n->id == "true")
      return boolean(c_.bool_val(true));
    if (n->id == "false")
      return boolean(c_.bool_val(false));
    if (n->id.starts_with("DType::")) {
      Val v;
      v.type = Val::Type::DType;
      v.dtype = n->id.substr(7);
      return v;
    }
    throw Outside{e.span, "the constant " + n->id + " is not encoded yet"};
  }
  const ast::Call& c = *as_call(e);
  const std::string& f = c.callee;
  if (f == "AND" || f == "OR" || f == "XOR") {
    z3::expr acc = c_.bool_val(f == "AND");
    for (const ast::ExprPtr& a : c.args)
      acc = f == "AND" ? (acc && truth(*a)) : f == "OR" ? (acc || truth(*a)) : (acc != truth(*a));
    return boolean(acc);
  }
  if (f == "NOT")
    return boolean(!truth(*c.args[0]));
  if (f == "SELECT") {
    Val a = eval(*c.args[1]), b = eval(*c.args[2]);
    if (a.type != b.type || !a.e || !b.e)
      throw Outside{e.span, "a SELECT of values other than bools and integers"};
    return integer(z3::ite(truth(*c.args[0]), *a.e, *b.e), a.type);
  }
  auto both_size = [](const Val& a, const Val& b) {
    return a.type == Val::Type::Size || b.type == Val::Type::Size;
  };
  // An int converted to a size, as C converts: modulo 2^64.
  auto to_size = [&](const Val& v) {
    z3::expr x = *v.e;
    if (v.type == Val::Type::Size)
      return x;
    return z3::ite(x < 0, x + c_.int_val("18446744073709551616"), x);
  };
  if (f == "EQ" || f == "NE" || f == "LT" || f == "GT" || f == "LE" || f == "GE") {
    Val a = eval(*c.args[0]), b = eval(*c.args[1]);
    if (a.type == Val::Type::DType || b.type == Val::Type::DType) {
      bool same = a.dtype == b.dtype;
      return boolean(c_.bool_val(f == "EQ" ? same : !same));
    }
    if (a.type == Val::Type::Float || b.type == Val::Type::Float) {
      if (a.type != Val::Type::Float || b.type != Val::Type::Float)
        throw Outside{e.span, "a float compared with an integer"};
      bool r = f == "EQ"   ? a.f == b.f
               : f == "NE" ? a.f != b.f
               : f == "LT" ? a.f < b.f
               : f == "GT" ? a.f > b.f
               : f == "LE" ? a.f <= b.f
                           : a.f >= b.f;
      return boolean(c_.bool_val(r));
    }
    if (a.type == Val::Type::Bool || b.type == Val::Type::Bool)
      return boolean(f == "EQ" ? *a.e == *b.e : *a.e != *b.e);
    z3::expr x = both_size(a, b) ? to_size(a) : *a.e, y = both_size(a, b) ? to_size(b) : *b.e;
    return boolean(f == "EQ"   ? x == y
                   : f == "NE" ? x != y
                   : f == "LT" ? x < y
                   : f == "GT" ? x > y
                   : f == "LE" ? x <= y
                               : x >= y);
  }
  if (f == "ADD" || f == "MUL" || f == "MIN" || f == "MAX" || f == "SUB" || f == "DIV" ||
      f == "REM" || f == "MOD") {
    Val acc = eval(*c.args[0]);
    for (size_t i = 1; i < c.args.size(); ++i) {
      Val b = eval(*c.args[i]);
      if (acc.type == Val::Type::Float || b.type == Val::Type::Float) {
        if (acc.type != Val::Type::Float || b.type != Val::Type::Float)
          throw Outside{e.span, "float arithmetic on extents is not encoded yet"};
        acc.f = f == "ADD"   ? acc.f + b.f
                : f == "SUB" ? acc.f - b.f
                : f == "MUL" ? acc.f * b.f
                : f == "DIV" ? acc.f / b.f
                : f == "MIN" ? std::min(acc.f, b.f)
                : f == "MAX" ? std::max(acc.f, b.f)
                             : throw Outside{e.span, f + " of floats is not encoded yet"};
        continue;
      }
      const bool size = both_size(acc, b);
      z3::expr x = size ? to_size(acc) : as_int(acc, e), y = size ? to_size(b) : as_int(b, e);
      z3::expr r = x;
      if (f == "ADD")
        r = x + y;
      else if (f == "SUB")
        r = x - y;
      else if (f == "MUL")
        r = x * y;
      else if (f == "MIN")
        r = z3::min(x, y);
      else if (f == "MAX")
        r = z3::max(x, y);
      else {
        // Division by a constant other than zero only (a zero divisor is
        // a fault the proof would have to rule out).
        const ast::Expr& divisor = *c.args[i];
        const auto* lit = std::get_if<ast::IntLit>(&divisor.node);
        if (!lit || lit->value == 0)
          throw Outside{divisor.span, f + " by a value other than a nonzero constant"};
        // C truncates toward zero; Z3's div and mod are Euclidean (the
        // same for a nonnegative dividend and positive divisor).
        z3::expr q = z3::ite(x >= 0, x / y, -((-x) / y));
        r = f == "DIV" ? q
            : f == "REM"
                ? x - q * y
                : z3::ite(x - q * y != 0 && ((x - q * y < 0) != (y < 0)), x - q * y + y, x - q * y);
      }
      if (size)
        r = z3::mod(r, c_.int_val("18446744073709551616"));
      acc = integer(r, size ? Val::Type::Size : Val::Type::Int);
    }
    return acc;
  }
  if (f == "UINT" || f == "INT") {
    Val v = eval(*c.args[0]);
    if (v.type == Val::Type::Float || v.type == Val::Type::DType)
      throw Outside{e.span, f + " of a float or dtype is not encoded yet"};
    return integer(f == "UINT" ? to_size(v) : *v.e, f == "UINT" ? Val::Type::Size : Val::Type::Int);
  }
  if (f == "OPTION_INT" || f == "OPTION_UINT" || f == "OPTION_BOOL") {
    const std::string& name = as_string(*c.args[0])->value;
    auto it = options_.find(name);
    if (it == options_.end())
      it = options_.emplace(name, c_.int_const(("option_" + name).c_str())).first;
    // Its range: a size option HTP never sets to 0, an int option an int.
    if (f == "OPTION_UINT")
      option_ranges_.push_back(it->second >= 1 && it->second <= c_.int_val(kMaxExtent));
    if (f == "OPTION_INT")
      option_ranges_.push_back(it->second >= c_.int_val(int64_t(INT32_MIN)) &&
                               it->second <= c_.int_val(int64_t(INT32_MAX)));
    if (f == "OPTION_BOOL")
      return boolean(it->second != 0);
    return integer(it->second, f == "OPTION_UINT" ? Val::Type::Size : Val::Type::Int);
  }
  if (f == "SPLIT_DIM" || f == "SPLIT_START" || f == "SPLIT_SIZE") {
    const std::string& tag = as_string(*c.args[0])->value;
    for (auto it = splits_.rbegin(); it != splits_.rend(); ++it)
      if (it->tag == tag)
        return integer(f == "SPLIT_DIM"     ? c_.int_val(it->dim)
                       : f == "SPLIT_START" ? it->start
                                            : it->size,
                       Val::Type::Int);
    throw Outside{e.span, f + " of a split not in scope"};
  }
  if (f == "RANK_OF") {
    (void)opref(*c.args[0]);
    return integer(c_.int_val(int(kRank)), Val::Type::Size);
  }
  if (f == "DIM_OF") {
    const SymTensor& t = opref(*c.args[0]);
    const auto* lit = std::get_if<ast::IntLit>(&c.args[1]->node);
    if (!lit || lit->value >= kRank)
      throw Outside{c.args[1]->span, "DIM_OF of a dimension other than a constant below 4"};
    return integer(t.shape[lit->value], Val::Type::Size);
  }
  if (f == "DTYPE_OF") {
    Val v;
    v.type = Val::Type::DType;
    v.dtype = rules::tag(opref(*c.args[0]).dtype);
    return v;
  }
  if (f == "ELEMENTSIZE_OF")
    return integer(c_.int_val(rules::element_size(opref(*c.args[0]).dtype)), Val::Type::Size);
  if (f == "STEPSIZE_OF" || f == "ZERO_OFFSET_OF") {
    const SymTensor& t = opref(*c.args[0]);
    if (f == "ZERO_OFFSET_OF" && t.zero)
      return integer(*t.zero, Val::Type::Int);
    if (!is_float(t.dtype))
      throw Outside{e.span, f + " of a quantized tensor is not encoded yet"};
    if (f == "ZERO_OFFSET_OF")
      return integer(c_.int_val(0), Val::Type::Int);
    Val v;
    v.type = Val::Type::Float;
    v.f = 1.0f;
    return v;
  }
  if (f == "SAME_ENCODING") {
    const SymTensor &a = opref(*c.args[0]), &b = opref(*c.args[1]);
    if (a.dtype != b.dtype || !a.zero || !b.zero)
      return boolean(c_.bool_val(a.dtype == b.dtype));
    return boolean(*a.zero == *b.zero && *a.step == *b.step);
  }
  throw Outside{c.callee_span, f + " is not encoded yet"};
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
    if (v.type == Val::Type::Float) {
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
    if (f == "WITH_SIZE")
      t.shape = from.shape;
    else if (f == "WITH_TYPE")
      t.dtype = from.dtype;
    else
      t = from;
  } else if (f == "WITH_OUTPUT_TYPE") {
    Val dt = eval(*c.args[0]);
    std::optional<HtpType> h = rules::htp_type_from_name(dt.dtype);
    if (dt.type != Val::Type::DType || !h)
      throw Outside{c.args[0]->span, "WITH_OUTPUT_TYPE of an unmodelled dtype"};
    t.dtype = *h;
  } else if (f == "ResizeDim") {
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

} // namespace teval::verify::htp::prove
