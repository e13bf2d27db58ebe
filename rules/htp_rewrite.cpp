// Building replacements and running rule sets (see htp_rewrite.h).
#include "rules/htp_rewrite.h"

#include "core/error.h"

#include <algorithm>
#include <limits>
#include <set>

namespace teval::rules {

namespace {

using core::Error;
using core::ErrorKind;
using parser::htp::Rule;

const std::string& name_of(const ast::Expr& e) {
  return std::get<ast::Name>(e.node).id;
}

class Builder {
public:
  Builder(Graph& g, const Match& m, int root)
      : g_(g), ev_(g, m), root_(root), default_type_(g.nodes[root].type) {}

  int build(const ast::Expr& e);
  Evaluator& evaluator() { return ev_; }
  bool fresh(int id) const { return fresh_.count(id) != 0; }

private:
  int add(Node n) {
    int id = g_.add(std::move(n));
    fresh_.insert(id);
    return id;
  }
  int op(const std::string& opstring, std::vector<int> inputs, TensorType type) {
    Node n;
    n.op = opstring;
    n.inputs = std::move(inputs);
    n.type = std::move(type);
    return add(std::move(n));
  }
  int constant(HtpType t, core::Shape shape, const std::vector<double>& values) {
    Node n;
    n.kind = Node::Kind::Const;
    n.op = "$Const";
    n.type.dtype = t;
    n.type.shape = std::move(shape);
    core::Tensor v(storage(t), n.type.shape);
    for (int64_t i = 0; i < v.numel(); ++i) {
      double x = values.size() == 1 ? values[0] : values[i];
      v.set(i, t == HtpType::Float32 ? core::Scalar::of_float(core::DType::Float32, x)
                                     : core::Scalar::of_int(core::DType::Int32, int64_t(x)));
    }
    n.value = std::move(v);
    return add(std::move(n));
  }
  int shape(core::Shape dims) {
    Node n;
    n.kind = Node::Kind::Shape;
    n.op = "$Shape";
    n.type.dtype = HtpType::Int32;
    n.type.shape = std::move(dims);
    return add(std::move(n));
  }
  int autosplit(const ast::Call& c);
  int op_iter(const ast::Call& c);
  int shape_fn(const ast::Call& c, const ast::Expr& e);
  int modifier(const ast::Call& c);

