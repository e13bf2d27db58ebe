// The census of the generators' reach (see census.h).
#include "verify/census.h"

#include "core/error.h"
#include "ops/decompose.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace teval::verify {

namespace {

using core::DType;
using core::Expr;
using core::Op;
using core::OpRule;

// The dtypes an operator of rule \p r takes as operands, as the notations'
// type rules allow them (bool arithmetic is done in int8).
bool takes(OpRule r, DType t) {
  switch (r) {
  case OpRule::Arith:
    return t != DType::Bool;
  case OpRule::Integer:
    return core::is_integer(t) && t != DType::Bool;
  case OpRule::Float:
  case OpRule::FloatToInt:
    return core::is_float(t);
  case OpRule::Compare:
  case OpRule::Logical:
    return true;
  }
  return false;
}

// Operators only elaboration and lowering make, which no program names:
// `same` (a bit-exact comparison of HTP rules) and exact division (Tile's
// fractional indices, counted as an index form).
bool internal(Op op) {
  return op == Op::Same || op == Op::ExactDiv;
}

const Op kOps[] = {
#define TEVAL_OP(e, spelling, arity, rule) Op::e,
#include "core/kernel_ops.def"
};

std::string op_construct(Op op, DType t) {
  return "operator: " + std::string(core::spelling(op)) + " on " + std::string(core::name(t));
}

bool contains_load(const Expr& e) {
  bool found = false;
  core::for_each_node(
      e, [&](const Expr& n) { found = found || std::holds_alternative<core::Load>(n->node); });
  return found;
}

// An index expression with a variable of negative coefficient: `-j + 3`,
// `c - i`, `k * -1`.
bool negative_coefficient(const Expr& e) {
  bool found = false;
  core::for_each_node(e, [&](const Expr& n) {
    const auto* a = std::get_if<core::Apply>(&n->node);
    if (!a)
      return;
    if (a->op == Op::Neg && !std::holds_alternative<core::Const>(a->args[0]->node))
      found = true;
    if (a->op == Op::Sub && !std::holds_alternative<core::Const>(a->args[1]->node))
      found = true;
    if (a->op == Op::Mul)
      for (const Expr& x : a->args)
        if (const auto* c = std::get_if<core::Const>(&x->node); c && c->value.i < 0)
          found = true;
  });
  return found;
}

} // namespace

const std::vector<std::string>& census_constructs() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> c;
    for (DType t : core::kAllDTypes)
      if (core::kernel_dtype(t))
        c.push_back("dtype: a tensor of " + std::string(core::name(t)));
    for (int r = 0; r <= 6; ++r)
      c.push_back("rank: a tensor of rank " + std::to_string(r));
    c.push_back("shape: a tensor with no element");
    c.push_back("shape: a tensor of one element and rank 1 or more");
    for (auto a : {core::Aggregation::Assign, core::Aggregation::Sum, core::Aggregation::Product,
                   core::Aggregation::Max, core::Aggregation::Min, core::Aggregation::All,
                   core::Aggregation::Any})
      c.push_back("aggregation: " + std::string(core::spelling(a)));
    c.push_back("statement: starts at its fill");
    c.push_back("statement: starts at its first value");
    c.push_back("statement: out-of-range reads are errors");
    c.push_back("statement: out-of-range points are skipped");
    c.push_back("statement: constraints");
    c.push_back("index: an empty range");
    c.push_back("index: a reduce variable");
    c.push_back("index: a negative coefficient");
    c.push_back("index: an exact division (fractional points skipped)");
    c.push_back("index: a gather (an index read from a tensor)");
    c.push_back("guard: a read evaluated only where a condition holds (.when, select)");
    c.push_back("flow: a temp");
    c.push_back("flow: a temp of rank 0");
    c.push_back("flow: a temp of rank 0 read by a later statement");
    c.push_back("flow: an output read by a later statement");
    c.push_back("flow: a scalar broadcast (a rank-0 tensor read at every point)");
    c.push_back("flow: a global reduction read by a later statement");
    for (DType t : core::kAllDTypes)
      if (core::kernel_dtype(t))
        c.push_back("cast: to " + std::string(core::name(t)));
    for (Op op : kOps)
      if (!internal(op))
        for (DType t : core::kAllDTypes)
          if (core::kernel_dtype(t) && takes(core::rule(op), t))
            c.push_back(op_construct(op, t));
    return c;
  }();
  return all;
}

