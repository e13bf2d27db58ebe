// The op graph: names, attribute access and the text form.
#include "core/graph.h"

#include "core/error.h"
#include "core/format.h"

#include <algorithm>

namespace teval::core {

namespace {

constexpr std::string_view kGraphOpNames[] = {
#define TEVAL_GRAPH_OP(e, name) name,
#include "core/graph_ops.def"
};

template <class T> const T& attr(const GraphNode& n, const std::string& name) {
  auto it = n.attrs.find(name);
  TEVAL_ASSERT(it != n.attrs.end() && std::holds_alternative<T>(it->second),
               "elaboration left attribute " + name + " of " + std::string(graph_op_name(n.op)) +
                   " undecoded");
  return std::get<T>(it->second);
}

} // namespace

std::string mlir_element(DType t) {
  switch (t) {
  case DType::Bool:
    return "i1";
  case DType::Float16:
    return "f16";
  case DType::BFloat16:
    return "bf16";
  case DType::Float32:
    return "f32";
  case DType::Float64:
    return "f64";
  case DType::Float8E4M3FN:
    return "f8E4M3FN";
  case DType::Float8E5M2:
    return "f8E5M2";
  case DType::Float8E4M3:
    return "f8E4M3";
  case DType::Float8E3M4:
    return "f8E3M4";
  case DType::Float8E4M3FNUZ:
    return "f8E4M3FNUZ";
  case DType::Float8E5M2FNUZ:
    return "f8E5M2FNUZ";
  case DType::Float8E4M3B11FNUZ:
    return "f8E4M3B11FNUZ";
  case DType::Float6E2M3FN:
    return "f6E2M3FN";
  case DType::Float6E3M2FN:
    return "f6E3M2FN";
  case DType::Float4E2M1FN:
    return "f4E2M1FN";
  case DType::Float8E8M0FNU:
    return "f8E8M0FNU";
  case DType::Complex64:
    return "complex<f32>";
  case DType::Complex128:
    return "complex<f64>";
  default:
    return (is_unsigned(t) ? "ui" : "i") + std::to_string(bit_width(t));
  }
}

namespace {

std::string attr_text(const GraphAttr& a) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<T, double>) {
          return format_scalar(Scalar::of_float(DType::Float64, v));
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return "\"" + v + "\"";
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          std::string s = "[";
          for (size_t i = 0; i < v.size(); ++i)
            s += (i ? ", " : "") + std::to_string(v[i]);
          return s + "]";
        } else {
          std::string s = "dense<";
          for (int64_t i = 0; i < v.numel() && i < 8; ++i)
            s += (i ? ", " : "") + format_element(v, i);
          return s + (v.numel() > 8 ? ", ...>" : ">");
        }
      },
      a);
}

} // namespace

std::string_view graph_op_name(GraphOp op) {
  return kGraphOpNames[static_cast<size_t>(op)];
}

std::string to_mlir(const ValueType& t) {
  if (t.token)
    return "!stablehlo.token";
  std::string s = "tensor<";
  for (int64_t d : t.shape)
    s += std::to_string(d) + "x";
  return s + (t.quant ? t.quant->text : mlir_element(t.dtype)) + ">";
}

int64_t GraphNode::int_attr(const std::string& name) const {
  return attr<int64_t>(*this, name);
}
double GraphNode::float_attr(const std::string& name) const {
  return attr<double>(*this, name);
}
bool GraphNode::bool_attr(const std::string& name) const {
  return attr<bool>(*this, name);
}
const std::string& GraphNode::string_attr(const std::string& name) const {
  return attr<std::string>(*this, name);
}
const std::vector<int64_t>& GraphNode::ints_attr(const std::string& name) const {
  return attr<std::vector<int64_t>>(*this, name);
}
const Tensor& GraphNode::tensor_attr(const std::string& name) const {
  return attr<Tensor>(*this, name);
}

namespace {

void visit(const std::vector<GraphNode>& nodes, const std::function<void(const GraphNode&)>& f) {
  for (const GraphNode& n : nodes) {
    f(n);
    for (const GraphRegion& r : n.regions)
      visit(r.nodes, f);
  }
}

} // namespace

void for_each_node(const Graph& g, const std::function<void(const GraphNode&)>& f) {
  visit(g.nodes, f);
}

const Tensor* constant_value(const Graph& g, int v) {
  const Tensor* found = nullptr;
  for_each_node(g, [&](const GraphNode& n) {
    if (n.op == GraphOp::Constant && n.results[0] == v)
      found = &n.tensor_attr("value");
  });
  return found;
}

