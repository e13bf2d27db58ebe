// Running MLIR functions in tests (see mlir.h).
#include "tests/support/mlir.h"

#include "core/format.h"
#include "core/lower.h"
#include "interp/interpreter.h"
#include "interp/ireval.h"
#include "interp/random_inputs.h"
#include "jit/hexagon/hexagon.h"
#include "jit/jit.h"
#include "ops/decompose.h"
#include "ops/native.h"
#include "parser/mlir/mlir.h"

namespace teval::test {

namespace {

std::map<std::string, parser::InputType> types_of(const std::vector<core::Tensor>& inputs) {
  std::map<std::string, parser::InputType> types;
  for (size_t i = 0; i < inputs.size(); ++i)
    types[core::graph_input_name(i)] = {inputs[i].dtype(), inputs[i].shape(), {}};
  return types;
}

} // namespace

std::string mlir_graph(const std::string& text,
                       const std::map<std::string, parser::InputType>& inputs) {
  auto file = core::SourceFile::make("m.mlir", text);
  return core::to_string(parser::elaborate_mlir(parser::read_mlir(*file), "", inputs));
}

std::vector<core::Tensor> mlir_random_inputs(const std::string& text, uint64_t seed) {
  auto file = core::SourceFile::make("m.mlir", text);
  std::vector<core::Tensor> out;
  for (parser::MlirArgument& a : parser::mlir_arguments(parser::read_mlir(*file), "")) {
    for (int64_t& d : a.type.shape)
      d = d < 0 ? 3 : d; // a dynamic dimension: 3
    out.push_back(interp::random_tensor(a.type.dtype, a.type.shape, seed, a.name));
  }
  return out;
}

std::vector<core::Tensor> run_mlir(const std::string& text, const std::vector<core::Tensor>& inputs,
                                   const std::string& engine) {
  auto file = core::SourceFile::make("m.mlir", text);
  core::Graph g = parser::elaborate_mlir(parser::read_mlir(*file), "", types_of(inputs));
  if (engine == "interp")
    return ops::evaluate(g, inputs);
  ops::Decomposition d = ops::decompose(g);
  auto program = core::SourceFile::make("decomposition", d.program);
  parser::AntaresSource source = parser::read_antares(*program);
  core::Kernel kernel = parser::elaborate_antares(source, parser::declared_inputs(source));
  std::map<std::string, core::Tensor> given = d.constants;
  for (size_t i = 0; i < inputs.size(); ++i)
    given.emplace(core::graph_input_name(i), inputs[i]);
  std::vector<core::Tensor> kernel_inputs = interp::make_inputs(kernel, given, 0);
  if (engine == "decomposition")
    return interp::run(kernel, kernel_inputs);
  if (engine == "ireval")
    return interp::ireval(core::lower(kernel), kernel_inputs);
  if (engine == "hexagon")
    return jit::HexagonCompiler().compile(core::lower(kernel), "m.mlir")->run(kernel_inputs);
  TEVAL_ASSERT(engine == "jit", "unknown engine " + engine);
  return jit::Jit().compile(core::lower(kernel))->run(kernel_inputs);
}

std::string first_difference(const core::Tensor& a, const core::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape())
    return std::string(core::name(a.dtype())) + core::to_string(a.shape()) + " vs " +
           std::string(core::name(b.dtype())) + core::to_string(b.shape());
  for (int64_t i = 0; i < a.numel(); ++i)
    if (!core::identical(a.get(i), b.get(i)))
      return "element " + std::to_string(i) + ": " + core::format_element(a, i) + " vs " +
             core::format_element(b, i);
  return "";
}

} // namespace teval::test
