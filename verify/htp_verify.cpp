// The soundness verifier of HTP rules (see htp_verify.h).
#include "verify/htp_verify.h"

#include "verify/htp_verifier.h"

#include "core/error.h"
#include "core/format.h"
#include "interp/random_inputs.h"
#include "rules/htp_rewrite.h"
#include "verify/htp_compare.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <set>

namespace teval::verify::htp {
namespace detail {

using namespace teval::rules;

int skeleton_of(const ast::Expr& e, Skeleton& s, std::map<std::string, int>& tags) {
  if (const ast::StringLit* t = as_string(e)) {
    auto it = tags.find(t->value);
    if (it != tags.end())
      return it->second;
    s.items.push_back({Skeleton::Item::Kind::Leaf, t->value, "", {}});
    return tags[t->value] = int(s.items.size() - 1);
  }
  const ast::Call& c = *as_call(e);
  if (c.callee == "LET") {
    const std::string& tag = as_string(*c.args[0])->value;
    int id = skeleton_of(*c.args[1], s, tags);
    s.items[id].name = tag;
    tags[tag] = id;
    return id;
  }
  const std::string& op = as_string(*c.args[0])->value;
  if (op == "$Const") {
    s.items.push_back({Skeleton::Item::Kind::Const, "", op, {}});
    return int(s.items.size() - 1);
  }
  std::vector<int> inputs;
  for (size_t i = 1; i < c.args.size(); ++i)
    inputs.push_back(skeleton_of(*c.args[i], s, tags));
  s.items.push_back({Skeleton::Item::Kind::Op, "", op, inputs});
  return int(s.items.size() - 1);
}

namespace {

// The graph options \p e reads, each with the OPTION_* form reading it.
void collect_options(const ast::Expr& e, std::map<std::string, std::string>& out) {
  if (const ast::Call* c = as_call(e)) {
    if (c->callee.starts_with("OPTION_") && !c->args.empty() && as_string(*c->args[0]))
      out[as_string(*c->args[0])->value] = c->callee;
    for (const ast::ExprPtr& a : c->args)
      collect_options(*a, out);
  }
}

bool mentions(const ast::Expr& e, const std::string& callee) {
  const ast::Call* c = as_call(e);
  if (!c)
    return false;
  if (c->callee == callee)
    return true;
  for (const ast::ExprPtr& a : c->args)
    if (mentions(*a, callee))
      return true;
  return false;
}

// Whether \p e builds anything in a lower precision on purpose: in float16
// (WITH_OUTPUT_TYPE(DType::Float16, ...), which CAST_TO_FP16 and the SDK's
// fp16 rules expand to) or in a quantized encoding it names
// (WITH_OUTPUT_TYPE(DType::QUInt8, 0, 1 / 256.0f, ...): the SDK's Softmax
// computes in a fixed encoding and requantizes).
bool sets_lower_precision(const ast::Expr& e) {
  const ast::Call* c = as_call(e);
  if (!c)
    return false;
  if (c->callee == "WITH_OUTPUT_TYPE" && !c->args.empty())
    if (const auto* n = std::get_if<ast::Name>(&c->args[0]->node);
        n && n->id.starts_with("DType::"))
      if (std::optional<HtpType> t = rules::htp_type_from_name(n->id.substr(7));
          t && (*t == HtpType::Float16 || quantized(*t)))
        return true;
  for (const ast::ExprPtr& a : c->args)
    if (sets_lower_precision(*a))
      return true;
  return false;
}

// The real values a quantized tensor encodes, (q - zero) * step in
// float64; any other tensor as it is.
core::Tensor real_values(const core::Tensor& t, const TensorType& type) {
  if (!quantized(type.dtype))
    return t;
  core::Tensor out(core::DType::Float64, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i)
    out.set(i, core::Scalar::of_float(core::DType::Float64,
                                      double(t.get(i).i - type.zero_offset) * double(type.step)));
  return out;
}

} // namespace

std::optional<RelativeError> within_precision_change(const Graph& before,
                                                     const core::Tensor& expected,
                                                     const Graph& after, const core::Tensor& got,
                                                     const std::map<int, core::Tensor>& inputs) {
  // Quantized values as the real values they encode (when both outputs
  // have one encoding).
  const TensorType& out_type = before.nodes[before.output].type;
  if (after.nodes[after.output].type != out_type)
    return std::nullopt;
  std::map<int, core::Tensor> real_inputs;
  for (const auto& [id, t] : inputs)
    real_inputs[id] = real_values(t, before.nodes[id].type);
  std::optional<RelativeError> e =
      relative_error(real_values(expected, out_type), real_values(got, out_type), real_inputs);
  // A quantized output may also be one of its codes off: rounding into an
  // intermediate encoding and then into the output's moves a value across
  // at most one of the output's rounding boundaries.
  const double code = quantized(out_type.dtype) ? double(out_type.step) : 0;
  if (!e || e->absolute > kPrecisionChangeBound * e->scale + code)
    return std::nullopt;
  return e;
}

std::string with_values(const Graph& g, const std::map<int, core::Tensor>& inputs) {
  std::string out = to_text(g);
  for (const auto& [id, t] : inputs) {
    out += "# " + g.nodes[id].name + " = [";
    for (int64_t i = 0; i < t.numel(); ++i)
      out += (i ? ", " : "") + core::format_scalar(t.get(i));
    out += "]\n";
  }
  return out;
}

Verifier::Verifier(const Rule& rule, const OpSet& ops, const VerifyOptions& o)
    : rule_(rule), ops_(ops), o_(o), rng_(o.seed * 0x9E3779B97F4A7C15ull + 1) {
  std::map<std::string, int> tags;
  skeleton_.root = skeleton_of(*rule.match, skeleton_, tags);
  collect_options(*rule.constraint, options_);
  collect_options(*rule.replacement, options_);
  reads_dtypes_ = mentions(*rule.constraint, "DTYPE_OF");
  hints_ = dim_hints(*rule.constraint);
  encodings_ = encoding_hints(*rule.constraint);
  constants_ = constant_hints(*rule.constraint, *rule.replacement);
  // A Concat's axis operand (the built-in's first) is a constant
  // integer.
  for (const Skeleton::Item& item : skeleton_.items)
    if (item.kind == Skeleton::Item::Kind::Op && item.op == "Concat" &&
        !ops_.definitions().count("Concat") && !item.inputs.empty() &&
        skeleton_.items[size_t(item.inputs[0])].kind == Skeleton::Item::Kind::Leaf)
      axis_tags_.insert(skeleton_.items[size_t(item.inputs[0])].name);
  // A plain tag the constraint reads as a constant is drawn as one.
  for (Skeleton::Item& item : skeleton_.items)
    if (item.kind == Skeleton::Item::Kind::Leaf &&
        (constants_.tags.count(item.name) || axis_tags_.count(item.name)))
      item.kind = Skeleton::Item::Kind::Const;
  static const std::set<std::string> kTcmMoves = {"flat_to_vtcm",
                                                  "flat_from_vtcm",
                                                  "crouton_to_vtcm",
                                                  "crouton_from_vtcm",
                                                  "q::flat_to_vtcm",
                                                  "q::flat_from_vtcm",
                                                  "q::crouton_to_vtcm",
                                                  "q::crouton_from_vtcm",
                                                  "ConvLayer.opt.activations_to_vtcm",
                                                  "ConvLayer.opt.activations_from_vtcm"};
  for (const Skeleton::Item& item : skeleton_.items)
    matches_tcm_moves_ =
        matches_tcm_moves_ || (item.kind == Skeleton::Item::Kind::Op && kTcmMoves.count(item.op));
  lowers_precision_ = rule.flags.find("relaxed_precision") != std::string::npos ||
                      sets_lower_precision(*rule.replacement);
  // The dtypes the ops of the match are defined for (ops files select
  // definitions by their first input's dtype): a match op whose first
  // operand is an input tag takes the graph's dtype, so a graph is drawn
  // in one of those every such op accepts. (An op HTP registers for
  // float16 only is never drawn in float32, where it has no meaning.)
  // (Through first operands that are ops defined for any dtype, such as
  // the layout and TCM moves: they keep their input's.)
  auto on_input_tag = [&](const Skeleton::Item& item) {
    for (int j = item.inputs.empty() ? -1 : item.inputs[0]; j >= 0;) {
      const Skeleton::Item& operand = skeleton_.items[size_t(j)];
      if (operand.kind == Skeleton::Item::Kind::Leaf)
        return true;
      auto defs = ops_.definitions().find(operand.op);
      if (operand.kind != Skeleton::Item::Kind::Op || operand.inputs.empty() ||
          defs == ops_.definitions().end() ||
          !std::all_of(defs->second.begin(), defs->second.end(),
                       [](const rules::OpDef& d) { return d.selector.empty(); }))
        return false;
      j = operand.inputs[0];
    }
    return false;
  };
  for (int t = 0; t <= static_cast<int>(HtpType::Int32); ++t) {
    HtpType dtype = static_cast<HtpType>(t);
    bool all = true;
    for (const Skeleton::Item& item : skeleton_.items)
      if (item.kind == Skeleton::Item::Kind::Op && on_input_tag(item) &&
          ops_.definitions().count(item.op))
        all = all && ops_.find(item.op, dtype, item.inputs.size());
    if (all)
      accepted_.push_back(dtype);
  }
  if (accepted_.size() == static_cast<size_t>(HtpType::Int32) + 1)
    accepted_.clear();
}

Verifier::Outcome Verifier::check(const Plan& p, Counterexample* cx, std::string* reason,
                                  double* error) {
  std::string why;
  std::optional<Graph> before = build(p, &why);
  if (!before) {
    ++rejections_[why.substr(0, why.find('\n'))];
    return Outcome::Skip;
  }
  Graph after = *before;
  int root = before->output;
  try {
    std::optional<Match> m = match(*before, root, *rule_.match);
    TEVAL_ASSERT(m.has_value(), "graphs are built from the rule's own pattern");
    if (!Evaluator(*before, *m).holds(*rule_.constraint)) {
      ++rejections_["the constraint does not hold"];
      return Outcome::Skip;
    }
  } catch (const NotEvaluable& e) {
    *reason = e.reason;
    return Outcome::Unverifiable;
  } catch (const core::Error& e) {
    ++rejections_["the constraint faults: " + e.message()];
    return Outcome::Skip;
  }
  if (!o_.earlier.empty() && !survives_earlier(*before))
    return Outcome::RewrittenAway;
  std::map<int, core::Tensor> inputs;
  for (int id : before->live()) {
    const Node& n = before->nodes[id];
    if (n.kind != Node::Kind::Input)
      continue;
    core::Tensor t =
        interp::random_tensor(storage(n.type.dtype), n.type.shape, p.data_seed, n.name);
    // Floats in [-1, 1) scaled by 1, 8 or 64, so bounds such as ReLU6's
    // are crossed.
    if (core::is_float(t.dtype()))
      for (int64_t i = 0; i < t.numel(); ++i)
        t.set(i, core::Scalar::of_float(t.dtype(), t.get(i).f * p.scale));
    // QUInt16 is stored as int32, whose draws are in [-10, 10]: its codes
    // are never negative.
    if (n.type.dtype == HtpType::QUInt16)
      for (int64_t i = 0; i < t.numel(); ++i)
        t.set(i, core::Scalar::of_int(t.dtype(), t.get(i).i + 10));
    inputs[id] = std::move(t);
  }
  core::Tensor expected;
  try {
    expected = evaluate(*before, ops_, inputs);
  } catch (const IllTyped& e) {
    ++rejections_[e.message.substr(0, e.message.find('\n'))];
    return Outcome::Skip;
  } catch (const core::Error& e) {
    ++rejections_["the matched graph faults: " + e.message()];
    return Outcome::Skip;
  } catch (const NotEvaluable& e) {
    *reason = e.reason;
    return Outcome::Unverifiable;
  }
  std::string difference;
  try {
    rewrite_at(after, root, rule_);
    after = after.compacted();
    // Inputs keep their ids: they were created first and stay live.
    std::map<int, core::Tensor> after_inputs;
    for (const auto& [id, t] : inputs)
      for (int j : after.live())
        if (after.nodes[j].name == before->nodes[id].name &&
            after.nodes[j].kind == Node::Kind::Input)
          after_inputs[j] = t;
    core::Tensor got = evaluate(after, ops_, after_inputs);
    difference = describe_difference(expected, got);
    // A rule that lowers precision on purpose is judged by its worst
    // element.
    if (!difference.empty() && lowers_precision_)
      if (std::optional<RelativeError> e =
              within_precision_change(*before, expected, after, got, inputs)) {
        if (error)
          *error = e->error;
        *cx = Counterexample{with_values(*before, inputs), to_text(after),
                             element_difference(expected, got, e->at)};
        return Outcome::Imprecise;
      }
  } catch (const NotEvaluable& e) {
    *reason = e.reason;
    return Outcome::Unverifiable;
  } catch (const IllTyped& e) {
    difference = "the rewritten graph is ill-typed: " + e.message;
  } catch (const core::Error& e) {
    difference = "the rewrite fails: " + e.render();
  }
  if (difference.empty())
    return Outcome::Agree;
  *cx = Counterexample{with_values(*before, inputs), to_text(after), difference};
  return Outcome::Differ;
}

// Smaller extents, changed consistently across the graph (every occurrence
// of one extent at one dimension), while the rule still changes the result.
Plan Verifier::shrink(Plan p) {
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t d = 0; d < 4 && !progress; ++d) {
      std::set<int64_t> values;
      for (const TensorType& t : p.types)
        if (t.shape.size() == 4 && t.shape[d] > 1)
          values.insert(t.shape[d]);
      for (int64_t v : values) {
        for (int64_t to : {int64_t(1), v - 1}) {
          Plan q = p;
          for (TensorType& t : q.types)
            if (t.shape.size() == 4 && t.shape[d] == v)
              t.shape[d] = to;
          Counterexample cx;
          std::string reason;
          if (check(q, &cx, &reason) == Outcome::Differ) {
            p = q;
            progress = true;
            break;
          }
        }
        if (progress)
          break;
      }
    }
  }
  return p;
}

