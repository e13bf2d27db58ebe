// apply_rules against the plain definition it must agree with: restart the
// search from the first node in post-order after every rewrite. The
// definition is written out here as a loop over rewrite_at and live(), and
// both run on random graphs and rule sets.
#include "core/error.h"
#include "parser/htp/htp_rules.h"
#include "rules/htp_rewrite.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

namespace teval::rules {
namespace {

using parser::htp::Rule;
using parser::htp::RuleFile;

// The definition: every rule of one pass, tried at every live node in
// post-order, starting over after each rewrite, until none applies.
ApplyResult by_definition(Graph g, const std::vector<const Rule*>& rules, size_t max_steps) {
  ApplyResult result;
  for (bool changed = true; changed;) {
    changed = false;
    for (int id : g.live()) {
      for (const Rule* rule : rules) {
        std::string name = g.nodes[id].name;
        std::optional<int> rep = rewrite_at(g, id, *rule);
        if (!rep || *rep == id)
          continue;
        result.steps.push_back({rule, name, g.nodes[*rep].name});
        changed = true;
        break;
      }
      if (changed)
        break;
    }
    if (changed && result.steps.size() >= max_steps)
      throw core::Error(core::ErrorKind::Limit, result.steps.back().rule->span, "no fixed point");
  }
  result.graph = g.compacted();
  return result;
}

// What a run came to: the rewrites and the graph, or the limit.
std::string outcome(const std::function<ApplyResult()>& run) {
  try {
    ApplyResult r = run();
    std::string out;
    for (const Step& s : r.steps)
      out += std::to_string(s.rule->span.begin) + ":" + s.node + "->" + s.replacement + "\n";
    return out + to_text(r.graph);
  } catch (const core::Error& e) {
    return "limit at " + std::to_string(e.diagnostic().span.begin);
  }
}

// A random DAG of unary and binary ops A, B, C and D over two inputs; the
// output is the last node.
std::string random_graph(std::mt19937& rng, int ops) {
  std::string text = "input x0: float32[1, 1, 1, 4]\ninput x1: float32[1, 1, 1, 4]\n";
  std::vector<std::string> names = {"x0", "x1"};
  const char* kinds[] = {"A", "B", "C", "D"};
  for (int i = 0; i < ops; ++i) {
    std::string name = "n" + std::to_string(i);
    // Mostly the latest nodes, so that chains form.
    auto pick = [&] {
      std::uniform_int_distribution<size_t> recent(names.size() > 3 ? names.size() - 3 : 0,
                                                   names.size() - 1);
      std::uniform_int_distribution<size_t> any(0, names.size() - 1);
      return names[rng() % 4 ? recent(rng) : any(rng)];
    };
    std::string inputs = pick();
    if (rng() % 3 == 0)
      inputs += ", " + pick();
    text += name + " = " + kinds[rng() % 4] + "(" + inputs + "): float32[1, 1, 1, 4]\n";
    names.push_back(name);
  }
  return text + "output " + names.back() + "\n";
}

// Rules of one pass that rewrite the ops above into each other: removing
// nodes, fusing pairs, reading the old root ("*"), and (D) never reaching
// a fixed point.
const char* const kRules[] = {
    R"(DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", Op("B", "x")), OK, Op("C", "x")))",
    R"(DEF_PACKAGE_OPTIMIZATION(EARLY, Op("B", "x"), OK, "x"))",
    R"(DEF_PACKAGE_OPTIMIZATION(EARLY, Op("C", "x", "y"), OK, Op("A", Op("B", "y"))))",
    R"(DEF_PACKAGE_OPTIMIZATION(EARLY, Op("C", Op("C", "x")), OK, Op("A", "*", "x")))",
    R"(DEF_PACKAGE_OPTIMIZATION(EARLY, Op("D", "x", "y"), OK, Op("D", "y", "x")))",
    R"(DEF_PACKAGE_OPTIMIZATION(EARLY, Op("A", "x", Op("A", "y")), OK, Op("B", "y")))",
};

TEST(HtpApply, AgreesWithRestartingAfterEveryRewrite) {
  std::mt19937 rng(20261124);
  int limited = 0, rewritten = 0;
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (const char* r : kRules)
      if (rng() % 2)
        text += std::string(r) + "\n";
    if (text.empty())
      text = kRules[0];
    RuleFile file = parser::htp::read_rules(core::SourceFile::make("r.cpp", text));
    ASSERT_FALSE(file.malformed()) << text;
    std::vector<const Rule*> rules;
    for (const Rule& r : file.rules)
      rules.push_back(&r);
    std::string graph_text = random_graph(rng, 1 + int(rng() % 40));
    auto graph = [&] { return read_graph(*core::SourceFile::make("g.graph", graph_text)); };
    std::string want = outcome([&] { return by_definition(graph(), rules, 200); });
    std::string got = outcome([&] { return apply_rules(graph(), rules, 200); });
    ASSERT_EQ(got, want) << text << "\n" << graph_text;
    limited += want.starts_with("limit");
    rewritten += !want.starts_with("limit") && want.find("->") != std::string::npos;
  }
  // The draw reaches both endings often.
  EXPECT_GT(limited, 20);
  EXPECT_GT(rewritten, 100);
}

TEST(HtpApply, ALongChainReachesTheLimitAfterOnlyLocalWork) {
  // 10^5 nodes, each rewrite at the front of the chain and never a fixed
  // point: every step must touch a few nodes, not the graph (this ran for
  // minutes when each rewrite walked the whole graph).
  std::string text = "input x: float32[1, 1, 1, 4]\ne0 = Exp(x): float32[1, 1, 1, 4]\n";
  for (int i = 1; i < 100000; ++i)
    text +=
        "e" + std::to_string(i) + " = Exp(e" + std::to_string(i - 1) + "): float32[1, 1, 1, 4]\n";
  text += "output e99999\n";
  RuleFile file = parser::htp::read_rules(core::SourceFile::make(
      "r.cpp",
      R"(DEF_PACKAGE_OPTIMIZATION(EARLY, Op("Exp", LET("inner", Op("Exp", "x"))), OK, WrapOp("Exp", "inner")))"));
  std::vector<const Rule*> rules = {&file.rules.at(0)};
  try {
    apply_rules(read_graph(*core::SourceFile::make("g.graph", text)), rules);
    FAIL() << "no limit";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.kind(), core::ErrorKind::Limit);
    EXPECT_NE(e.render().find("no fixed point after 10000 rewrites"), std::string::npos);
  }
}

} // namespace
} // namespace teval::rules