  Graph& g_;
  Evaluator ev_;
  int root_;
  TensorType default_type_;
  std::set<int> fresh_;
};

int Builder::build(const ast::Expr& e) {
  if (as_string(e))
    return ev_.opref(e);
  const ast::Call& c = *as_call(e);
  const std::string& f = c.callee;
  if (f == "INPUT_OF" || f == "OUTPUT_OF")
    return ev_.opref(e);
  if (f == "Operand")
    return ev_.opref(*c.args[0]);
  if (f == "SELECT")
    return build(*c.args[ev_.holds(*c.args[0]) ? 1 : 2]);
  if (f == "Op") {
    std::vector<int> inputs;
    for (size_t i = 1; i < c.args.size(); ++i)
      inputs.push_back(build(*c.args[i]));
    return op(as_string(*c.args[0])->value, std::move(inputs), default_type_);
  }
  if (f == "WrapOp" || f == "WrapOpAlways") {
    const std::string& name = as_string(*c.args[0])->value;
    int x = build(*c.args[1]);
    if (f == "WrapOp" && g_.nodes[x].kind == Node::Kind::Op && g_.nodes[x].op == name)
      return x;
    return op(name, {x}, g_.nodes[x].type);
  }
  if (f == "gen_Shape") {
    core::Shape dims;
    for (const ast::ExprPtr& a : c.args) {
      dims.push_back(ev_.integer(*a));
      // A graph with such an extent could not even be read back.
      if (dims.back() < 0 || dims.back() >= (int64_t{1} << 31))
        throw Error(ErrorKind::Range, a->span,
                    "gen_Shape extent " + std::to_string(dims.back()) + " is not in [0, 2^31)");
    }
    return shape(std::move(dims));
  }
  if (f == "gen_ShapeOf")
    return shape(g_.nodes[build(*c.args[0])].type.shape);
  if (f == "gen_ConstScalar_f32" || f == "gen_ConstScalar_i32") {
    Value v = ev_.eval(*c.args[0]);
    double x = v.type == Value::Type::Float  ? v.f
               : v.type == Value::Type::Size ? double(v.u)
                                             : double(v.i);
    return constant(f.ends_with("f32") ? HtpType::Float32 : HtpType::Int32, {1, 1, 1, 1}, {x});
  }
  if (f == "gen_ConstArr_f32" || f == "gen_ConstArr_i32" || f == "gen_ConstArr_vals_i32") {
    std::vector<double> values;
    int64_t n = 0;
    if (f == "gen_ConstArr_vals_i32") {
      for (const ast::ExprPtr& a : c.args)
        values.push_back(double(ev_.integer(*a)));
      n = int64_t(values.size());
    } else {
      Value v = ev_.eval(*c.args[0]);
      values.push_back(v.type == Value::Type::Float  ? v.f
                       : v.type == Value::Type::Size ? double(v.u)
                                                     : double(v.i));
      n = ev_.integer(*c.args[1]);
      if (n < 0 || n > (int64_t{1} << 24))
        throw Error(ErrorKind::Limit, c.args[1]->span,
                    f + " of " + std::to_string(n) + " elements");
    }
    return constant(f == "gen_ConstArr_f32" ? HtpType::Float32 : HtpType::Int32, {1, 1, 1, n},
                    values);
  }
  if (f == "AUTOSPLIT")
    return autosplit(c);
  if (f == "OP_ITER")
    return op_iter(c);
  if (f == "ITER_INPUT_OF") {
    int x = ev_.opref(*c.args[0]);
    const std::string& tag = as_string(*c.args[1])->value;
    int64_t i = 0;
    for (const Split& s : ev_.splits)
      i = s.tag == tag ? s.start : i;
    const Node& n = g_.nodes[x];
    if (i < 0 || i >= int64_t(n.inputs.size()))
      throw Error(ErrorKind::Range, e.span,
                  "ITER_INPUT_OF index " + std::to_string(i) + " is out of range: " + n.name +
                      " has " + std::to_string(n.inputs.size()) + " input(s)");
    return n.inputs[i];
  }
  if (f == "AUTOSPLIT_SHAPEFN_APPLY" || f == "SHAPEFN_APPLY")
    return shape_fn(c, e);
  if (f == "EXTERNAL_REPLACE")
    throw NotEvaluable{c.args[0]->span,
                       "EXTERNAL_REPLACE calls the C++ function '" + name_of(*c.args[0]) + "'"};
  return modifier(c);
}

// The most chunks one AUTOSPLIT builds (as many as OP_ITER's indices).
constexpr int64_t kMaxChunks = 4096;

int Builder::autosplit(const ast::Call& c) {
  // The whole is what an op built here would be: the root's output, or
  // what enclosing modifiers made of it (an AUTOSPLIT nested in an Op).
  const TensorType whole = default_type_;
  int64_t dim = ev_.integer(*c.args[0]);
  int64_t chunk = ev_.integer(*c.args[2]);
  if (dim < 0 || dim >= int64_t(whole.shape.size()))
    throw Error(ErrorKind::Range, c.args[0]->span,
                "AUTOSPLIT dimension " + std::to_string(dim) + " is beyond the output's rank " +
                    std::to_string(whole.shape.size()));
  if (chunk <= 0)
    throw Error(ErrorKind::Arithmetic, c.args[2]->span,
                "AUTOSPLIT chunk size must be positive, not " + std::to_string(chunk));
  if ((whole.shape[dim] + chunk - 1) / chunk > kMaxChunks)
    throw Error(ErrorKind::Limit, c.args[2]->span,
                "AUTOSPLIT of extent " + std::to_string(whole.shape[dim]) + " into chunks of " +
                    std::to_string(chunk) + " makes more than " + std::to_string(kMaxChunks) +
                    " chunks");
  std::vector<int> inputs = {constant(HtpType::Int32, {1, 1, 1, 1}, {double(dim)})};
  TensorType saved = default_type_;
  for (int64_t start = 0; start < whole.shape[dim]; start += chunk) {
    Split s{as_string(*c.args[1])->value, int(dim), start,
            std::min(chunk, whole.shape[dim] - start)};
    default_type_ = whole;
    default_type_.shape[dim] = s.size;
    ev_.splits.push_back(s);
    inputs.push_back(build(*c.args[3]));
    ev_.splits.pop_back();
  }
  default_type_ = saved;
  return op("Concat", std::move(inputs), whole);
}

int Builder::op_iter(const ast::Call& c) {
  int base = build(*c.args[0]);
  Node n = g_.nodes[base];
  n.name.clear();
  int64_t lo = ev_.integer(*c.args[2]);
  int64_t hi = ev_.integer(*c.args[3]);
  if (hi - lo > 4096)
    throw Error(ErrorKind::Limit, c.args[3]->span, "OP_ITER over more than 4096 indices");
  for (int64_t i = lo; i < hi; ++i) {
    ev_.splits.push_back(Split{as_string(*c.args[1])->value, 0, i, 1});
    n.inputs.push_back(build(*c.args[4]));
    ev_.splits.pop_back();
  }
  if (n.kind != Node::Kind::Op)
    throw Error(ErrorKind::Type, c.args[0]->span, "OP_ITER needs an op to add inputs to");
  return add(std::move(n));
}

// The shape functions the seed's slice macros use: the start and size of
// an input's slice for one chunk of an AUTOSPLIT.
int Builder::shape_fn(const ast::Call& c, const ast::Expr& e) {
  const std::string& fn = name_of(*c.args[0]);
  bool split_fn = c.callee == "AUTOSPLIT_SHAPEFN_APPLY";
  bool simple = fn == "simple_split_start" || fn == "simple_split_size";
  bool simpledim = fn == "simpledim_split_start" || fn == "simpledim_split_size";
  if (fn == "conv_valid_split_start" || fn == "conv_valid_split_size")
    throw NotEvaluable{c.args[0]->span, "TYPICAL_CONV_SLICE's shape functions belong to the HTP "
                                        "library, which teval does not model"};
  if (!split_fn || (!simple && !simpledim))
    throw NotEvaluable{c.args[0]->span, "the shape function '" + fn + "' is external C++"};
  const std::string& tag = as_string(*c.args[1])->value;
  Split s;
  for (const Split& x : ev_.splits)
    s = x.tag == tag ? x : s;
  int in = ev_.opref(*c.args[2]);
  core::Shape in_shape = g_.nodes[in].type.shape;
  core::Shape start(in_shape.size(), 0);
  core::Shape size = in_shape;
  int64_t dim = simpledim ? ev_.integer(*c.args[3]) : s.dim;
  if (dim < 0 || dim >= int64_t(in_shape.size()))
    throw Error(ErrorKind::Range, e.span,
                fn + ": dimension " + std::to_string(dim) + " is beyond the rank of " +
                    g_.nodes[in].name);
  int64_t whole = g_.nodes[root_].type.shape[s.dim];
  if (simple && in_shape[dim] == 1 && whole != 1) {
    // A broadcast input: every chunk reads its single slice.
  } else if (simple && in_shape[dim] != whole) {
    throw NotEvaluable{e.span, fn + ": " + g_.nodes[in].name + " has extent " +
                                   std::to_string(in_shape[dim]) + " in dimension " +
                                   std::to_string(dim) + ", neither the split output's " +
                                   std::to_string(whole) + " nor 1"};
  } else {
    if (s.start + s.size > in_shape[dim])
      throw Error(ErrorKind::Range, e.span,
                  fn + ": chunk [" + std::to_string(s.start) + ", " +
                      std::to_string(s.start + s.size) + ") is beyond " + g_.nodes[in].name +
                      "'s extent " + std::to_string(in_shape[dim]));
    start[dim] = s.start;
    size[dim] = s.size;
  }
  return shape(fn.ends_with("_start") ? start : size);
}

// A modifier changes the output definition its whole target subtree is
// built with, as HTP's headers evaluate it: the enclosing definition with
// this modifier's field replaced. So an inner modifier of the same field
// wins, and every Op built inside inherits it (a nested Op too); an
// operand of the match keeps its own type.
int Builder::modifier(const ast::Call& c) {
  const std::string& f = c.callee;
  TensorType t = default_type_;
  if (f == "WITH_SIZE" || f == "WITH_TYPE" || f == "WITH_SAME_OUTPUT") {
    const TensorType from = g_.nodes[build(*c.args[0])].type;
    if (f == "WITH_SIZE") {
      t.shape = from.shape;
    } else if (f == "WITH_TYPE") {
      t.dtype = from.dtype;
      t.zero_offset = from.zero_offset;
      t.step = from.step;
    } else {
      t = from;
    }
  } else if (f == "WITH_OUTPUT_TYPE") {
    Value dt = ev_.eval(*c.args[0]);
    std::optional<HtpType> h = htp_type_from_name(dt.dtype);
    if (!h)
      throw NotEvaluable{c.args[0]->span, "tensors of DType::" + dt.dtype + " are not modelled"};
    t.dtype = *h;
    t.zero_offset = int32_t(ev_.integer(*c.args[1]));
    Value step = ev_.eval(*c.args[2]);
    t.step = step.type == Value::Type::Float ? step.f : float(ev_.integer(*c.args[2]));
  } else if (f == "ResizeDim") {
    const int64_t dim = ev_.integer(*c.args[0]);
    if (dim < 0 || dim >= int64_t(t.shape.size()))
      throw Error(ErrorKind::Range, c.args[0]->span,
                  "ResizeDim dimension " + std::to_string(dim) + " is beyond the rank " +
                      std::to_string(t.shape.size()));
    t.shape[dim] = ev_.integer(*c.args[1]);
  }
  const TensorType saved = default_type_;
  default_type_ = t;
  const int id = build(*c.args.back());
  default_type_ = saved;
  if (!fresh(id))
    return id; // an existing node (an operand, WrapOp of an op of that name)
  if (f == "WITH_SAME_OUTPUT" && g_.nodes[id].kind == Node::Kind::Const)
    throw NotEvaluable{c.args.back()->span,
                       "WITH_SAME_OUTPUT of a constant (a breach of the seed's restrictions): what "
                       "HTP makes of a scalar given another tensor's output is not defined"};
  if (f == "WITH_MULTI_OUT")
    g_.nodes[id].outputs = int(ev_.integer(*c.args[0]));
  // WITH_SAME_ID and WITH_SPLIT_HISTORY carry bookkeeping only.
  return id;
}

// A rule flagged relaxed_precision_flag runs only when the graph allows
// relaxed precision (option relaxed_precision nonzero).
bool enabled(const Rule& r, const Graph& g) {
  if (r.flags.find("relaxed_precision_flag") == std::string::npos)
    return true;
  auto it = g.options.find("relaxed_precision");
  return it != g.options.end() && it->second != 0;
}

} // namespace

namespace {

// The consumers of each node, kept up to date across rewrites so that a
// rewrite redirects the uses of its root in time proportional to them
// rather than to the graph. Entries may be stale (a consumer that no longer
// reads the node); users are checked before they are changed.
using Users = std::vector<std::vector<int>>;

Users users_of(const Graph& g) {
  Users users(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int in : g.nodes[i].inputs)
      users[in].push_back(int(i));
  return users;
}

// rewrite_at, with the uses of the root found through \p users, which it
// keeps up to date. The nodes the replacement adds are those from the
// graph's old size on.
std::optional<int> rewrite(Graph& g, int node, const Rule& rule, Users& users) {
  std::optional<Match> m = match(g, node, *rule.match);
  if (!m)
    return std::nullopt;
  if (!Evaluator(g, *m).holds(*rule.constraint))
    return std::nullopt;
  const size_t first_fresh = g.nodes.size();
  Builder b(g, *m, node);
  int replacement = b.build(*rule.replacement);
  if (replacement == node)
    return node;
  // Uses of the root outside the replacement now use the replacement; the
  // replacement itself still reads the old node where it names "*".
  auto redirect = [&](int user) {
    bool changed = false;
    for (int& in : g.nodes[user].inputs)
      if (in == node) {
        in = replacement;
        changed = true;
      }
    return changed;
  };
  std::vector<int> old = std::move(users[node]);
  users[node].clear();
  users.resize(g.nodes.size());
  for (int u : old)
    if (size_t(u) >= first_fresh || !redirect(u))
      users[node].push_back(u);
    else
      users[replacement].push_back(u);
  for (size_t i = first_fresh; i < g.nodes.size(); ++i)
    for (int in : g.nodes[i].inputs)
      users[in].push_back(int(i));
  if (g.output == node)
    g.output = replacement;
  return replacement;
}

// The nodes a rewrite adds to the post-order, in post-order: those reachable
// from \p replacement that are fresh (from \p first_fresh on) or the old
// root (which the replacement may still read). Every other node the
// replacement reaches was the root's producer and so precedes it already.
std::vector<int> new_in_order(const Graph& g, int replacement, int root, size_t first_fresh) {
  std::vector<int> order;
  auto is_new = [&](int id) { return size_t(id) >= first_fresh || id == root; };
  if (!is_new(replacement))
    return order;
  std::vector<char> seen(g.nodes.size() - first_fresh + 1, 0);
  auto slot = [&](int id) -> char& { return seen[id == root ? 0 : id - first_fresh + 1]; };
  std::vector<std::pair<int, size_t>> stack{{replacement, 0}};
  slot(replacement) = 1;
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    if (next < g.nodes[id].inputs.size()) {
      int in = g.nodes[id].inputs[next++];
      if (is_new(in) && !slot(in)) {
        slot(in) = 1;
        stack.push_back({in, 0});
      }
      continue;
    }
    order.push_back(id);
    stack.pop_back();
  }
  return order;
}

} // namespace