bool Verifier::survives_earlier(const Graph& g) {
  // HTP's own TCM migration, between the package's early passes and its
  // late ones, inserts the moves to and from TCM: a rule matching one
  // sees graphs the file's earlier rules do not make, and nothing is
  // claimed about whether it fires.
  if (matches_tcm_moves_)
    return true;
  rules::ApplyResult applied;
  try {
    applied = rules::apply_rules(g, o_.earlier);
  } catch (const core::Error&) {
    return true; // no fixed point, or a fault: nothing is claimed
  }
  if (applied.steps.empty())
    return true;
  for (int id : applied.graph.live()) {
    try {
      std::optional<Match> m = match(applied.graph, id, *rule_.match);
      if (m && Evaluator(applied.graph, *m).holds(*rule_.constraint))
        return true;
    } catch (const NotEvaluable&) {
      return true;
    } catch (const core::Error&) {
      return true;
    }
  }
  ++rewriters_[applied.steps.front().rule];
  return false;
}

VerifyResult Verifier::run() {
  VerifyResult r;
  for (const Skeleton::Item& item : skeleton_.items)
    if (item.kind == Skeleton::Item::Kind::Op && !ops_.knows(item.op)) {
      r.reason = "op " + item.op + " (in the match) has no definition in the ops file";
      return r;
    }
  int attempts = 0;
  int budget = o_.cases * o_.attempts_per_case;
  // (Drawing stops when the first N graphs are all rewritten away: the rule
  // is unreachable; once one is a case, only at N cases or the budget.)
  while (r.cases < o_.cases && (r.cases > 0 || r.rewritten_away < o_.cases) && attempts < budget) {
    ++attempts;
    // Shapes grow with the cases checked, and with the draws a demanding
    // constraint rejects.
    int size = 2 + std::min(14, std::max(r.cases / 8, attempts / 40));
    Plan p = draw(size);
    repair(p);
    Counterexample cx;
    std::string reason;
    double error = 0;
    switch (check(p, &cx, &reason, &error)) {
    case Outcome::Skip:
      continue;
    case Outcome::RewrittenAway:
      ++r.rewritten_away;
      continue;
    case Outcome::Agree:
      ++r.cases;
      continue;
    case Outcome::Imprecise:
      ++r.cases;
      if (error > r.worst_error) {
        r.worst_error = error;
        r.counterexample = cx;
      }
      continue;
    case Outcome::Unverifiable:
      r.verdict = Verdict::Unverifiable;
      r.reason = reason;
      return r;
    case Outcome::Differ: {
      Plan small = shrink(p);
      check(small, &cx, &reason);
      r.verdict = Verdict::Unsound;
      r.counterexample = cx;
      ++r.cases;
      return r;
    }
    }
  }
  if (r.cases == o_.cases) {
    r.verdict = r.counterexample ? Verdict::ChangesPrecision : Verdict::Sound;
    return r;
  }
  r.counterexample.reset();
  r.worst_error = 0;
  if (r.cases == 0 && r.rewritten_away > 0) {
    // Every graph the rule applied to lost its match to an earlier rule.
    const Rule* first = nullptr;
    int most = 0;
    for (const auto& [rule, n] : rewriters_)
      if (n > most) {
        most = n;
        first = rule;
      }
    r.verdict = Verdict::Unreachable;
    r.reason = "in all " + std::to_string(r.rewritten_away) +
               " graphs it applies to, earlier passes rewrite its match away first (the rule at " +
               "line " + std::to_string(first->span.file->location(first->span.begin).line) +
               ", pass " + first->pass.text() + ", in " + std::to_string(most) + " of them)";
    return r;
  }
  r.verdict = Verdict::Unverifiable;
  std::string top;
  int most = 0;
  for (const auto& [why, n] : rejections_)
    if (n > most) {
      most = n;
      top = why;
    }
  r.reason = "only " + std::to_string(r.cases) + " of " + std::to_string(o_.cases) +
             " graphs found in " + std::to_string(attempts) + " draws that the rule applies to" +
             (top.empty() ? "" : "; most draws were rejected because " + top);
  return r;
}

} // namespace detail

