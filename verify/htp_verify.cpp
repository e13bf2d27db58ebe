// The soundness verifier of HTP rules (see htp_verify.h).
#include "verify/htp_verify.h"

#include "core/error.h"
#include "core/format.h"
#include "interp/random_inputs.h"
#include "rules/htp_rewrite.h"
#include "verify/htp_compare.h"
#include "verify/htp_hints.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <set>

namespace teval::verify::htp {

namespace {

using parser::htp::Rule;
using namespace teval::rules;

// The match pattern as a list of nodes, inputs before users.
struct Skeleton {
  struct Item {
    enum class Kind { Leaf, Const, Op } kind;
    std::string name; // leaf tag, or the op's LET tag
    std::string op;
    std::vector<int> inputs;
  };
  std::vector<Item> items;
  int root = -1;
};

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

// Everything random about one candidate graph.
struct Plan {
  std::vector<TensorType> types; // per skeleton item: leaf and const types, op quantization
  // Per skeleton item, a quantized encoding for an op of a float draw
  // whose definition quantizes (Quantize of a float input, Requantize).
  std::vector<TensorType> encodings;
  std::vector<double> const_values;
  std::map<std::string, double> options;
  uint64_t data_seed = 0;
  double scale = 1;
};

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

class Verifier {
public:
  Verifier(const Rule& rule, const OpSet& ops, const VerifyOptions& o)
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

  VerifyResult run();

private:
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  Plan draw(int size);
  // The encoding hints (encodings_) applied to \p p's types: a dtype the
  // constraint tests for, quantization copied between the tags it
  // compares, a zero offset it names.
  void take_encoding_hints(Plan& p);
  // The graph of \p p, or nothing when an op's definition rejects its
  // inputs (that op's skeleton item goes to *failed).
  std::optional<Graph> build(const Plan& p, std::string* why, int* failed = nullptr);
  // \p p with the extents of inputs an op's definition equates to others
  // (see the definition).
  void repair(Plan& p);
  // Outcome of one plan: nullopt when the rule does not apply (not a case).
  // Imprecise: a rule that lowers precision on purpose differs within
  // kPrecisionChangeBound (the relative error goes to *error).
  // RewrittenAway: the earlier rules (VerifyOptions::earlier) leave no
  // node the rule applies to.
  enum class Outcome { Skip, Agree, Differ, Imprecise, Unverifiable, RewrittenAway };
  Outcome check(const Plan& p, Counterexample* cx, std::string* reason, double* error = nullptr);
  Plan shrink(Plan p);
  // Whether the rule still applies somewhere in \p g once the earlier
  // rules have run on it; a rule that cannot be evaluated there is taken
  // to apply (nothing is claimed about it). The first earlier rule that
  // rewrote the graph is counted in rewriters_.
  bool survives_earlier(const Graph& g);

