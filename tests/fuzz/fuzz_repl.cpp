// libFuzzer harness: REPL entries. The input is split into entries at
// newlines and fed to one session, as a script is.
#include "tests/fuzz/fuzz_support.h"
#include "tools/teval/repl_session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace teval;
  std::string text = fuzz::text_of(data, size);
  tools::repl::Session session;
  size_t begin = 0;
  for (int entries = 0; begin <= text.size() && entries < 16; ++entries) {
    size_t end = text.find('\n', begin);
    std::string entry =
        text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    // `:save` writes a file wherever it is told: not from a fuzzer.
    size_t first = entry.find_first_not_of(" \t");
    if (first != std::string::npos && entry.compare(first, 5, ":save") == 0)
      entry = ":vars";
    auto file = core::SourceFile::make("<entry " + std::to_string(entries + 1) + ">", entry);
    bool quit = false;
    fuzz::guarded([&] { quit = session.execute(file).quit; });
    if (quit || end == std::string::npos)
      break;
    begin = end + 1;
  }
  return 0;
}
