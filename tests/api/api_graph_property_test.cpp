// The property behind running graphs on every engine (docs/SEMANTICS.md,
// "Engines on graphs"): on random MLIR functions that mix ops with an
// einstein_v2 decomposition and ops without one (control flow whose
// regions read the function's values, sort, map, scatter, the math
// functions and bit views the Kernel IR lacks, ui64 values), run through
// the public Program as users run it, IREval and the JIT give the
// interpreter's (the native references') bits, NaNs of any sign and
// payload alike (a NaN's bits are not part of the semantics), or all three
// an error.
#include "teval/teval.h"
#include "verify/generators.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <optional>

namespace {

using teval::DType;
using teval::Engine;

// The outputs by name, or nothing (an error).
std::optional<std::map<std::string, teval::Tensor>>
outcome(const teval::Program& p, const std::map<std::string, teval::TensorRef>& in, Engine e) {
  try {
    return p.run(in, e);
  } catch (const teval::Error&) {
    return std::nullopt;
  }
}

// Element \p i of \p t is a NaN (a float type's all-ones exponent and a
// mantissa other than 0).
bool is_nan(const teval::Tensor& t, size_t i) {
  const auto* b = static_cast<const unsigned char*>(t.data());
  auto bits = [&](size_t width) {
    uint64_t v = 0;
    std::memcpy(&v, b + i * width, width);
    return v;
  };
  switch (t.dtype()) {
  case DType::Float16:
    return (bits(2) & 0x7fff) > 0x7c00;
  case DType::BFloat16:
    return (bits(2) & 0x7fff) > 0x7f80;
  case DType::Float32:
    return (bits(4) & 0x7fffffff) > 0x7f800000;
  case DType::Float64:
    return (bits(8) & 0x7fffffffffffffff) > 0x7ff0000000000000;
  default:
    return false;
  }
}

// The same dtype, shape and bits, NaN where the other has NaN.
bool same(const teval::Tensor& a, const teval::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape() || a.size_bytes() != b.size_bytes())
    return false;
  size_t n = 1;
  for (int64_t d : a.shape())
    n *= static_cast<size_t>(d);
  const size_t width = n ? a.size_bytes() / n : 0;
  for (size_t i = 0; i < n; ++i)
    if (std::memcmp(static_cast<const char*>(a.data()) + i * width,
                    static_cast<const char*>(b.data()) + i * width, width) != 0 &&
        !(is_nan(a, i) && is_nan(b, i)))
      return false;
  return true;
}

RC_GTEST_PROP(GraphEngines, IREvalAndTheJitGiveTheNativeReferencesBits, ()) {
  const teval::verify::Program g = *teval::verify::mlir_graph_program();
  teval::Program p = teval::Program::load(g.text);
  const auto drawn = p.random_inputs(*rc::gen::arbitrary<uint32_t>());
  std::map<std::string, teval::TensorRef> in;
  for (const auto& [name, t] : drawn)
    in.emplace(name, t.ref());
  const auto native = outcome(p, in, Engine::Interpreter);
  RC_TAG(native ? "values" : "an error");
  for (Engine e : {Engine::IREval, Engine::Jit}) {
    const auto other = outcome(p, in, e);
    RC_ASSERT(other.has_value() == native.has_value());
    if (!native)
      continue;
    for (const auto& [name, t] : *native)
      if (!same(t, other->at(name)))
        RC_FAIL("engine " + std::to_string(static_cast<int>(e)) + " differs at " + name +
                " from the native references on\n" + g.text);
  }
}

} // namespace
