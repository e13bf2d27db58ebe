// libFuzzer harness: HTP graph files (read, printed, and rewritten by the
// rules of examples/htp/split_rules.cpp).
#include "parser/htp/htp_rules.h"
#include "rules/htp_graph.h"
#include "rules/htp_rewrite.h"
#include "tests/fuzz/fuzz_support.h"

#include <fstream>
#include <sstream>

namespace {

const teval::parser::htp::RuleFile& example_rules() {
  static const teval::parser::htp::RuleFile rules = [] {
    std::ifstream in(TEVAL_SOURCE_DIR "/examples/htp/split_rules.cpp");
    std::stringstream text;
    text << in.rdbuf();
    return teval::parser::htp::read_rules(
        teval::core::SourceFile::make("split_rules.cpp", text.str()));
  }();
  return rules;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace teval;
  auto file = core::SourceFile::make("<fuzz>.graph", fuzz::text_of(data, size));
  fuzz::guarded([&] {
    rules::Graph g = rules::read_graph(*file);
    volatile size_t n = rules::to_text(g).size();
    (void)n;
    std::vector<const parser::htp::Rule*> rules;
    for (const parser::htp::Rule& r : example_rules().rules)
      if (!r.malformed())
        rules.push_back(&r);
    rules::apply_rules(g, rules);
  });
  return 0;
}
