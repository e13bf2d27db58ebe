// The symbolic prover's ops (see htp_prover.h): an op's meaning read from
// its definition's kernel, elaborated with probe extents and encodings, as
// Z3 terms of its inputs' elements.
#include "verify/htp_prover.h"

#include "core/format.h"
#include "core/kernel.h"

namespace teval::verify::htp::prove {

using rules::TensorType;

namespace {

// Probe encodings: distinctive zero offsets and steps given to a
// definition's inputs (and output) so that the kernel's constants that are
// theirs can be told apart and made symbolic again.
constexpr int64_t kProbeZero[] = {113, 109, 107, 103};
constexpr float kProbeStep[] = {0.0123456f, 0.0234567f, 0.0345678f, 0.0456789f};
constexpr size_t kProbeOut = 3;

} // namespace

const std::vector<core::Shape>& probe_extents() {
  static const std::vector<core::Shape> extents = {{2, 3, 4, 5}, {1, 1, 1, 1}, {1, 2, 8, 4},
                                                   {5, 4, 3, 2}, {2, 8, 8, 8}, {4, 4, 4, 4}};
  return extents;
}

void loads(const core::Expr& e, const std::function<void(const core::Load&)>& f) {
  if (const auto* l = std::get_if<core::Load>(&e->node)) {
    f(*l);
    for (const core::Expr& i : l->index)
      loads(i, f);
  } else if (const auto* a = std::get_if<core::Apply>(&e->node)) {
    for (const core::Expr& x : a->args)
      loads(x, f);
  } else if (const auto* c = std::get_if<core::Cast>(&e->node)) {
    loads(c->value, f);
  } else if (const auto* s = std::get_if<core::Select>(&e->node)) {
    loads(s->cond, f);
    loads(s->then, f);
    loads(s->otherwise, f);
  }
}

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
  // The definition's meaning where the fragment covers it (its element
  // built once at a fresh index, so that what the fragment lacks shows
  // here), else the op as an uninterpreted function of its inputs.
  const size_t faults = faults_.size(), conditions = value_conditions_.size(),
               encodings = encodings_.size();
  auto forget = [&](bool encoded) {
    faults_.erase(faults_.begin() + ptrdiff_t(faults), faults_.end());
    value_conditions_.erase(value_conditions_.begin() + ptrdiff_t(conditions),
                            value_conditions_.end());
    if (!encoded)
      encodings_.erase(encodings_.begin() + ptrdiff_t(encodings), encodings_.end());
  };
  try {
    z3::expr ok = c_.bool_val(true);
    SymTensor r = interpreted(op, inputs, declared, &ok, where);
    if (!ok.is_false()) {
      Index trial;
      for (size_t d = 0; d < kRank; ++d)
        trial.push_back(c_.int_const(("trial_" + std::to_string(d)).c_str()));
      (void)r.at(trial);
    }
    forget(true);
    *typed = ok;
    return r;
  } catch (const Outside& why) {
    forget(false);
    return uninterpreted(op, inputs, declared, typed, why);
  }
}

