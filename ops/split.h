// An op graph cut where its ops without an einstein_v2 decomposition stand
// (control flow, sort, values of types kernels lack, ...): the runs of
// nodes between them become segments, each decomposed to its own
// einstein_v2 program, which IREval and the JIT run, while the native
// references evaluate the rest. Each segment's statements are its ops'
// decompositions, so the function's values are the same bits as the
// native references give on every engine (docs/SEMANTICS.md, "Engines
// on graphs").
#pragma once

#include "core/graph.h"
#include "core/tensor.h"
#include "ops/decompose.h"

#include <functional>
#include <vector>

namespace teval::ops {

/// A run of consecutive top-level nodes of a graph with decompositions,
/// as one einstein_v2 program: its inputs (arg0, arg1, ...) are the values
/// defined before it that its nodes read, its outputs (result0, ...) the
/// values it defines that are read after it or returned. The constants it
/// reads are its own (copied in), never inputs.
struct Segment {
  std::vector<size_t> nodes; ///< indices into Graph::nodes, in order
  std::vector<int> inputs;   ///< value ids of the graph
  std::vector<int> outputs;  ///< value ids of the graph
  Decomposition decomposition;
};

/// The order of evaluation: each top-level node the native references
/// evaluate (every constant, first, and each node without a decomposition
/// where it stands), and each segment where its nodes stand.
struct Split {
  struct Step {
    bool segment = false;
    size_t index = 0; ///< into Split::segments, or into Graph::nodes
  };
  std::vector<Segment> segments;
  std::vector<Step> steps;
};

/// \p g cut at its nodes without a decomposition. A node whose
/// decomposition passes the Kernel IR's limit alone is evaluated natively;
/// a run whose decomposition passes it is cut in two.
Split split(const core::Graph& g);

/// Computes segment \p index of a Split on its inputs (in Segment::inputs
/// order); returns its outputs (in Segment::outputs order).
using SegmentRun =
    std::function<std::vector<core::Tensor>(size_t index, const std::vector<core::Tensor>&)>;

/// Evaluates \p g as ops::evaluate does, each segment of \p s by \p run
/// and the other nodes by their native references.
std::vector<core::Tensor> evaluate(const core::Graph& g, const std::vector<core::Tensor>& inputs,
                                   const Split& s, const SegmentRun& run);

} // namespace teval::ops
