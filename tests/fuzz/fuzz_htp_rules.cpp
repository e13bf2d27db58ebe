// libFuzzer harness: HTP op-package rule files (read, macros expanded,
// every rule checked; problems are diagnostics, never exceptions).
#include "parser/htp/htp_rules.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace teval;
  auto file = core::SourceFile::make("<fuzz>.cpp", fuzz::text_of(data, size));
  fuzz::guarded([&] {
    parser::htp::RuleFile f = parser::htp::read_rules(file);
    for (const core::Diagnostic& d : f.diagnostics) {
      volatile size_t n = core::render(d).size();
      (void)n;
    }
  });
  return 0;
}