std::optional<int> rewrite_at(Graph& g, int node, const Rule& rule) {
  Users users = users_of(g);
  return rewrite(g, node, rule, users);
}

// Each rewrite restarts the search from the first node in post-order, and
// the result must be as if it did. It need not look again at the nodes
// before the rewritten root: a rule's match and constraint read only a node
// and its producers, and a rewrite changes no node that precedes its root
// (it adds nodes and redirects the root's consumers, which follow it), so
// every node before the root fails again as it did. The new post-order is
// the old one with the root replaced by the new nodes (the DFS from the
// output reaches them exactly where it reached the root), so the search
// resumes there, and a rewrite costs time in proportion to what it touched
// rather than to the graph.
int64_t run_order(const Rule& rule) {
  return rule.pass.priority ? *rule.pass.priority : std::numeric_limits<int64_t>::max();
}

ApplyResult apply_rules(Graph g, const std::vector<const Rule*>& rules, size_t max_steps) {
  ApplyResult result;
  std::vector<const Rule*> order;
  for (const Rule* r : rules)
    if (enabled(*r, g))
      order.push_back(r);
  std::stable_sort(order.begin(), order.end(),
                   [](const Rule* a, const Rule* b) { return run_order(*a) < run_order(*b); });
  std::set<std::pair<const Rule*, std::string>> reported;
  for (size_t first = 0; first < order.size();) {
    size_t last = first;
    while (last < order.size() && run_order(*order[last]) == run_order(*order[first]))
      ++last;
    std::vector<int> nodes = g.live();
    Users users = users_of(g);
    for (size_t at = 0; at < nodes.size();) {
      int id = nodes[at];
      std::optional<int> rep;
      for (size_t r = first; r < last && !(rep && *rep != id); ++r) {
        const Rule* rule = order[r];
        try {
          size_t first_fresh = g.nodes.size();
          rep = rewrite(g, id, *rule, users);
          if (!rep || *rep == id)
            continue;
          result.steps.push_back({rule, g.nodes[id].name, g.nodes[*rep].name});
          std::vector<int> added = new_in_order(g, *rep, id, first_fresh);
          nodes.erase(nodes.begin() + std::ptrdiff_t(at));
          nodes.insert(nodes.begin() + std::ptrdiff_t(at), added.begin(), added.end());
        } catch (const NotEvaluable& why) {
          if (reported.insert({rule, g.nodes[id].name}).second)
            result.skipped.push_back({rule, g.nodes[id].name, why});
        }
      }
      if (!rep || *rep == id) {
        ++at;
        continue;
      }
      if (result.steps.size() >= max_steps)
        throw Error(ErrorKind::Limit, result.steps.back().rule->span,
                    "no fixed point after " + std::to_string(max_steps) + " rewrites in pass " +
                        order[first]->pass.text() + "; this rule made the last one");
    }
    first = last;
  }
  result.graph = g.compacted();
  return result;
}

} // namespace teval::rules