std::vector<std::string> constructs_of(const core::Kernel& k) {
  std::set<std::string> seen;
  // The statement that writes each tensor first, and the last that reads it.
  std::vector<int> writer(k.tensors.size(), -1), last_reader(k.tensors.size(), -1);
  for (size_t s = 0; s < k.statements.size(); ++s) {
    const core::Statement& st = k.statements[s];
    auto reads = [&](const Expr& e) {
      core::for_each_node(e, [&](const Expr& n) {
        if (const auto* l = std::get_if<core::Load>(&n->node))
          last_reader[static_cast<size_t>(l->tensor)] = static_cast<int>(s);
      });
    };
    reads(st.value);
    for (const Expr& i : st.out_index)
      reads(i);
    if (writer[static_cast<size_t>(st.target)] < 0)
      writer[static_cast<size_t>(st.target)] = static_cast<int>(s);
  }
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    const core::TensorDecl& d = k.tensors[t];
    seen.insert("dtype: a tensor of " + std::string(core::name(d.dtype)));
    seen.insert("rank: a tensor of rank " + std::to_string(d.shape.size()));
    std::optional<int64_t> n = core::checked_numel(d.shape);
    if (n && *n == 0)
      seen.insert("shape: a tensor with no element");
    if (n && *n == 1 && !d.shape.empty())
      seen.insert("shape: a tensor of one element and rank 1 or more");
    bool read_later = writer[t] >= 0 && last_reader[t] > writer[t];
    if (d.role == core::TensorRole::Intermediate) {
      seen.insert("flow: a temp");
      if (d.shape.empty())
        seen.insert("flow: a temp of rank 0");
      if (d.shape.empty() && read_later)
        seen.insert("flow: a temp of rank 0 read by a later statement");
    }
    if (d.role == core::TensorRole::Output && read_later)
      seen.insert("flow: an output read by a later statement");
  }
  for (const core::Statement& st : k.statements) {
    seen.insert("aggregation: " + std::string(core::spelling(st.aggregation)));
    seen.insert(st.start == core::Start::FirstValue ? "statement: starts at its first value"
                                                    : "statement: starts at its fill");
    seen.insert(st.out_of_range == core::OutOfRange::Skip
                    ? "statement: out-of-range points are skipped"
                    : "statement: out-of-range reads are errors");
    if (!st.constraints.empty())
      seen.insert("statement: constraints");
    bool reduces = false;
    for (const core::IndexVar& v : st.vars) {
      if (v.begin >= v.end)
        seen.insert("index: an empty range");
      reduces = reduces || v.reduce;
    }
    if (reduces)
      seen.insert("index: a reduce variable");
    const auto target = static_cast<size_t>(st.target);
    if (reduces && k.tensors[target].shape.empty() && writer[target] >= 0 &&
        last_reader[target] > writer[target])
      seen.insert("flow: a global reduction read by a later statement");
    std::vector<Expr> roots = st.out_index;
    roots.push_back(st.value);
    for (const core::Constraint& c : st.constraints)
      roots.push_back(c.expr);
    for (const Expr& root : roots)
      core::for_each_node(root, [&](const Expr& n) {
        if (const auto* l = std::get_if<core::Load>(&n->node)) {
          if (k.tensors[static_cast<size_t>(l->tensor)].shape.empty() && !st.vars.empty())
            seen.insert("flow: a scalar broadcast (a rank-0 tensor read at every point)");
          for (const Expr& i : l->index) {
            if (contains_load(i))
              seen.insert("index: a gather (an index read from a tensor)");
            if (negative_coefficient(i))
              seen.insert("index: a negative coefficient");
          }
        } else if (const auto* a = std::get_if<core::Apply>(&n->node)) {
          if (a->op == Op::ExactDiv)
            seen.insert("index: an exact division (fractional points skipped)");
          if (!internal(a->op))
            seen.insert(op_construct(a->op, a->args[0]->dtype));
        } else if (std::holds_alternative<core::Cast>(n->node)) {
          seen.insert("cast: to " + std::string(core::name(n->dtype)));
        } else if (const auto* s = std::get_if<core::Select>(&n->node)) {
          if (contains_load(s->then) || contains_load(s->otherwise))
            seen.insert("guard: a read evaluated only where a condition holds (.when, select)");
        }
      });
    for (const Expr& i : st.out_index)
      if (negative_coefficient(i))
        seen.insert("index: a negative coefficient");
  }
  return {seen.begin(), seen.end()};
}

