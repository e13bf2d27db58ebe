// libFuzzer harness: Antares einstein_v2 text, COMPUTE_V1 values and lines
// (read, elaborated with the input_dict's types, lowered, and evaluated
// when small).
#include "parser/antares/antares.h"
#include "parser/antares/antares_source.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace teval;
  auto file = core::SourceFile::make("<fuzz>", fuzz::text_of(data, size));
  fuzz::guarded([&] {
    parser::AntaresSource source = parser::read_antares(*file);
    core::Kernel k = parser::elaborate_antares(source, parser::declared_inputs(source));
    fuzz::exercise(k);
  });
  return 0;
}
