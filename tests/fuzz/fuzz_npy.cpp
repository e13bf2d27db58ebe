// libFuzzer harness: .npy files (decoded, and encoded again when they
// decode: the round trip must give the same tensor).
#include "core/npy.h"
#include "core/tensor.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace teval;
  fuzz::guarded([&] {
    core::Tensor t = core::decode_npy(fuzz::text_of(data, size), "<fuzz>.npy");
    core::Tensor again = core::decode_npy(core::encode_npy(t), "<again>.npy");
    if (!core::identical(t, again))
      std::abort();
  });
  return 0;
}