SymTensor Encoding::interpreted(const std::string& op, const std::vector<const SymTensor*>& inputs,
                                const SymTensor* declared, z3::expr* typed, core::Span where) {
  if (inputs.size() > kProbeOut)
    throw Outside{where, op + " of more than " + std::to_string(kProbeOut) + " inputs"};
  // The kernel at the first probe extents the definition accepts.
  std::vector<TensorType> probe;
  TensorType out;
  const rules::OpDef* def = nullptr;
  core::Kernel k;
  std::optional<rules::IllTyped> rejected;
  for (const core::Shape& extents : probe_extents()) {
    probe.clear();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const bool q = rules::quantized(inputs[i]->dtype);
      probe.push_back(TensorType{inputs[i]->dtype, extents, q ? int32_t(kProbeZero[i]) : 0,
                                 q ? kProbeStep[i] : 1.0f});
    }
    out = probe.empty() ? TensorType{} : probe[0];
    if (declared)
      out.dtype = declared->dtype;
    const bool q = rules::quantized(out.dtype);
    out.zero_offset = q ? int32_t(kProbeZero[kProbeOut]) : 0;
    out.step = q ? kProbeStep[kProbeOut] : 1.0f;
    try {
      k = rules::op_kernel(ops_, op, probe, out, &def);
      rejected.reset();
      break;
    } catch (const rules::IllTyped& e) {
      if (!rejected)
        rejected = e;
      if (e.message.find("has no definition") != std::string::npos)
        break;
    }
  }
  if (rejected) {
    const rules::IllTyped& e = *rejected;
    for (TensorType& t : probe)
      t.shape = probe_extents()[0];
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
  const std::vector<std::map<std::string, z3::expr>> clauses = where_extents(c_, *def, op, inputs);
  if (clauses.size() != k.statements.size())
    throw Outside{def->span, op + "'s definition's statements are not its kernel's"};
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
  std::vector<std::vector<bool>> ranges;       // per statement: a where clause's extent
  for (const core::Statement& st : k.statements) {
    size_t reduce = 0;
    for (const core::IndexVar& v : st.vars)
      reduce += v.reduce;
    const bool fold =
        st.aggregation == core::Aggregation::Sum || st.aggregation == core::Aggregation::Max ||
        st.aggregation == core::Aggregation::Min || st.aggregation == core::Aggregation::Product;
    if (st.init_from || !st.constraints.empty() ||
        (st.aggregation == core::Aggregation::Assign ? reduce != 0 : !fold || reduce == 0) ||
        shapes.count(st.target))
      throw Outside{def->span, op + "'s definition has a statement other than an assignment or "
                                    "a fold (a scatter, a guard)"};
    // A variable's extent: its where clause's (its reads then checked for
    // range, as computed indices are), else that of the dimensions it
    // indexes, which must agree.
    const size_t n = extents.size();
    std::vector<std::optional<z3::expr>> ext(st.vars.size());
    std::vector<bool> ranged(st.vars.size(), false);
    for (size_t v = 0; v < st.vars.size(); ++v)
      if (auto w = clauses[n].find(st.vars[v].name); w != clauses[n].end()) {
        ext[v] = w->second;
        ranged[v] = true;
        ok = ok && w->second >= 0; // a negative extent: ill-typed
      }
    loads(st.value, [&](const core::Load& l) {
      const std::string& name = k.tensors[l.tensor].name;
      const bool input = k.tensors[l.tensor].role == core::TensorRole::Input;
      if (!input && !shapes.count(l.tensor))
        throw Outside{def->span, op + "'s definition reads " + name + " before writing it"};
      const std::vector<z3::expr>& shape =
          input ? inputs[std::stoul(name.substr(2))]->shape : shapes.at(l.tensor);
      if (l.index.size() != shape.size())
        throw Outside{def->span, op + "'s definition reads " + name + " at another rank"};
      for (size_t d = 0; d < l.index.size(); ++d) {
        if (const auto* v = std::get_if<core::VarRef>(&l.index[d]->node)) {
          if (ranged[v->var])
            continue;
          if (!ext[v->var])
            ext[v->var] = shape[d];
          else
            ok = ok && *ext[v->var] == shape[d];
        } else if (const auto* c = std::get_if<core::Const>(&l.index[d]->node)) {
          ok = ok && c_.int_val(c->value.i) < shape[d];
        }
        // (A computed index is checked for range where it is read.)
      }
    });
    ranges.push_back(ranged);
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
    // Elementwise: an assignment reading every input at its own index (or
    // a scalar at a constant one).
    elementwise_ = elementwise_ && st.aggregation == core::Aggregation::Assign;
    loads(st.value, [&](const core::Load& l) {
      bool identity = l.index.size() == st.out_index.size(), constant = true;
      for (size_t d = 0; d < l.index.size(); ++d) {
        const auto* v = std::get_if<core::VarRef>(&l.index[d]->node);
        const auto* o =
            d < st.out_index.size() ? std::get_if<core::VarRef>(&st.out_index[d]->node) : nullptr;
        identity = identity && v && o && v->var == o->var;
        constant = constant && std::holds_alternative<core::Const>(l.index[d]->node);
      }
      elementwise_ = elementwise_ && (identity || constant);
    });
    extents.push_back(known);
  }
  const core::Statement& s = k.statements.back();
  SymTensor result;
  result.shape = declared ? declared->shape : shapes.at(s.target);
  for (size_t d = 0; d < kRank; ++d)
    ok = ok && shapes.at(s.target)[d] == result.shape[d];
  const core::DType computed = k.tensors[s.target].dtype;
  output_type(op, *def, computed, inputs, declared, result, ok);
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
  result.at = [self, k, ins, op_name, span, zeros, steps, extents, ranges,
               shapes](const Index& at) -> z3::expr {
    z3::context& c = self->c_;
    const std::vector<z3::expr>* env = nullptr; // the statement's variables' values
    const std::vector<bool>* ranged = nullptr;  // its where-sized variables
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
        const bool input = k.tensors[l->tensor].role == core::TensorRole::Input;
        const std::vector<z3::expr>& shape =
            input ? ins[std::stoul(k.tensors[l->tensor].name.substr(2))].shape
                  : shapes.at(l->tensor);
        Index where;
        for (size_t d = 0; d < l->index.size(); ++d) {
          const core::Expr& i = l->index[d];
          const auto* cst = std::get_if<core::Const>(&i->node);
          const auto* var = std::get_if<core::VarRef>(&i->node);
          where.push_back(cst ? c.int_val(cst->value.i) : var ? (*env)[var->var] : term(i));
          // A computed index, or a variable a where clause sizes: reading
          // outside the tensor faults.
          if (!cst && (!var || (*ranged)[var->var]))
            self->faults_.push_back(where.back() < 0 || where.back() >= shape[d]);
        }
        if (!input)
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
      // identity rather than an equivalence of two circuits. The order is
      // structural (a term's hash, then its text), never Z3's ids, which a
      // term built again after it was freed need not keep.
      auto before = [&](const z3::expr& a, const z3::expr& b) {
        const unsigned ha = Z3_get_ast_hash(c, a), hb = Z3_get_ast_hash(c, b);
        return ha != hb ? ha < hb : a.to_string() < b.to_string();
      };
      if ((a.op == core::Op::Add || a.op == core::Op::Mul || a.op == core::Op::Max ||
           a.op == core::Op::Min) &&
          x.size() == 2 && before(x[1], x[0]))
        std::swap(x[0], x[1]);
      switch (a.op) { // comparisons, of floats (IEEE) or integers
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
      default:
        break;
      }
      if (!x.empty() && x[0].is_int()) {
        // Integers: maximum, minimum, and +, -, * with the node's overflow
        // rule.
        switch (a.op) {
        case core::Op::Max:
          return z3::ite(x[0] >= x[1], x[0], x[1]);
        case core::Op::Min:
          return z3::ite(x[0] <= x[1], x[0], x[1]);
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
      const std::vector<bool>* outer_ranged = ranged;
      env = &vars;
      ranged = &ranges[n];
      if (st.aggregation == core::Aggregation::Assign) {
        z3::expr v = term(st.value);
        env = outer;
        ranged = outer_ranged;
        return v;
      }
      // Its reduce variables bound, named by the depth among the folds
      // being built, so that the same fold built twice is the same term
      // (Z3 tells lambdas apart by their variables' names).
      z3::expr_vector bound(c);
      z3::expr inside = c.bool_val(true);
      z3::expr_vector args(c);
      for (size_t r = 0; r < st.vars.size(); ++r) {
        if (!st.vars[r].reduce)
          continue;
        bound.push_back(c.int_const(
            ("fold_" + std::to_string(depth) + "_" + std::to_string(bound.size())).c_str()));
        vars[r] = bound.back();
        inside = inside && bound.back() >= 0 && bound.back() < extents[n][r];
      }
      ++depth;
      const z3::expr body = term(st.value);
      --depth;
      env = outer;
      ranged = outer_ranged;
      const z3::expr none = body.is_fpa()   ? z3::fpa_to_fpa(c.fpa_val(0.0), body.get_sort())
                            : body.is_int() ? c.int_val(0)
                                            : c.bool_val(false);
      args.push_back(z3::lambda(bound, z3::ite(inside, body, none)));
      for (size_t r = 0; r < st.vars.size(); ++r)
        if (st.vars[r].reduce)
          args.push_back(extents[n][r]);
      const std::string fn = "fold_" + std::to_string(int(st.aggregation)) + "_" +
                             std::to_string(int(st.start)) + "_" + core::format_scalar(st.init) +
                             "_" + body.get_sort().to_string() + "_" + std::to_string(bound.size());
      auto it = self->functions_.find(fn);
      if (it == self->functions_.end()) {
        z3::sort_vector domain(c);
        for (const z3::expr& a : args)
          domain.push_back(a.get_sort());
        it = self->functions_.emplace(fn, c.function(fn.c_str(), domain, body.get_sort())).first;
      }
      return it->second(args);
    };
    return value_of(k.statements.back().target, at);
  };
  return result;
}

} // namespace teval::verify::htp::prove