using detail::Rule;
using rules::OpSet;

const char* verdict_name(Verdict v) {
  switch (v) {
  case Verdict::Sound:
    return "sound";
  case Verdict::Unsound:
    return "unsound";
  case Verdict::Unverifiable:
    return "unverifiable";
  case Verdict::ChangesPrecision:
    return "changes-precision";
  case Verdict::Unreachable:
    return "unreachable";
  }
  TEVAL_UNREACHABLE("verdict");
}

std::vector<core::Diagnostic> undefined_ops(const Rule& rule, const OpSet& ops,
                                            const std::string& ops_name) {
  std::vector<core::Diagnostic> out;
  std::set<std::string> named;
  auto visit = [&](const ast::Expr& e, auto& self) -> void {
    const ast::Call* c = as_call(e);
    if (!c)
      return;
    if ((c->callee == "Op" || c->callee == "OpVarIn" || c->callee == "WrapOp") && !c->args.empty())
      if (const ast::StringLit* op = as_string(*c->args[0]))
        if (op->value != "$Const" && !ops.knows(op->value) && named.insert(op->value).second)
          out.push_back({core::Severity::Error,
                         c->args[0]->span,
                         {},
                         "op " + op->value + " is not defined in " + ops_name +
                             ": define it in an ops file (--ops) to verify this rule"});
    for (const ast::ExprPtr& a : c->args)
      self(*a, self);
  };
  for (const ast::ExprPtr& part : {rule.match, rule.replacement})
    if (part)
      visit(*part, visit);
  return out;
}

VerifyResult verify_rule(const Rule& rule, const OpSet& ops, const VerifyOptions& o) {
  return detail::Verifier(rule, ops, o).run();
}

} // namespace teval::verify::htp
