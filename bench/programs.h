// Benchmark programs and their preparation, shared by the suites.
#pragma once

#include "core/kernel.h"
#include "core/source.h"
#include "core/tensor.h"
#include "interp/random_inputs.h"
#include "parser/antares/antares.h"
#include "parser/tile/tile.h"
#include "parser/tile/tile_source.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace teval::bench {

struct Prepared {
  std::shared_ptr<const core::SourceFile> file;
  core::Kernel kernel;
  std::vector<core::Tensor> inputs;
  int64_t points = 0;
};

inline void count_points(Prepared& p) {
  for (const core::Statement& s : p.kernel.statements) {
    int64_t n = 1;
    for (const core::IndexVar& v : s.vars)
      n *= v.end - v.begin;
    p.points += n;
  }
}

inline Prepared prepare(const std::string& text) {
  Prepared p;
  p.file = core::SourceFile::make("<bench>", text);
  parser::AntaresSource source = parser::read_antares(*p.file);
  p.kernel = parser::elaborate_antares(source, parser::declared_inputs(source));
  p.inputs = interp::make_inputs(p.kernel, {}, 1);
  count_points(p);
  return p;
}

inline Prepared prepare_tile(const std::string& text,
                             const std::map<std::string, core::Tensor>& inputs) {
  Prepared p;
  p.file = core::SourceFile::make("<bench>", text);
  std::map<std::string, parser::InputType> types;
  for (const auto& [name, t] : inputs)
    types[name] = {t.dtype(), t.shape(), {}};
  p.kernel = parser::elaborate_tile(parser::read_tile(*p.file), "", types, {});
  p.inputs = interp::make_inputs(p.kernel, inputs, 1);
  count_points(p);
  return p;
}

/// A 64x64x64 float32 matmul.
inline const char* const kMatmul =
    R"X(- einstein_v2("output0[N, M] +=! input0[N, K] * input1[K, M]", {
    "input0": {"dtype": "float32", "shape": [64, 64]},
    "input1": {"dtype": "float32", "shape": [64, 64]}}))X";

/// A 3x3 convolution, 16 channels in and out, 16x16, padded with .when.
inline const char* const kConv2dPadded =
    R"X(- einstein_v2("output0[N, F, HO, WO] +=! input0[N, C, HO + KH - 1, WO + KW - 1].when([HO + KH - 1 >= 0, HO + KH - 1 < 16, WO + KW - 1 >= 0, WO + KW - 1 < 16], 0.0) * input1[F, C, KH, KW] where HO in 16, WO in 16", {
    "input0": {"dtype": "float32", "shape": [1, 16, 16, 16]},
    "input1": {"dtype": "float32", "shape": [16, 16, 3, 3]}}))X";

/// An elementwise chain with exp over 256x256.
inline const char* const kElementwise =
    R"X(- einstein_v2("output0[N, C] = (input0[N, C] * 2.0 + input1[N, C]).call(`exp`) / (1.0 + input1[N, C] * input1[N, C])", {
    "input0": {"dtype": "float32", "shape": [256, 256]},
    "input1": {"dtype": "float32", "shape": [256, 256]}}))X";

} // namespace teval::bench
