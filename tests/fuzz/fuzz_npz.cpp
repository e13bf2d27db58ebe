// libFuzzer harness: .npz archives (zip members, stored or deflated),
// written to a temporary file as teval reads them from paths.
#include "core/npz.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstdio>
#include <fstream>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace teval;
  static const std::string path = "/tmp/teval-fuzz-" + std::to_string(::getpid()) + ".npz";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  fuzz::guarded([&] {
    for (const std::string& key : core::npz_keys(path))
      fuzz::guarded([&] { core::read_npz(path, key); });
  });
  return 0;
}