  const Rule& rule_;
  const OpSet& ops_;
  const VerifyOptions& o_;
  std::mt19937_64 rng_;
  Skeleton skeleton_;
  std::map<std::string, std::string> options_;
  bool reads_dtypes_ = false;
  // The match has an op HTP's TCM migration inserts (flat_to_vtcm, ...).
  bool matches_tcm_moves_ = false;
  // Input tags that are the axis operand of a built-in Concat: constants.
  std::set<std::string> axis_tags_;
  // The graph dtypes every match op on an input tag is defined for, when
  // not all of them (empty: any).
  std::vector<HtpType> accepted_;
  bool lowers_precision_ = false;
  std::vector<DimHint> hints_;
  EncodingHints encodings_;
  ConstantHints constants_;
  std::map<std::string, int> rejections_;
  std::map<const Rule*, int> rewriters_;
};

// Whether \p k is a zero offset of dtype \p t (random_quant's ranges).
bool fits_zero_offset(HtpType t, int64_t k) {
  switch (t) {
  case HtpType::QUInt8:
    return k >= 0 && k <= 255;
  case HtpType::QInt8:
    return k >= -128 && k <= 127;
  case HtpType::QUInt16:
    return k >= 0 && k <= 65535;
  default:
    return k == 0;
  }
}

TensorType random_quant(TensorType t, std::mt19937_64& rng) {
  auto u = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  switch (t.dtype) {
  case HtpType::QUInt8:
    t.zero_offset = int32_t(u(0, 255));
    break;
  case HtpType::QInt8:
    t.zero_offset = int32_t(u(-128, 127));
    break;
  case HtpType::QUInt16:
    t.zero_offset = int32_t(u(0, 65535));
    break;
  default:
    t.zero_offset = 0;
  }
  t.step = quantized(t.dtype) ? float(u(1, 64)) / 64.0f : 1.0f;
  return t;
}

Plan Verifier::draw(int size) {
  Plan p;
  core::Shape base = {uniform(1, 2), uniform(1, size), uniform(1, size), uniform(1, size + 1)};
  // Half the draws take the constraint's hints: extents near the constants
  // it compares dimensions with (for the root and the ops of the match,
  // through the shape most operands share; for a graph input, directly).
  std::map<std::pair<std::string, size_t>, int64_t> hinted;
  const bool hints = uniform(0, 1) == 0;
  if (hints)
    for (const DimHint& h : hints_) {
      int64_t v = h.values[size_t(uniform(0, int64_t(h.values.size()) - 1))];
      // Several comparisons of one extent (AND(GT(DIM_DEPTH("*"), 16),
      // EQ(DIM_DEPTH("*"), 32))): a value every one admits, among all of
      // their candidates, when there is one.
      std::vector<int64_t> every;
      for (const DimHint& g : hints_)
        if (&g != &h && g.tag == h.tag && g.dim == h.dim)
          for (int64_t c : g.values)
            every.push_back(c);
      if (!every.empty()) {
        every.insert(every.end(), h.values.begin(), h.values.end());
        std::erase_if(every, [&](int64_t c) {
          return !std::all_of(hints_.begin(), hints_.end(), [&](const DimHint& g) {
            return g.tag != h.tag || g.dim != h.dim || g.admits(c);
          });
        });
        if (!every.empty())
          v = every[size_t(uniform(0, int64_t(every.size()) - 1))];
      }
      hinted[{h.tag, h.dim}] = v;
      bool leaf = false;
      for (const Skeleton::Item& item : skeleton_.items)
        leaf = leaf || (item.kind == Skeleton::Item::Kind::Leaf && item.name == h.tag);
      if (!leaf)
        base[h.dim] = v;
    }
  static const HtpType kOther[] = {HtpType::Float16, HtpType::QUInt8, HtpType::QInt8,
                                   HtpType::QUInt16, HtpType::QInt16, HtpType::QInt32,
                                   HtpType::Int32};
  constexpr int64_t kLastOther = int64_t(std::size(kOther)) - 1;
  HtpType graph_type = uniform(0, 4) == 0 ? kOther[uniform(0, kLastOther)] : HtpType::Float32;
  if (!accepted_.empty() &&
      std::find(accepted_.begin(), accepted_.end(), graph_type) == accepted_.end())
    graph_type = accepted_[size_t(uniform(0, int64_t(accepted_.size()) - 1))];
  // Graph inputs share one dtype, as HTP ops are registered per dtype;
  // only a rule that inspects dtypes sees inputs of different ones.
  int64_t small = std::min<int64_t>(3, size);
  // With three inputs or more, a draw in four gives every input the base
  // shape: ops that need equal shapes of many inputs (a chain of Adds, a
  // Concat) meet them, which independent picks almost never do.
  int leaves = 0;
  for (const Skeleton::Item& item : skeleton_.items)
    leaves += item.kind == Skeleton::Item::Kind::Leaf;
  const bool same_shapes = leaves >= 3 && uniform(0, 3) == 0;
  for (const Skeleton::Item& item : skeleton_.items) {
    TensorType t;
    // (A guided draw keeps one dtype: the constraint's dtype hints pick it.)
    // (And so does a draw for ops defined per dtype, as HTP registers them:
    // an op's inputs share its dtype.)
    t.dtype = reads_dtypes_ && !hints && accepted_.empty() && uniform(0, 5) == 0
                  ? kOther[uniform(0, kLastOther)]
                  : graph_type;
    if (item.kind == Skeleton::Item::Kind::Const) {
      t.dtype = uniform(0, 1) ? HtpType::Float32 : HtpType::Int32;
      t.shape = {1, 1, 1, uniform(0, 2) == 0 ? uniform(1, size) : 1};
      if (axis_tags_.count(item.name)) {
        t.dtype = HtpType::Int32;
        t.shape = {1, 1, 1, 1};
      }
      // The elements the constraint compares with constants, in the
      // guided draws: long enough to hold them, and holding them.
      std::map<int64_t, double> wanted;
      if (hints)
        for (const ConstantHints::Value& v : constants_.values)
          if (v.tag == item.name && !item.name.empty()) {
            wanted[v.index] = v.value;
            t.shape[3] = std::max(t.shape[3], v.index + 1);
            if (v.value != std::floor(v.value))
              t.dtype = HtpType::Float32;
          }
      for (int64_t i = 0; i < t.shape[3]; ++i) {
        double x = double(uniform(-4, 4));
        p.const_values.push_back(wanted.count(i) ? wanted[i] : x);
      }
    } else if (int64_t pick = same_shapes ? 0 : uniform(0, 9); pick < 5) {
      t.shape = base;
    } else if (pick < 7) {
      // Small independent extents: ops that relate the extents of their
      // inputs (a filter's depth and an activation's, say) meet often.
      for (size_t d = 0; d < 4; ++d)
        t.shape.push_back(uniform(1, small));
    } else {
      for (size_t d = 0; d < 4; ++d) {
        int64_t pick = uniform(0, 3);
        t.shape.push_back(pick == 0   ? base[d]
                          : pick == 1 ? 1
                          : pick == 2 ? base[(d + 1) % 4]
                                      : uniform(1, size));
      }
    }
    if (item.kind == Skeleton::Item::Kind::Leaf)
      for (size_t d = 0; d < t.shape.size(); ++d)
        if (auto it = hinted.find({item.name, d}); it != hinted.end())
          t.shape[d] = it->second;
    p.types.push_back(random_quant(t, rng_));
  }
  if (hints)
    take_encoding_hints(p);
  // A size option (OPTION_UINT: tile_height, autothread_hvx_ntiles, ...) is
  // never 0 on HTP; a flag is 0 or 1.
  for (const auto& [name, form] : options_)
    p.options[name] = double(form == "OPTION_BOOL"   ? uniform(0, 1)
                             : form == "OPTION_UINT" ? uniform(1, 16)
                                                     : uniform(0, 16));
  p.data_seed = uint64_t(uniform(0, int64_t{1} << 40));
  // Drawn from a generator of their own, so that they leave the draws of
  // everything else as they were.
  std::mt19937_64 encoding_rng(p.data_seed ^ 0x9e3779b97f4a7c15u);
  for (size_t i = 0; i < skeleton_.items.size(); ++i) {
    TensorType t = p.types[i];
    t.dtype = kOther[std::uniform_int_distribution<int64_t>(1, 5)(encoding_rng)];
    p.encodings.push_back(random_quant(t, encoding_rng));
  }
  p.scale = std::array<double, 3>{1, 8, 64}[uniform(0, 2)];
  return p;
}

void Verifier::take_encoding_hints(Plan& p) {
  const EncodingHints& e = encodings_;
  if (e.dtypes.empty() && e.same.empty() && e.zero_offsets.empty() && e.steps.empty())
    return;
  // The items a tag names: its leaf or op, or for "*" the root.
  auto items = [&](const std::string& tag) {
    std::vector<size_t> out;
    for (size_t i = 0; i < skeleton_.items.size(); ++i)
      if (skeleton_.items[i].kind != Skeleton::Item::Kind::Const &&
          (skeleton_.items[i].name == tag || (tag == "*" && int(i) == skeleton_.root)))
        out.push_back(i);
    return out;
  };
  auto is_leaf = [&](size_t i) { return skeleton_.items[i].kind == Skeleton::Item::Kind::Leaf; };
  // One dtype per tag, drawn among those the constraint tests it for. An
  // op's output takes its type from its inputs, and HTP registers ops per
  // dtype: an op's dtype goes to every input of the graph and to the op
  // (whose quantization an op that quantizes takes); the first input tag's
  // does too when no op's was drawn, and each input tag's own, drawn after,
  // wins for that input.
  std::map<std::string, std::vector<HtpType>> wanted;
  for (const auto& [tag, t] : e.dtypes)
    wanted[tag].push_back(t);
  bool whole_graph = false;
  for (bool leaves : {false, true})
    for (const auto& [tag, ts] : wanted) {
      std::vector<size_t> named = items(tag);
      if (named.empty() || is_leaf(named[0]) != leaves)
        continue;
      HtpType t = ts[size_t(uniform(0, int64_t(ts.size()) - 1))];
      const bool all = !whole_graph;
      whole_graph = true;
      for (size_t j = 0; j < skeleton_.items.size(); ++j)
        if (j == named[0] || (all && skeleton_.items[j].kind != Skeleton::Item::Kind::Const)) {
          p.types[j].dtype = t;
          p.types[j] = random_quant(p.types[j], rng_);
        }
    }
  // A step the constraint's comparisons bound, in half the draws: the
  // bound, or the mean of several (GT(ratio, 0.995f) and LT(ratio,
  // 1.005f): the ratio 1), for each quantized item of the tag.
  std::map<std::string, std::vector<double>> steps;
  for (const auto& [tag, step] : e.steps)
    steps[tag].push_back(step);
  for (const auto& [tag, candidates] : steps) {
    if (uniform(0, 1) == 0)
      continue;
    // One bound is its value; several bound an interval: their mean.
    double step = 0;
    for (double c : candidates)
      step += c / double(candidates.size());
    for (size_t i : items(tag))
      if (quantized(p.types[i].dtype))
        p.types[i].step = float(step);
  }
  // Encodings compared: the second tag's made the first's, in half the
  // draws (the comparison may stand under NOT: SAME_QUANT's negation).
  if (!e.same.empty() && uniform(0, 1) == 0)
    for (const auto& [a, b] : e.same)
      for (size_t i : items(a))
        for (size_t j : items(b)) {
          p.types[j].dtype = p.types[i].dtype;
          p.types[j].step = p.types[i].step;
          p.types[j].zero_offset = p.types[i].zero_offset;
        }
  // A zero offset compared with a constant takes it in half the draws (the
  // comparison may stand under NOT or OR).
  for (const auto& [tag, k] : e.zero_offsets)
    if (uniform(0, 1) == 0)
      for (size_t i : items(tag))
        if (fits_zero_offset(p.types[i].dtype, k))
          p.types[i].zero_offset = int32_t(k);
}

std::optional<Graph> Verifier::build(const Plan& p, std::string* why, int* failed) {
  Graph g;
  g.options = p.options;
  std::vector<int> ids;
  size_t next_const = 0;
  for (size_t i = 0; i < skeleton_.items.size(); ++i) {
    const Skeleton::Item& item = skeleton_.items[i];
    Node n;
    n.name = item.name.empty() || item.name == "*" ? "" : item.name;
    if (item.kind == Skeleton::Item::Kind::Leaf) {
      n.kind = Node::Kind::Input;
      n.op = "*Input";
      n.type = p.types[i];
    } else if (item.kind == Skeleton::Item::Kind::Const) {
      n.kind = Node::Kind::Const;
      n.op = "$Const";
      n.type = p.types[i];
      core::Tensor v(storage(n.type.dtype), n.type.shape);
      for (int64_t k = 0; k < v.numel(); ++k) {
        double x = p.const_values[next_const++];
        v.set(k, n.type.dtype == HtpType::Float32
                     ? core::Scalar::of_float(core::DType::Float32, x)
                     : core::Scalar::of_int(core::DType::Int32, int64_t(x)));
      }
      n.value = std::move(v);
    } else {
      n.op = item.op;
      for (int in : item.inputs)
        n.inputs.push_back(ids[in]);
      try {
        // The encoding an op that quantizes takes (infer_type ignores it
        // for one that does not): the draw's, or for a float draw one of
        // its own.
        std::optional<TensorType> quant = quantized(p.types[i].dtype) ? p.types[i] : p.encodings[i];
        n.type = infer_type(ops_, g, item.op, n.inputs, quant);
      } catch (const IllTyped& e) {
        *why = e.message;
        if (failed)
          *failed = int(i);
        return std::nullopt;
      }
    }
    ids.push_back(g.add(std::move(n)));
  }
  g.output = ids[skeleton_.root];
  return g;
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

// An op whose definition equates extents of its inputs (attention's query,
// key and value share batch and heads, its mask has the query's and the
// key's lengths) is rarely drawn whole: a draw the definition rejects for
// an extent (`axis J has extent 3 here (dimension 2 of `in3`) but 5
// elsewhere`) takes that extent for that input, when it is an input tag,
// and is built again, up to 8 times, as a solver of the definitions'
// equations would. (The constraint still decides whether it is a case.)
void Verifier::repair(Plan& p) {
  static const std::regex conflict(
      R"(has extent \d+ here \(dimension (\d+) of `in(\d+)`\) but (\d+) elsewhere)");
  for (int round = 0; round < 8; ++round) {
    std::string why;
    int failed = -1;
    if (build(p, &why, &failed))
      return;
    std::smatch m;
    if (failed < 0 || !std::regex_search(why, m, conflict))
      return;
    size_t d = std::stoul(m[1].str()), k = std::stoul(m[2].str());
    const Skeleton::Item& item = skeleton_.items[size_t(failed)];
    if (k >= item.inputs.size())
      return;
    size_t leaf = size_t(item.inputs[k]);
    if (skeleton_.items[leaf].kind != Skeleton::Item::Kind::Leaf || d >= p.types[leaf].shape.size())
      return;
    p.types[leaf].shape[d] = std::stoll(m[3].str());
  }
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
    // A rule that computes in float16 on purpose is judged by its worst
    // element.
    // Quantized values are compared as the real values they encode, when
    // both outputs have one encoding.
    const TensorType& out_type = before->nodes[before->output].type;
    std::map<int, core::Tensor> real_inputs;
    for (const auto& [id, t] : inputs)
      real_inputs[id] = real_values(t, before->nodes[id].type);
    if (!difference.empty() && lowers_precision_ && after.nodes[after.output].type == out_type)
      if (std::optional<RelativeError> e = relative_error(
              real_values(expected, out_type), real_values(got, out_type), real_inputs)) {
        difference = element_difference(expected, got, e->at);
        // A quantized output may also be one of its codes off: rounding
        // into an intermediate encoding and then into the output's moves
        // a value across at most one of the output's rounding boundaries.
        double code = quantized(out_type.dtype) ? double(out_type.step) : 0;
        if (e->absolute <= kPrecisionChangeBound * e->scale + code) {
          if (error)
            *error = e->error;
          *cx = Counterexample{with_values(*before, inputs), to_text(after), difference};
          return Outcome::Imprecise;
        }
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

} // namespace

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
  return Verifier(rule, ops, o).run();
}

} // namespace teval::verify::htp
