// libFuzzer harness: HTP ops files (the op definitions rule verification
// evaluates graphs with).
#include "rules/htp_ops.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace teval;
  auto file = core::SourceFile::make("<fuzz>.ops", fuzz::text_of(data, size));
  fuzz::guarded([&] { rules::OpSet::read(file); });
  return 0;
}
