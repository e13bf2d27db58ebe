// libFuzzer harness: MLIR functions of mhlo/stablehlo ops and ByteIR
// custom calls. Every function is elaborated (a `?` dimension of extent 3);
// when its values are small, the native references run, and the einstein_v2
// decomposition is read back, lowered and evaluated.
#include "ops/decompose.h"
#include "ops/native.h"
#include "parser/mlir/mlir.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace teval;
  auto file = core::SourceFile::make("<fuzz>", fuzz::text_of(data, size));
  fuzz::guarded([&] {
    ast::Program program = parser::read_mlir(*file);
    std::map<std::string, parser::InputType> types;
    std::vector<core::Tensor> inputs;
    for (parser::MlirArgument& a : parser::mlir_arguments(program, "")) {
      for (int64_t& d : a.type.shape)
        d = d < 0 ? 3 : d;
      types[a.name] = {a.type.dtype, a.type.shape, {}};
    }
    core::Graph g = parser::elaborate_mlir(program, "", types);
    for (const core::ValueType& v : g.values)
      if (core::checked_numel(v.shape).value_or(1 << 20) > (1 << 16))
        return;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      const core::ValueType& t = g.values[static_cast<size_t>(g.inputs[i])];
      inputs.push_back(interp::random_tensor(t.dtype, t.shape, 1, core::graph_input_name(i)));
    }
    fuzz::guarded([&] { ops::evaluate(g, inputs); });
    ops::Decomposition d = ops::decompose(g);
    auto text = core::SourceFile::make("<decomposition>", d.program);
    parser::AntaresSource source = parser::read_antares(*text);
    fuzz::exercise(parser::elaborate_antares(source, parser::declared_inputs(source)));
  });
  return 0;
}
