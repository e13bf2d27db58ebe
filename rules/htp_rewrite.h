// Applying HTP optimization rules to graphs: building replacements, and
// running a rule set in pass order to a fixed point.
#pragma once

#include "parser/htp/htp_rules.h"
#include "rules/htp_eval.h"
#include "rules/htp_graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace teval::rules {

/// Applies \p rule at node \p node when its pattern matches there and its
/// constraint holds: builds the replacement and redirects every use of the
/// node to it. Returns the replacement's id (the node itself when the
/// replacement is the node), or nothing when the rule does not apply.
/// Throws NotEvaluable, or Error for faults while evaluating.
std::optional<int> rewrite_at(Graph& g, int node, const parser::htp::Rule& rule);

/// One rewrite made by apply_rules.
struct Step {
  const parser::htp::Rule* rule = nullptr;
  std::string node;        ///< the matched root, by name
  std::string replacement; ///< the node that replaced it
};

/// A rule that matched somewhere but could not be evaluated.
struct Skipped {
  const parser::htp::Rule* rule = nullptr;
  std::string node;
  NotEvaluable why;
};

struct ApplyResult {
  Graph graph;
  std::vector<Step> steps;
  std::vector<Skipped> skipped;
};

/// Where \p rule's priority group runs among apply_rules' groups: a rule
/// whose value is smaller runs, to its fixed point, before this one is
/// tried; rules of one value compete at each node. Unknown pass names run
/// after every known one.
int64_t run_order(const parser::htp::Rule& rule);

/// Applies \p rules (well-formed optimization rules) to \p g: in order of
/// priority (rules of one priority in the order given; unknown pass names
/// after every known one), each priority group to a fixed point, trying the
/// group's rules at every live node in topological order and starting over
/// after each rewrite. A rule that is not evaluable at a node is skipped
/// there (and reported once). Rules flagged relaxed_precision_flag run only
/// when the graph's option relaxed_precision is nonzero. Throws
/// Error(Limit) after \p max_steps rewrites without reaching a fixed point.
ApplyResult apply_rules(Graph g, const std::vector<const parser::htp::Rule*>& rules,
                        size_t max_steps = 10000);

} // namespace teval::rules
