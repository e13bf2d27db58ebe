// The symbolic prover (see htp_prove.h): the rule's encoding under every
// assignment of dtypes to its match's inputs, one query per case, and the
// solver's counterexample replayed by the evaluator.
#include "verify/htp_prover.h"

#include "core/format.h"
#include "interp/random_inputs.h"
#include "rules/htp_rewrite.h"
#include "verify/htp_compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

namespace teval::verify::htp {

const char* proof_verdict_name(ProofVerdict v) {
  switch (v) {
  case ProofVerdict::Proved:
    return "proved";
  case ProofVerdict::Refuted:
    return "refuted";
  case ProofVerdict::Unknown:
    return "unknown";
  }
  return "unknown";
}

namespace {

using namespace prove;
using rules::Graph;
using rules::Node;
using rules::TensorType;

constexpr HtpType kTypes[] = {HtpType::Float32, HtpType::Float16, HtpType::QUInt8, HtpType::QInt8,
                              HtpType::QUInt16, HtpType::QInt16,  HtpType::QInt32, HtpType::Int32};

// The value of float term \p v in \p m, as a double (NaN, infinities and
// the sign of zero kept).
double float_value(const z3::model& m, const z3::expr& v) {
  z3::context& c = v.ctx();
  if (m.eval(v.mk_is_nan(), true).is_true())
    return std::nan("");
  const bool negative = m.eval(z3::expr(c, Z3_mk_fpa_is_negative(c, v)), true).is_true();
  if (m.eval(v.mk_is_inf(), true).is_true())
    return negative ? -INFINITY : INFINITY;
  if (m.eval(v.mk_is_zero(), true).is_true())
    return negative ? -0.0 : 0.0;
  z3::expr real = m.eval(z3::expr(c, Z3_mk_fpa_to_real(c, v)), true);
  std::string text = real.get_decimal_string(0);
  if (Z3_get_numeral_string(c, real)) {
    std::string exact = Z3_get_numeral_string(c, real);
    size_t slash = exact.find('/');
    if (slash == std::string::npos)
      return std::strtod(exact.c_str(), nullptr);
    // p/q with q a power of two: both exact in double, as is the quotient.
    return std::strtod(exact.substr(0, slash).c_str(), nullptr) /
           std::strtod(exact.substr(slash + 1).c_str(), nullptr);
  }
  return std::strtod(text.c_str(), nullptr);
}

int64_t int_value(const z3::model& m, const z3::expr& v) {
  int64_t r = 0;
  z3::expr x = m.eval(v, true);
  if (!x.is_numeral_i64(r))
    r = 0;
  return r;
}

// \p g with its inputs' values, as sampling prints them; an input of more
// than 64 elements as its most common value and the elements that differ
// from it (the solver's inputs are mostly one value).
std::string described(const Graph& g, const std::map<int, core::Tensor>& inputs) {
  bool large = false;
  for (const auto& [id, t] : inputs)
    large = large || t.numel() > 64;
  if (!large)
    return detail::with_values(g, inputs);
  std::string out = rules::to_text(g);
  for (const auto& [id, t] : inputs) {
    std::map<std::string, int64_t> counts;
    for (int64_t i = 0; i < t.numel(); ++i)
      ++counts[core::format_scalar(t.get(i))];
    std::string common;
    for (const auto& [text, n] : counts)
      if (common.empty() || n > counts[common])
        common = text;
    out += "# " + g.nodes[id].name + " = " + common + " everywhere";
    int64_t listed = 0;
    for (int64_t i = 0; i < t.numel() && listed < 16; ++i)
      if (std::string v = core::format_scalar(t.get(i)); v != common) {
        std::vector<int64_t> at(t.shape().size());
        for (size_t d = at.size(), rest = size_t(i); d-- > 0; rest /= size_t(t.shape()[d]))
          at[d] = int64_t(rest % size_t(t.shape()[d]));
        out += (listed++ ? ", " : " but ") + std::string("[") + core::format_index(at) + "] = " + v;
      }
    out += "\n";
  }
  return out;
}

// Whether the rule lowers precision on purpose (the sampling verifier's
// changes-precision): the proof is of the documented precision change.
bool lowers_precision(const Rule& rule) {
  return rule.flags.find("relaxed_precision") != std::string::npos ||
         parser::htp::to_text(*rule.replacement).find("WITH_OUTPUT_TYPE(DType::Float16") !=
             std::string::npos;
}

// How a replay takes its inputs' values: the model's, zeros (codes of the
// zero offset), or drawn with a seed as sampling draws them.
struct Values {
  enum class From { Model, Zeros, Drawn } from = From::Model;
  uint64_t seed = 0;
};

// The graph of the solver's model \p m (its extents, options and input
// values as \p values says), the rule applied at its root and both
// evaluated: the counterexample when the outputs differ, else nothing (the
// model leans on something the encoding abstracts).
std::optional<Counterexample> replay(const Rule& rule, const OpSet& ops, const Skeleton& skeleton,
                                     Encoding& enc, const z3::model& m, Values values,
                                     std::string* why) {
  Graph g;
  for (const auto& [name, v] : enc.options())
    g.options[name] = double(int_value(m, v));
  std::vector<int> ids(skeleton.items.size(), -1);
  std::map<int, core::Tensor> inputs;
  size_t next = 0;
  for (size_t i = 0; i < skeleton.items.size(); ++i) {
    const Skeleton::Item& item = skeleton.items[i];
    Node n;
    if (item.kind == Skeleton::Item::Kind::Op) {
      n.op = item.op;
      for (int k : item.inputs)
        n.inputs.push_back(ids[k]);
      try {
        n.type = rules::infer_type(ops, g, n.op, n.inputs, std::nullopt);
      } catch (const rules::IllTyped& e) {
        *why = "the solver's graph is ill-typed before the rewrite: " + e.message;
        return std::nullopt;
      }
      n.name = item.name;
      ids[i] = g.add(std::move(n));
      continue;
    }
    const Leaf& leaf = enc.leaves()[next++];
    // A tag the rule reads with CONSTVAL_* is a constant.
    const bool constant = item.kind == Skeleton::Item::Kind::Const || leaf.constant;
    n.kind = constant ? Node::Kind::Const : Node::Kind::Input;
    n.op = n.kind == Node::Kind::Const ? "$Const" : "*Input";
    n.name = item.kind == Skeleton::Item::Kind::Const ? "" : leaf.name;
    n.type.dtype = leaf.dtype;
    for (const z3::expr& d : leaf.shape)
      n.type.shape.push_back(int_value(m, d));
    if (leaf.zero) {
      n.type.zero_offset = int32_t(int_value(m, *leaf.zero));
      n.type.step = float(float_value(m, *leaf.step));
    }
    core::Tensor t(rules::storage(leaf.dtype), n.type.shape);
    if (values.from == Values::From::Drawn) {
      // Floats in [-8, 8), codes in their range.
      t = interp::random_tensor(t.dtype(), n.type.shape, values.seed, leaf.name);
      auto [lo, hi] = code_range(leaf.dtype);
      for (int64_t k = 0; k < t.numel(); ++k)
        t.set(k, core::is_float(t.dtype())
                     ? core::Scalar::of_float(t.dtype(), t.get(k).f * 8)
                     : core::Scalar::of_int(t.dtype(), std::clamp(t.get(k).i, lo, hi)));
    }
    core::Shape at(kRank, 0);
    for (int64_t k = 0; k < t.numel() && values.from != Values::From::Drawn; ++k) {
      int64_t rest = k;
      Index where;
      for (size_t d = kRank; d-- > 0;) {
        at[d] = rest % n.type.shape[d];
        rest /= n.type.shape[d];
      }
      for (size_t d = 0; d < kRank; ++d)
        where.push_back(enc.index()[d].ctx().int_val(at[d]));
      const core::DType stored = rules::storage(leaf.dtype);
      if (values.from == Values::From::Zeros) { // codes of the zero offset
        if (!core::is_float(stored))
          t.set(k, core::Scalar::of_int(stored, n.type.zero_offset));
        continue;
      }
      z3::expr v = (*leaf.values)(where[0], where[1], where[2], where[3]);
      if (core::is_float(stored)) {
        t.set(k, core::Scalar::of_float(stored, float_value(m, v)));
      } else {
        auto [lo, hi] = code_range(leaf.dtype);
        t.set(k, core::Scalar::of_int(stored, std::clamp(int_value(m, v), lo, hi)));
      }
    }
    if (n.kind == Node::Kind::Const)
      n.value = t;
    ids[i] = g.add(std::move(n));
    if (g.nodes[ids[i]].kind == Node::Kind::Input)
      inputs[ids[i]] = t;
  }
  g.output = ids[skeleton.root];
  core::Tensor expected;
  try {
    expected = rules::evaluate(g, ops, inputs);
  } catch (const rules::IllTyped& e) {
    *why = "the solver's graph is ill-typed: " + e.message;
    return std::nullopt;
  } catch (const core::Error& e) {
    *why = "the solver's graph faults: " + e.message();
    return std::nullopt;
  }
  Graph after = g;
  std::string difference;
  try {
    if (!rules::rewrite_at(after, g.output, rule)) {
      *why = "the rule does not apply to the solver's graph";
      return std::nullopt;
    }
    after = after.compacted();
    std::map<int, core::Tensor> after_inputs;
    for (const auto& [id, t] : inputs)
      for (int j : after.live())
        if (after.nodes[j].name == g.nodes[id].name && after.nodes[j].kind == Node::Kind::Input)
          after_inputs[j] = t;
    const core::Tensor got = rules::evaluate(after, ops, after_inputs);
    difference = describe_difference(expected, got);
    // A rule that lowers precision on purpose differs only beyond the
    // documented change.
    if (!difference.empty() && lowers_precision(rule) &&
        detail::within_precision_change(g, expected, after, got, inputs))
      difference.clear();
  } catch (const rules::NotEvaluable& e) {
    *why = "the rewrite of the solver's graph is not evaluable: " + e.reason;
    return std::nullopt;
  } catch (const rules::IllTyped& e) {
    difference = "the rewritten graph is ill-typed: " + e.message;
  } catch (const core::Error& e) {
    difference = "the rewrite fails: " + e.render();
  }
  if (difference.empty()) {
    *why = "the solver's counterexample does not replay: its outputs agree (it leans on an "
           "uninterpreted function's values)";
    return std::nullopt;
  }
  return Counterexample{described(g, inputs), rules::to_text(after), difference};
}

} // namespace

ProofResult prove_rule(const Rule& rule, const OpSet& ops, const ProveOptions& o) {
  ProofResult r;
  auto finish = [&](ProofResult res) {
    // Every proved rule is sampled too; an unknown one falls back to it,
    // and is refuted by a counterexample sampling draws (a graph the
    // evaluator shows unsound, as a replayed model).
    if (res.verdict != ProofVerdict::Refuted) {
      res.sampled = verify_rule(rule, ops, o.sampling);
      if (res.verdict == ProofVerdict::Unknown && res.sampled->verdict == Verdict::Unsound &&
          res.sampled->counterexample) {
        res.verdict = ProofVerdict::Refuted;
        res.inconsistency.clear();
        res.counterexample = res.sampled->counterexample;
        res.reason = "a graph sampling drew; the solver: " + res.reason;
      }
      if (res.verdict == ProofVerdict::Proved && res.sampled->verdict == Verdict::Unsound) {
        res.inconsistency = "proved, but sampling finds a counterexample: " +
                            res.sampled->counterexample->difference;
        res.verdict = ProofVerdict::Unknown;
        res.reason = "the proof and the sampling disagree";
      }
    }
    return res;
  };
  const bool precision = lowers_precision(rule);
  Skeleton skeleton;
  std::map<std::string, int> tags;
  skeleton.root = detail::skeleton_of(*rule.match, skeleton, tags);
  size_t leaves = 0;
  for (const Skeleton::Item& item : skeleton.items)
    leaves += item.kind != Skeleton::Item::Kind::Op;
  if (leaves > 3) {
    r.reason = "the match has " + std::to_string(leaves) +
               " graph inputs; the dtype cases are enumerated for at most 3";
    return finish(r);
  }
  size_t cases = 1;
  for (size_t i = 0; i < leaves; ++i)
    cases *= std::size(kTypes);
  bool any = false, elementwise = true;
  auto timed = [&](z3::solver& q) {
    auto start = std::chrono::steady_clock::now();
    z3::check_result res = q.check();
    r.solver_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
  };
  // Whether the query in \p s has a model: a small one first (extents and
  // options up to 4, then 16), which the evaluator replays. Nothing when
  // it has none; else the verdict's reason (refuted: r's counterexample).
  auto refute = [&](z3::solver& s, Encoding& enc, const std::string& label, bool values,
                    ProofResult* out) -> std::optional<std::string> {
    z3::context& c = s.ctx();
    // The model replayed, refuted when the evaluator sees the difference;
    // then values drawn as sampling draws them on the model's extents (a
    // model of an uninterpreted op's values is seldom the op's); then, a
    // few times, the next model with other extents or options.
    auto replayed = [&](z3::model m, std::string* why) {
      for (int model = 0; model < 3; ++model) {
        for (uint64_t draw = 0; draw < 4; ++draw) {
          Values v;
          v.from = draw > 0 ? Values::From::Drawn
                   : values ? Values::From::Model
                            : Values::From::Zeros;
          v.seed = draw;
          std::string no;
          std::optional<Counterexample> cx = replay(rule, ops, skeleton, enc, m, v, &no);
          if (cx) {
            out->verdict = ProofVerdict::Refuted;
            out->counterexample = cx;
            return true;
          }
          if (model == 0 && draw == 0)
            *why = no;
          if (no.starts_with("the solver's graph is ill-typed") ||
              no.starts_with("the rule does not apply"))
            break; // whatever the values
        }
        z3::expr same = c.bool_val(true);
        for (const Leaf& leaf : enc.leaves())
          for (const z3::expr& d : leaf.shape)
            same = same && d == m.eval(d, true);
        for (const auto& [name, o] : enc.options())
          same = same && o == m.eval(o, true);
        s.add(!same);
        if (timed(s) != z3::sat)
          return false;
        m = s.get_model();
      }
      return false;
    };
    // With quantized values, a first search with their encodings fixed: float64 arithmetic on
    // symbolic steps is slow to search, and any counterexample will do.
    if (!enc.encodings().empty()) {
      s.push();
      z3::params quick(c);
      quick.set("timeout", std::min(o.timeout_ms, 2000u));
      s.set(quick);
      // (Steps 3/8, 3/16, ...: not the round values rules name; a zero
      // offset of 0 or 3.)
      float step = 0.375f;
      for (const auto& [zero, symbol] : enc.encodings()) {
        s.add((zero == 0 || zero == 3) && symbol == c.fpa_val(step));
        step /= 2;
      }
      for (const Leaf& leaf : enc.leaves())
        for (const z3::expr& d : leaf.shape)
          s.add(d <= c.int_val(4));
      std::string why;
      if (timed(s) == z3::sat && replayed(s.get_model(), &why))
        return "inputs of " + label;
      s.pop();
      z3::params full(c);
      full.set("timeout", o.timeout_ms);
      s.set(full);
    }
    for (int64_t bound : {4, 16}) {
      s.push();
      for (const Leaf& leaf : enc.leaves())
        for (const z3::expr& d : leaf.shape)
          s.add(d <= c.int_val(bound));
      for (const auto& [name, v] : enc.options())
        s.add(v <= c.int_val(bound));
      z3::check_result res = timed(s);
      if (res == z3::unknown)
        return "the solver gave up (" + s.reason_unknown() + ") for inputs of " + label;
      if (res == z3::sat) {
        std::string why;
        if (replayed(s.get_model(), &why))
          return "inputs of " + label;
        out->inconsistency = why;
        return why;
      }
      s.pop();
    }
    z3::check_result res = timed(s);
    if (res == z3::sat) {
      // Larger extents: replayed when every input has at most 2^20 elements.
      z3::model m = s.get_model();
      bool small = true;
      for (const Leaf& leaf : enc.leaves()) {
        double count = 1;
        for (const z3::expr& d : leaf.shape)
          count *= double(int_value(m, d));
        small = small && count <= double(1 << 20);
      }
      if (!small)
        return "a counterexample exists for inputs of " + label +
               " only with inputs of more than 2^20 elements, too large to replay";
      std::string why;
      if (replayed(m, &why))
        return "inputs of " + label;
      out->inconsistency = why;
      return why;
    }
    if (res == z3::unknown)
      return "the solver gave up (" + s.reason_unknown() + ") for inputs of " + label;
    return std::nullopt;
  };
  for (size_t n = 0; n < cases; ++n) {
    std::vector<HtpType> dtypes;
    for (size_t i = 0, rest = n; i < leaves; ++i, rest /= std::size(kTypes))
      dtypes.push_back(kTypes[rest % std::size(kTypes)]);
    std::string label;
    for (HtpType t : dtypes)
      label += (label.empty() ? "" : ", ") + std::string(rules::tag(t));
    z3::context c;
    z3::solver s(c);
    z3::params p(c);
    p.set("timeout", o.timeout_ms);
    s.set(p);
    Encoding enc(c, rule, ops, skeleton, dtypes, precision);
    try {
      s.add(enc.assumptions());
      s.add(enc.option_ranges());
      z3::check_result applies = timed(s);
      if (applies == z3::unsat)
        continue; // no graph of these dtypes the rule applies to
      if (applies == z3::unknown) {
        r.reason = "the solver gave up (" + s.reason_unknown() +
                   ") on whether the rule applies "
                   "to inputs of " +
                   label;
        return finish(r);
      }
      any = true;
      // First whether the rewrite keeps the output's type (its ops accept
      // their inputs, the dtype and extents stay), then its values.
      z3::expr differ = c.bool_val(false);
      std::optional<Outside> values_outside;
      z3::expr keep = c.bool_val(true);
      try {
        keep = enc.obligations(differ);
      } catch (const Outside& e) {
        values_outside = e;
        keep = enc.obligations_without_values();
      }
      s.add(enc.option_ranges()); // with the options the replacement reads
      elementwise = elementwise && enc.elementwise();
      for (bool types : {true, false}) {
        if (!types && values_outside)
          throw *values_outside;
        s.push();
        s.add(types ? !keep : keep && differ);
        std::optional<std::string> failed = refute(s, enc, label, !types, &r);
        if (failed) {
          r.reason = *failed;
          if (r.verdict != ProofVerdict::Refuted && !enc.abstracted().empty()) {
            r.reason += "; ops taken as uninterpreted functions:";
            for (const std::string& a : enc.abstracted())
              r.reason += " " + a + (&a == &enc.abstracted().back() ? "" : ";");
          }
          return r.verdict == ProofVerdict::Refuted ? r : finish(r);
        }
        s.pop();
      }
    } catch (const Outside& e) {
      r.reason = e.reason + " (inputs of " + label + ")";
      return finish(r);
    } catch (const z3::exception& e) {
      r.reason = std::string("the solver: ") + e.msg() + " (inputs of " + label + ")";
      return finish(r);
    }
  }
  r.verdict = ProofVerdict::Proved;
  r.reason = any ? "every shape of rank 4 with extents below 2^31, every option and every value"
                 : "vacuously: no graph satisfies the match and the constraint";
  if (any && elementwise)
    r.reason = "every shape of rank 4 with extents below 2^31, and of every rank (the rule is "
               "elementwise), every option and every value";
  if (any && precision)
    r.reason = "within the documented precision change, for every shape of rank 4 with extents "
               "below 2^31, every option and every value within float16's range";
  return finish(r);
}

} // namespace teval::verify::htp
