// Drawing the verifier's graphs (see htp_verifier.h): types, shapes,
// constants and options for a rule's match, guided by the constraint's
// hints and by the ops' definitions.
#include "verify/htp_verifier.h"

#include <algorithm>
#include <regex>

namespace teval::verify::htp::detail {

using namespace teval::rules;

namespace {

// Whether \p k is a zero offset of dtype \p t (random_quant's ranges).
bool fits_zero_offset(HtpType t, int64_t k) {
  auto [lo, hi] = zero_range(t);
  return k >= lo && k <= hi;
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

} // namespace

std::pair<int64_t, int64_t> zero_range(HtpType t) {
  switch (t) {
  case HtpType::QUInt8:
  case HtpType::QInt8:
  case HtpType::QUInt16:
    return code_range(t);
  default:
    return {0, 0};
  }
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

} // namespace teval::verify::htp::detail