std::vector<std::string> value_path_names(const Graph& g) {
  std::vector<std::string> best(g.values.size());
  auto rank = [](const std::string& n) {
    return std::pair(std::count(n.begin(), n.end(), '/'), n.size());
  };
  for (const auto& [name, v] : g.value_paths) {
    std::string& b = best[static_cast<size_t>(v)];
    if (b.empty() || rank(name) < rank(b))
      b = name;
  }
  return best;
}

int find_value(const Graph& g, std::string_view name) {
  std::string path;
  for (size_t begin = 0; begin <= name.size();) {
    size_t end = std::min(name.find('/', begin), name.size());
    std::string_view part = name.substr(begin, end - begin);
    if (!path.empty())
      path += '/';
    if (!part.starts_with('%') && !part.starts_with('@'))
      path += '%';
    path += part;
    begin = end + 1;
  }
  auto it = g.value_paths.find(path);
  return it == g.value_paths.end() ? -1 : it->second;
}

int give_value(Graph& g, const std::string& name, const std::string& where,
               const std::string& argument_hint) {
  int v = find_value(g, name);
  if (v < 0)
    throw Error(ErrorKind::Name, where,
                "the function has no value `" + name +
                    "` (its values are named as teval run --dump-values names them)");
  if (std::count(g.inputs.begin(), g.inputs.end(), v))
    throw Error(ErrorKind::Name, where,
                "`" + name + "` is an argument of the function" + argument_hint);
  auto node = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const GraphNode& n) {
    return std::count(n.results.begin(), n.results.end(), v);
  });
  if (node == g.nodes.end())
    throw Error(ErrorKind::Unsupported, where,
                "`" + name +
                    "` is computed inside a region (of if, while, ...); "
                    "teval takes the values of the function's own body");
  const int unread =
      g.add_value(g.values[static_cast<size_t>(v)], g.value_names[static_cast<size_t>(v)]);
  *std::find(node->results.begin(), node->results.end(), v) = unread;
  g.inputs.push_back(v);
  g.input_spans.push_back(node->span);
  return v;
}

std::string graph_input_name(size_t i) {
  return "arg" + std::to_string(i);
}

std::string graph_output_name(size_t i) {
  return "result" + std::to_string(i);
}

std::string to_string(const Graph& g) {
  auto value = [&](int v) {
    return g.value_names[static_cast<size_t>(v)] + ":" +
           std::string(name(g.values[static_cast<size_t>(v)].dtype)) +
           to_string(g.values[static_cast<size_t>(v)].shape);
  };
  std::string out;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    out += "input " + graph_input_name(i) + " " + value(g.inputs[i]) + "\n";
  std::function<void(const std::vector<GraphNode>&, const std::string&)> nodes;
  nodes = [&](const std::vector<GraphNode>& list, const std::string& indent) {
    for (const GraphNode& n : list) {
      out += indent;
      for (size_t i = 0; i < n.results.size(); ++i)
        out += (i ? ", " : "") + value(n.results[i]);
      out += " = " + std::string(graph_op_name(n.op)) + "(";
      for (size_t i = 0; i < n.operands.size(); ++i)
        out += (i ? ", " : "") + g.value_names[static_cast<size_t>(n.operands[i])];
      out += ")";
      if (!n.attrs.empty()) {
        out += " {";
        bool first = true;
        for (const auto& [k, v] : n.attrs) {
          out += (first ? "" : ", ") + k + " = " + attr_text(v);
          first = false;
        }
        out += "}";
      }
      out += "\n";
      for (size_t r = 0; r < n.regions.size(); ++r) {
        const GraphRegion& region = n.regions[r];
        out += indent + "  region " + std::to_string(r) + "(";
        for (size_t i = 0; i < region.params.size(); ++i)
          out += (i ? ", " : "") + value(region.params[i]);
        out += "):\n";
        nodes(region.nodes, indent + "    ");
        out += indent + "    return";
        for (size_t i = 0; i < region.results.size(); ++i)
          out += (i ? ", " : " ") + g.value_names[static_cast<size_t>(region.results[i])];
        out += "\n";
      }
    }
  };
  nodes(g.nodes, "");
  for (size_t i = 0; i < g.outputs.size(); ++i)
    out += "output " + graph_output_name(i) + " " +
           g.value_names[static_cast<size_t>(g.outputs[i])] + "\n";
  return out;
}

} // namespace teval::core