const std::vector<std::string>& mlir_census_constructs() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> c;
    // Every op with a decomposition: the generator draws ops to hold
    // their native references to their decompositions; the others (control
    // flow, views of bits) only the interpreter runs, and they are tested
    // against numpy (python/tests/test_stablehlo_control_flow.py,
    // test_stablehlo_bitcast.py).
#define TEVAL_GRAPH_OP(e, name)                                                                    \
  if (ops::has_decomposition(core::GraphOp::e))                                                    \
    c.push_back(std::string("op: ") + name);
#include "core/graph_ops.def"
    for (const char* a : {"byteir.gelu approximate = erf",
                          "byteir.gelu approximate = tanh",
                          "byteir.layer_norm eps_outside_sqrt = false",
                          "byteir.layer_norm eps_outside_sqrt = true",
                          "byteir.layer_norm with its mean and variance",
                          "byteir.l2_norm eps_outside_sqrt = false",
                          "byteir.l2_norm eps_outside_sqrt = true",
                          "byteir.arg_max keep_dims = false",
                          "byteir.arg_max keep_dims = true",
                          "byteir.arg_max select_last_index = false",
                          "byteir.arg_max select_last_index = true",
                          "byteir.arg_max with its values",
                          "byteir.arg_min keep_dims = false",
                          "byteir.arg_min keep_dims = true",
                          "byteir.arg_min select_last_index = false",
                          "byteir.arg_min select_last_index = true",
                          "byteir.arg_min with its values",
                          "byteir.top_k sorted = false",
                          "byteir.top_k sorted = true",
                          "byteir.quantize per tensor",
                          "byteir.quantize per axis",
                          "byteir.dequantize per tensor",
                          "byteir.dequantize per axis",
                          "byteir.resize mode = nearest",
                          "byteir.resize mode = linear",
                          "byteir.resize by sizes",
                          "byteir.resize by scales",
                          "byteir.resize coordinate_transformation_mode = asymmetric",
                          "byteir.resize coordinate_transformation_mode = half_pixel",
                          "byteir.resize coordinate_transformation_mode = pytorch_half_pixel",
                          "byteir.resize coordinate_transformation_mode = align_corners",
                          "compare direction = EQ",
                          "compare direction = NE",
                          "compare direction = GE",
                          "compare direction = GT",
                          "compare direction = LE",
                          "compare direction = LT",
                          "compare compare_type = FLOAT",
                          "compare compare_type = SIGNED",
                          "compare compare_type = UNSIGNED",
                          "dot_general with batching dimensions",
                          "dot_general with several contracting dimensions",
                          "dot_general with a result type of its own",
                          "dot with a result type of its own",
                          "gather with collapsed dimensions",
                          "gather with batching dimensions",
                          "gather with an implicit index vector",
                          "gather with the index vector inside",
                          "convolution with 2 spatial dimensions",
                          "convolution with strides",
                          "convolution with negative padding",
                          "convolution with lhs dilation",
                          "convolution with rhs dilation",
                          "convolution with window reversal",
                          "convolution with feature groups",
                          "convolution with batch groups",
                          "convolution with a result type of its own",
                          "reduce body = add",
                          "reduce body = multiply",
                          "reduce body = maximum",
                          "reduce body = minimum",
                          "reduce body = and",
                          "reduce body = or",
                          "reduce_window body = add",
                          "reduce_window body = multiply",
                          "reduce_window body = maximum",
                          "reduce_window body = minimum",
                          "reduce_window body = and",
                          "reduce_window body = or",
                          "reduce_window with base dilation",
                          "reduce_window with window dilation",
                          "reduce_window with negative padding",
                          "triangular_solve left_side = true",
                          "triangular_solve left_side = false",
                          "triangular_solve lower = true",
                          "triangular_solve lower = false",
                          "triangular_solve unit_diagonal = true",
                          "triangular_solve unit_diagonal = false",
                          "triangular_solve transpose_a = NO_TRANSPOSE",
                          "triangular_solve transpose_a = TRANSPOSE",
                          "triangular_solve transpose_a = ADJOINT",
                          "and of integers",
                          "or of integers",
                          "xor of integers"})
      c.push_back(std::string("attribute: ") + a);
    // The generated functions are checked against their decompositions:
    // values of dtypes kernels lack (uint64) are left to the tests.
    for (DType t : core::kAllDTypes)
      if (core::kernel_dtype(t))
        c.push_back("value: of " + std::string(core::name(t)));
    c.push_back("value: a scalar (rank 0)");
    c.push_back("value: with no element");
    return c;
  }();
  return all;
}

