// An op graph cut into segments with decompositions and nodes the native
// references evaluate (see split.h).
#include "ops/split.h"
#include "ops/native_evaluator.h"

#include "core/error.h"

#include <algorithm>
#include <map>

namespace teval::ops {

namespace {

using core::Graph;
using core::GraphNode;
using core::GraphOp;

// Every value \p n reads: its operands, and what the nodes of its regions
// read and return (a region sees the values defined before its node).
void reads(const GraphNode& n, std::vector<int>& out) {
  out.insert(out.end(), n.operands.begin(), n.operands.end());
  for (const core::GraphRegion& r : n.regions) {
    for (const GraphNode& inner : r.nodes)
      reads(inner, out);
    out.insert(out.end(), r.results.begin(), r.results.end());
  }
}

class Splitter {
public:
  explicit Splitter(const Graph& g)
      : g_(g), splat_(g.values.size(), -1), spans_(g.values.size()),
        last_read_(g.values.size(), -1) {
    for (size_t i = 0; i < g.inputs.size(); ++i)
      spans_[static_cast<size_t>(g.inputs[i])] = g.input_spans[i];
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const GraphNode& n = g.nodes[i];
      for (int r : n.results)
        spans_[static_cast<size_t>(r)] = n.span;
      if (n.op == GraphOp::Constant && splat(n))
        splat_[static_cast<size_t>(n.results[0])] = static_cast<int64_t>(i);
      std::vector<int> read;
      reads(n, read);
      for (int v : read)
        last_read_[static_cast<size_t>(v)] = static_cast<int64_t>(i);
    }
    for (int v : g.outputs)
      last_read_[static_cast<size_t>(v)] = static_cast<int64_t>(g.nodes.size());
  }

  Split run() {
    Split s;
    // Constants first: they read nothing, and segments and native nodes
    // alike read them.
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      if (g_.nodes[i].op == GraphOp::Constant)
        s.steps.push_back({false, i});
    std::vector<size_t> run;
    auto close = [&] {
      if (!run.empty())
        add(s, run);
      run.clear();
    };
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (g_.nodes[i].op == GraphOp::Constant)
        continue;
      if (decomposable(i)) {
        run.push_back(i);
        continue;
      }
      close();
      s.steps.push_back({false, i});
    }
    close();
    return s;
  }

private:
  // A splat constant: the decomposition spells it as one literal, so a
  // segment reading it copies it in.
  static bool splat(const GraphNode& n) {
    const core::Tensor& t = n.tensor_attr("value");
    for (int64_t i = 1; i < t.numel(); ++i)
      if (!core::identical(t.get(i), t.get(0)))
        return false;
    return true;
  }

  // The graph of \p nodes of the graph (none with regions) with \p inputs
  // and \p outputs, its values renumbered.
  Graph subgraph(const std::vector<size_t>& nodes, const std::vector<int>& inputs,
                 const std::vector<int>& outputs) const {
    Graph s;
    std::map<int, int> id;
    auto map = [&](int v) {
      auto [it, added] = id.try_emplace(v, 0);
      if (added)
        it->second =
            s.add_value(g_.values[static_cast<size_t>(v)], g_.value_names[static_cast<size_t>(v)]);
      return it->second;
    };
    for (int v : inputs) {
      s.inputs.push_back(map(v));
      s.input_spans.push_back(spans_[static_cast<size_t>(v)]);
    }
    for (size_t i : nodes) {
      GraphNode n = g_.nodes[i];
      for (int& v : n.operands)
        v = map(v);
      for (int& v : n.results)
        v = map(v);
      s.nodes.push_back(std::move(n));
    }
    for (int v : outputs) {
      s.outputs.push_back(map(v));
      s.output_spans.push_back(spans_[static_cast<size_t>(v)]);
    }
    return s;
  }

  // The segment of \p nodes: its inputs and outputs, and its
  // decomposition (cut in two where it passes the Kernel IR's limit).
  void add(Split& s, const std::vector<size_t>& nodes) {
    Segment segment;
    segment.nodes = nodes;
    std::vector<size_t> with_constants;
    std::vector<bool> own(g_.values.size(), false);
    for (size_t i : nodes)
      for (int r : g_.nodes[i].results)
        own[static_cast<size_t>(r)] = true;
    for (size_t i : nodes)
      for (int v : g_.nodes[i].operands) {
        const size_t u = static_cast<size_t>(v);
        if (own[u])
          continue;
        own[u] = true; // read once
        if (splat_[u] >= 0)
          with_constants.push_back(static_cast<size_t>(splat_[u]));
        else
          segment.inputs.push_back(v);
      }
    with_constants.insert(with_constants.end(), nodes.begin(), nodes.end());
    const int64_t last = static_cast<int64_t>(nodes.back());
    for (size_t i : nodes)
      for (int r : g_.nodes[i].results)
        if (last_read_[static_cast<size_t>(r)] > last)
          segment.outputs.push_back(r);
    // Nothing read after it: its last node's results, so that what its
    // ops report (a division by zero) is reported as natively.
    if (segment.outputs.empty())
      segment.outputs = g_.nodes[nodes.back()].results;
    try {
      segment.decomposition = decompose(subgraph(with_constants, segment.inputs, segment.outputs));
    } catch (const core::Error& e) {
      if (e.kind() != core::ErrorKind::Limit || nodes.size() < 2)
        throw;
      const auto half = nodes.begin() + static_cast<std::ptrdiff_t>(nodes.size() / 2);
      add(s, std::vector<size_t>(nodes.begin(), half));
      add(s, std::vector<size_t>(half, nodes.end()));
      return;
    }
    s.steps.push_back({true, s.segments.size()});
    s.segments.push_back(std::move(segment));
  }

  // Node \p i decomposes on its own: an op with a decomposition, of the
  // element types kernels have, within the Kernel IR's limit.
  bool decomposable(size_t i) const {
    const GraphNode& n = g_.nodes[i];
    if (!n.regions.empty() || !has_decomposition(n.op))
      return false;
    std::vector<size_t> nodes;
    std::vector<int> inputs;
    for (int v : n.operands) {
      const size_t u = static_cast<size_t>(v);
      if (splat_[u] >= 0) {
        if (!std::count(nodes.begin(), nodes.end(), static_cast<size_t>(splat_[u])))
          nodes.push_back(static_cast<size_t>(splat_[u]));
      } else if (!std::count(inputs.begin(), inputs.end(), v)) {
        inputs.push_back(v);
      }
    }
    nodes.push_back(i);
    try {
      decompose(subgraph(nodes, inputs, n.results));
      return true;
    } catch (const core::Error& e) {
      if (e.kind() != core::ErrorKind::Unsupported && e.kind() != core::ErrorKind::Limit)
        throw;
      return false;
    }
  }

  const Graph& g_;
  std::vector<int64_t> splat_;     // of each value: the splat constant node defining it, or -1
  std::vector<core::Span> spans_;  // of each value: where it is defined
  std::vector<int64_t> last_read_; // of each value: the last top-level node reading it
                                   // (nodes.size(): returned), or -1
};

} // namespace

Split split(const Graph& g) {
  return Splitter(g).run();
}

std::vector<core::Tensor> evaluate(const Graph& g, const std::vector<core::Tensor>& inputs,
                                   const Split& s, const SegmentRun& run) {
  return detail::Evaluator(g).run(inputs, &s, &run);
}

} // namespace teval::ops
