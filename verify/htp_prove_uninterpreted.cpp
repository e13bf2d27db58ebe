// The symbolic prover's uninterpreted ops (see htp_prover.h): an op whose
// definition is outside the fragment htp_prove_ops.cpp reads, as a
// function of its inputs that the solver does not interpret.
#include "verify/htp_prover.h"

namespace teval::verify::htp::prove {

using rules::TensorType;

// An op whose definition is outside the fragment (\p why): an uninterpreted
// function, one per definition and dtypes, of its inputs' elements (arrays,
// zero outside their extents), extents and encodings (and its output's,
// when the definition reads them), so that the same op of equal inputs is
// equal whatever it computes. Its output's extents, whether it accepts its
// inputs and whether it faults are uninterpreted functions of the same; the
// output's dtype is what the definition computes at probe extents it
// accepts.
SymTensor Encoding::uninterpreted(const std::string& op,
                                  const std::vector<const SymTensor*>& inputs,
                                  const SymTensor* declared, z3::expr* typed, const Outside& why) {
  const std::optional<HtpType> first =
      inputs.empty() ? std::nullopt : std::optional(inputs[0]->dtype);
  const rules::OpDef* def = ops_.find(op, first, inputs.size());
  if (!def)
    throw why;
  elementwise_ = false;
  // Its kernel at the first probe extents it accepts for inputs of
  // \p dtypes.
  auto probe_kernel = [&](const std::vector<HtpType>& dtypes) -> std::optional<core::Kernel> {
    for (const core::Shape& extents : probe_extents()) {
      std::vector<TensorType> probe;
      for (HtpType t : dtypes)
        probe.push_back(TensorType{t, extents, int32_t(zero_range(t).first), 0.5f});
      TensorType out = probe.empty() ? TensorType{} : probe[0];
      out.shape = extents;
      if (declared)
        out.dtype = declared->dtype;
      const bool q = rules::quantized(out.dtype);
      out.zero_offset = q ? int32_t(zero_range(out.dtype).first) : 0;
      out.step = q ? 0.5f : 1.0f;
      try {
        const rules::OpDef* d = nullptr;
        core::Kernel k = rules::op_kernel(ops_, op, probe, out, &d);
        if (d == def)
          return k;
      } catch (const rules::IllTyped&) {
      }
    }
    return std::nullopt;
  };
  std::vector<HtpType> dtypes;
  for (const SymTensor* in : inputs)
    dtypes.push_back(in->dtype);
  const std::optional<core::Kernel> kernel = probe_kernel(dtypes);
  SymTensor result;
  if (!kernel) {
    // Accepted in one dtype (the first input's, or float32) but not in
    // these: ill-typed whatever the extents.
    for (HtpType t : {first.value_or(HtpType::Float32), HtpType::Float32}) {
      std::vector<HtpType> uniform(dtypes.size(), t);
      if (uniform != dtypes && probe_kernel(uniform)) {
        *typed = c_.bool_val(false);
        result.dtype = declared ? declared->dtype : t;
        result.shape =
            inputs.empty() ? std::vector<z3::expr>(kRank, c_.int_val(1)) : inputs[0]->shape;
        result.at = [](const Index&) -> z3::expr { throw Outside{{}, "an ill-typed op"}; };
        return result;
      }
    }
    throw Outside{why.span, why.reason + "; no probe extents its definition accepts tell the "
                                         "dtype it computes"};
  }
  const core::Statement& last = kernel->statements.back();
  const core::DType computed = kernel->tensors[last.target].dtype;
  // A definition of one statement whose variables' extents all come from
  // the dimensions they index (no `where`, no fields): it accepts its
  // inputs exactly when those agree, and its output's extents are theirs.
  std::optional<std::vector<z3::expr>> extents;
  z3::expr agree = c_.bool_val(true);
  if (kernel->statements.size() == 1 && def->program.find("where") == std::string::npos &&
      def->program.find('$') == std::string::npos) {
    std::vector<std::optional<z3::expr>> ext(last.vars.size());
    loads(last.value, [&](const core::Load& l) {
      const std::string& name = kernel->tensors[l.tensor].name;
      if (kernel->tensors[l.tensor].role != core::TensorRole::Input)
        return;
      const std::vector<z3::expr>& shape = inputs[std::stoul(name.substr(2))]->shape;
      for (size_t d = 0; d < l.index.size() && d < shape.size(); ++d)
        if (const auto* v = std::get_if<core::VarRef>(&l.index[d]->node)) {
          if (ext[v->var])
            agree = agree && *ext[v->var] == shape[d];
          else
            ext[v->var] = shape[d];
        }
    });
    extents.emplace();
    for (const core::Expr& i : last.out_index) {
      const auto* v = std::get_if<core::VarRef>(&i->node);
      if (v && ext[v->var])
        extents->push_back(*ext[v->var]);
    }
    if (extents->size() != kRank)
      extents.reset();
  }
  z3::expr ok = c_.bool_val(true);
  output_type(op, *def, computed, inputs, declared, result, ok);
  std::string key = def->program + "|" + rules::tag(result.dtype);
  for (HtpType t : dtypes)
    key += std::string("|") + rules::tag(t);
  auto [it, made] = uninterpreted_.emplace(key, int(uninterpreted_.size()));
  const std::string name = "op" + std::to_string(it->second) + "_";
  if (made)
    abstracted_.push_back(op + " (" + why.reason + ")");
  // Extents, encodings: the arguments every function of it takes.
  z3::expr_vector sizes(c_);
  for (const SymTensor* in : inputs) {
    for (const z3::expr& d : in->shape)
      sizes.push_back(d);
    if (in->zero) {
      sizes.push_back(*in->zero);
      sizes.push_back(*in->step);
    }
  }
  auto function = [this, name](const std::string& what, const z3::expr_vector& args,
                               const z3::sort& range) {
    z3::sort_vector domain(c_);
    for (const z3::expr& a : args)
      domain.push_back(a.get_sort());
    return c_.function((name + what).c_str(), domain, range)(args);
  };
  std::vector<z3::expr> computed_extents;
  for (size_t d = 0; d < kRank; ++d)
    computed_extents.push_back(
        extents ? (*extents)[d] : function("extent" + std::to_string(d), sizes, c_.int_sort()));
  result.shape = declared ? declared->shape : computed_extents;
  const bool reads_out = def->program.find("$out0") != std::string::npos;
  if (reads_out) {
    for (const z3::expr& d : result.shape)
      sizes.push_back(d);
    if (result.zero) {
      sizes.push_back(*result.zero);
      sizes.push_back(*result.step);
    }
  }
  if (declared && !reads_out)
    for (size_t d = 0; d < kRank; ++d)
      ok = ok && computed_extents[d] == result.shape[d];
  *typed = ok && (extents ? agree : function("accepts", sizes, c_.bool_sort()));
  std::vector<SymTensor> ins;
  for (const SymTensor* in : inputs)
    ins.push_back(*in);
  const z3::sort element = is_float(result.dtype) ? element_sort(c_, result.dtype) : c_.int_sort();
  const HtpType dtype = result.dtype;
  auto* self = this;
  result.op = op;
  result.at = [self, ins, sizes, function, element, dtype](const Index& at) -> z3::expr {
    z3::context& c = self->c_;
    // Each input's elements as an array, its bound variables named alike
    // for every array (an array is a closed term).
    z3::expr_vector args(c), vars(c);
    Index bound;
    for (size_t d = 0; d < kRank; ++d) {
      vars.push_back(c.int_const(("element_" + std::to_string(d)).c_str()));
      bound.push_back(vars.back());
    }
    for (const SymTensor& in : ins) {
      z3::expr inside = c.bool_val(true);
      for (size_t d = 0; d < kRank; ++d)
        inside = inside && bound[d] >= 0 && bound[d] < in.shape[d];
      const z3::expr v = in.at(bound);
      const z3::expr none = v.is_fpa()   ? z3::fpa_to_fpa(c.fpa_val(0.0), v.get_sort())
                            : v.is_int() ? c.int_val(0)
                                         : c.bool_val(false);
      args.push_back(z3::lambda(vars, z3::ite(inside, v, none)));
    }
    for (const z3::expr& x : sizes)
      args.push_back(x);
    self->faults_.push_back(function("faults", args, c.bool_sort()));
    for (const z3::expr& i : at)
      args.push_back(i);
    z3::expr v = function("element", args, element);
    if (!is_float(dtype)) {
      auto [lo, hi] = code_range(dtype);
      self->value_conditions_.push_back(v >= c.int_val(lo) && v <= c.int_val(hi));
    }
    return v;
  };
  return result;
}

} // namespace teval::verify::htp::prove