std::vector<std::string> constructs_of(const core::Graph& g) {
  std::set<std::string> seen;
  for (const core::ValueType& v : g.values) {
    seen.insert("value: of " + std::string(core::name(v.dtype)));
    if (v.shape.empty())
      seen.insert("value: a scalar (rank 0)");
    if (core::checked_numel(v.shape).value_or(1) == 0)
      seen.insert("value: with no element");
  }
  for (const core::GraphNode& n : g.nodes) {
    std::string op(core::graph_op_name(n.op));
    seen.insert("op: " + op);
    auto attribute = [&](const std::string& what) { seen.insert("attribute: " + op + " " + what); };
    for (const auto& [name, value] : n.attrs) {
      if (const bool* b = std::get_if<bool>(&value))
        attribute(name + " = " + (*b ? "true" : "false"));
      else if (const std::string* text = std::get_if<std::string>(&value))
        attribute(name + " = " + *text);
    }
    switch (n.op) {
    case core::GraphOp::LayerNorm:
      if (n.results.size() == 3)
        attribute("with its mean and variance");
      break;
    case core::GraphOp::ArgMax:
    case core::GraphOp::ArgMin:
      if (n.results.size() == 2)
        attribute("with its values");
      break;
    case core::GraphOp::Quantize:
    case core::GraphOp::Dequantize:
      attribute(n.attrs.count("axis") ? "per axis" : "per tensor");
      break;
    case core::GraphOp::DotGeneral:
    case core::GraphOp::Dot:
      if (!n.ints_attr("lhs_batch").empty())
        attribute("with batching dimensions");
      if (n.ints_attr("lhs_contract").size() > 1)
        attribute("with several contracting dimensions");
      if (g.values[static_cast<size_t>(n.results[0])].dtype !=
          g.values[static_cast<size_t>(n.operands[0])].dtype)
        attribute("with a result type of its own");
      break;
    case core::GraphOp::ReduceWindow: {
      auto above_one = [&](const char* name) {
        const std::vector<int64_t>& v = n.ints_attr(name);
        return std::any_of(v.begin(), v.end(), [](int64_t x) { return x > 1; });
      };
      const std::vector<int64_t>& low = n.ints_attr("pad_low");
      const std::vector<int64_t>& high = n.ints_attr("pad_high");
      if (above_one("base_dilations"))
        attribute("with base dilation");
      if (above_one("window_dilations"))
        attribute("with window dilation");
      if (std::any_of(low.begin(), low.end(), [](int64_t p) { return p < 0; }) ||
          std::any_of(high.begin(), high.end(), [](int64_t p) { return p < 0; }))
        attribute("with negative padding");
      break;
    }
    case core::GraphOp::Gather: {
      const size_t index_rank = g.values[static_cast<size_t>(n.operands[1])].shape.size();
      const int64_t vector_dim = n.int_attr("index_vector_dim");
      if (!n.ints_attr("collapsed_slice_dims").empty())
        attribute("with collapsed dimensions");
      if (!n.ints_attr("operand_batching_dims").empty())
        attribute("with batching dimensions");
      if (vector_dim == static_cast<int64_t>(index_rank))
        attribute("with an implicit index vector");
      else if (vector_dim + 1 < static_cast<int64_t>(index_rank))
        attribute("with the index vector inside");
      break;
    }
    case core::GraphOp::Convolution: {
      auto any = [&](const char* name, int64_t than) {
        const std::vector<int64_t>& v = n.ints_attr(name);
        return std::any_of(v.begin(), v.end(), [&](int64_t x) { return x > than; });
      };
      const std::vector<int64_t>& low = n.ints_attr("pad_low");
      const std::vector<int64_t>& high = n.ints_attr("pad_high");
      if (n.ints_attr("input_spatial").size() == 2)
        attribute("with 2 spatial dimensions");
      if (any("strides", 1))
        attribute("with strides");
      if (std::any_of(low.begin(), low.end(), [](int64_t p) { return p < 0; }) ||
          std::any_of(high.begin(), high.end(), [](int64_t p) { return p < 0; }))
        attribute("with negative padding");
      if (any("lhs_dilation", 1))
        attribute("with lhs dilation");
      if (any("rhs_dilation", 1))
        attribute("with rhs dilation");
      if (any("reversal", 0))
        attribute("with window reversal");
      if (n.int_attr("feature_groups") > 1)
        attribute("with feature groups");
      if (n.int_attr("batch_groups") > 1)
        attribute("with batch groups");
      if (g.values[static_cast<size_t>(n.results[0])].dtype !=
          g.values[static_cast<size_t>(n.operands[0])].dtype)
        attribute("with a result type of its own");
      break;
    }
    case core::GraphOp::And:
    case core::GraphOp::Or:
    case core::GraphOp::Xor:
      if (g.values[static_cast<size_t>(n.operands[0])].dtype != core::DType::Bool)
        attribute("of integers");
      break;
    case core::GraphOp::Resize:
      attribute(core::is_float(g.values[static_cast<size_t>(n.operands.at(1))].dtype) ? "by scales"
                                                                                      : "by sizes");
      break;
    default:
      break;
    }
  }
  return {seen.begin(), seen.end()};
}

Census take_census(const CaseSpace& space, uint64_t cases) {
  Census c;
  bool mlir = space.lang == "mlir";
  for (const std::string& name : mlir ? mlir_census_constructs() : census_constructs())
    c.counts[name] = 0;
  for (uint64_t i = 0; i < cases; ++i) {
    Case one = make_case(space, i);
    Elaborated e;
    try {
      e = elaborate_program(one.program);
    } catch (const core::Error&) {
      ++c.unreadable;
      continue;
    }
    ++c.kernels;
    for (const std::string& name : mlir ? constructs_of(*e.graph) : constructs_of(e.kernel))
      ++c.counts[name];
  }
  return c;
}

std::string census_table(const Census& c) {
  std::vector<std::pair<std::string, uint64_t>> rows(c.counts.begin(), c.counts.end());
  auto rank = [&](const std::string& name) {
    for (const std::vector<std::string>* order : {&census_constructs(), &mlir_census_constructs()})
      if (auto it = std::find(order->begin(), order->end(), name); it != order->end())
        return it - order->begin();
    return std::ptrdiff_t{0};
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    if ((a.second == 0) != (b.second == 0))
      return a.second == 0;
    return rank(a.first) < rank(b.first);
  });
  std::string out = "| group | construct | kernels | share |\n|---|---|---|---|\n";
  for (const auto& [name, count] : rows) {
    size_t colon = name.find(": ");
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%",
                  c.kernels ? 100.0 * static_cast<double>(count) / static_cast<double>(c.kernels)
                            : 0.0);
    out += "| " + name.substr(0, colon) + " | " + name.substr(colon + 2) + " | " +
           (count == 0 ? std::string("**never**") : std::to_string(count)) + " | " + share + " |\n";
  }
  return out;
}

} // namespace teval::verify
